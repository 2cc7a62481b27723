/**
 * Label and field selectors as the API server reads them (`-l`, `--field-selector`).
 * Parse errors throw SelectorError, which the server answers with 400 BadRequest like kube-apiserver.
 */

export class SelectorError extends Error {}

export type LabelRequirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type LabelSelector = LabelRequirement[];

/** Split on commas that are not inside parentheses. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const VALUE = /^([a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?$/;

function checkKey(key: string, whole: string): string {
  if (!KEY.test(key) || key.length > 316) throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in "${whole}"`);
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorError(`unable to parse requirement: invalid label value "${value}" in "${whole}"`);
  return value;
}

export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  if (!text || text.trim() === '') return [];
  const out: LabelSelector = [];
  for (const raw of splitTop(text)) {
    const part = raw.trim();
    if (part === '') throw new SelectorError(`unable to parse requirement: empty requirement in "${text}"`);
    let m: RegExpExecArray | null;
    if ((m = /^!\s*(\S+)$/.exec(part))) {
      out.push({ key: checkKey(m[1]!, text), op: 'notexists' });
    } else if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim(), text));
      out.push({ key: checkKey(m[1]!, text), op: m[2] as 'in' | 'notin', values });
    } else if ((m = /^([^=!<>\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part))) {
      const key = checkKey(m[1]!, text);
      const value = checkValue(m[3]!, text);
      out.push({ key, op: m[2] === '!=' ? 'notin' : 'in', values: [value] });
    } else if ((m = /^([^=!<>\s]+)\s*([<>])\s*(-?\d+)$/.exec(part))) {
      out.push({ key: checkKey(m[1]!, text), op: m[2] === '>' ? 'gt' : 'lt', value: Number(m[3]) });
    } else if ((m = /^(\S+)$/.exec(part))) {
      out.push({ key: checkKey(m[1]!, text), op: 'exists' });
    } else {
      throw new SelectorError(`unable to parse requirement: "${part}"`);
    }
  }
  return out;
}

export function matchLabels(selector: LabelSelector, labels: Record<string, string> | null | undefined): boolean {
  const l = labels ?? {};
  for (const r of selector) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'gt':
      case 'lt': {
        const n = Number(v);
        if (!has || !Number.isFinite(n) || (r.op === 'gt' ? !(n > r.value) : !(n < r.value))) return false;
        break;
      }
    }
  }
  return true;
}

export interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

function unescapeField(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** Split on unescaped separators. */
function splitEscaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      cur += ch + text[i + 1];
      i++;
    } else if (ch === sep) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function parseFieldSelector(text: string | null | undefined): FieldRequirement[] {
  if (!text || text.trim() === '') return [];
  const out: FieldRequirement[] = [];
  for (const part of splitEscaped(text, ',')) {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    out.push({ field: m[1]!.trim(), value: unescapeField(m[3]!), negate: m[2] === '!=' });
  }
  return out;
}
