/**
 * A small, strict, namespace-aware XML reader for SOAP envelopes, and the escaping helpers used to write them.
 * It refuses DOCTYPE (no entity expansion, no external resources) and anything malformed, and caps depth and
 * size, so a hostile peer cannot make it do much work. Text and attribute values are decoded; elements carry
 * their namespace URI and local name so callers never depend on the peer's prefixes.
 */

export interface XmlElement {
  /** Namespace URI ('' when none). */
  ns: string;
  local: string;
  /** Attributes by local name; namespaced attributes other than xmlns are keyed `{uri}local` as well. */
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element. */
  text: string;
}

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

export const XML_MAX_DEPTH = 64;
export const XML_MAX_CHARS = 64 * 1024 * 1024;

const NAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;

function decodeEntities(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);|&/g, (match, entity: string | undefined) => {
    if (entity === undefined) throw new XmlError('bare & in text');
    switch (entity) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default: {
        const code = entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
        if (!Number.isFinite(code) || code > 0x10ffff) throw new XmlError(`bad character reference ${match}`);
        return String.fromCodePoint(code);
      }
    }
  });
}

interface RawElement {
  qname: string;
  rawAttrs: Array<[string, string]>;
  scope: Map<string, string>;
  element: XmlElement;
}

export function parseXml(input: string): XmlElement {
  if (input.length > XML_MAX_CHARS) throw new XmlError('document too large');
  let pos = 0;
  if (input.charCodeAt(0) === 0xfeff) pos = 1;
  const stack: RawElement[] = [];
  let root: XmlElement | null = null;

  const resolve = (qname: string, scope: Map<string, string>, isAttr: boolean): { ns: string; local: string } => {
    const colon = qname.indexOf(':');
    if (colon < 0) return { ns: isAttr ? '' : (scope.get('') ?? ''), local: qname };
    const prefix = qname.slice(0, colon);
    const local = qname.slice(colon + 1);
    if (prefix === 'xml') return { ns: 'http://www.w3.org/XML/1998/namespace', local };
    const ns = scope.get(prefix);
    if (ns === undefined) throw new XmlError(`undeclared namespace prefix ${prefix}`);
    return { ns, local };
  };

  while (pos < input.length) {
    const lt = input.indexOf('<', pos);
    const textEnd = lt < 0 ? input.length : lt;
    if (textEnd > pos) {
      const text = input.slice(pos, textEnd);
      const top = stack[stack.length - 1];
      if (top) top.element.text += decodeEntities(text);
      else if (text.trim() !== '') throw new XmlError('text outside the root element');
    }
    if (lt < 0) break;
    pos = lt;

    if (input.startsWith('<?', pos)) {
      const end = input.indexOf('?>', pos + 2);
      if (end < 0) throw new XmlError('unterminated processing instruction');
      pos = end + 2;
      continue;
    }
    if (input.startsWith('<!--', pos)) {
      const end = input.indexOf('-->', pos + 4);
      if (end < 0) throw new XmlError('unterminated comment');
      pos = end + 3;
      continue;
    }
    if (input.startsWith('<![CDATA[', pos)) {
      const end = input.indexOf(']]>', pos + 9);
      if (end < 0) throw new XmlError('unterminated CDATA');
      const top = stack[stack.length - 1];
      if (!top) throw new XmlError('CDATA outside the root element');
      top.element.text += input.slice(pos + 9, end);
      pos = end + 3;
      continue;
    }
    if (input.startsWith('<!', pos)) throw new XmlError('DOCTYPE and declarations are not accepted');

    if (input.startsWith('</', pos)) {
      NAME.lastIndex = pos + 2;
      const m = NAME.exec(input);
      if (!m) throw new XmlError('bad end tag');
      const close = input.indexOf('>', NAME.lastIndex);
      if (close < 0 || input.slice(NAME.lastIndex, close).trim() !== '') throw new XmlError('bad end tag');
      const top = stack.pop();
      if (!top || top.qname !== m[0]) throw new XmlError(`mismatched end tag </${m[0]}>`);
      pos = close + 1;
      continue;
    }

    // Start tag
    NAME.lastIndex = pos + 1;
    const m = NAME.exec(input);
    if (!m) throw new XmlError('bad start tag');
    const qname = m[0];
    pos = NAME.lastIndex;
    const rawAttrs: Array<[string, string]> = [];
    let selfClosing = false;
    for (;;) {
      const ws = /\s*/y;
      ws.lastIndex = pos;
      ws.exec(input);
      pos = ws.lastIndex;
      if (input.startsWith('/>', pos)) {
        selfClosing = true;
        pos += 2;
        break;
      }
      if (input[pos] === '>') {
        pos += 1;
        break;
      }
      NAME.lastIndex = pos;
      const an = NAME.exec(input);
      if (!an) throw new XmlError(`bad attribute in <${qname}>`);
      pos = NAME.lastIndex;
      const eq = /\s*=\s*/y;
      eq.lastIndex = pos;
      if (!eq.exec(input)) throw new XmlError(`attribute ${an[0]} has no value`);
      pos = eq.lastIndex;
      const quote = input[pos];
      if (quote !== '"' && quote !== "'") throw new XmlError(`attribute ${an[0]} is not quoted`);
      const end = input.indexOf(quote, pos + 1);
      if (end < 0) throw new XmlError('unterminated attribute value');
      const value = input.slice(pos + 1, end);
      if (value.includes('<')) throw new XmlError('< in attribute value');
      rawAttrs.push([an[0], decodeEntities(value)]);
      pos = end + 1;
    }

    const parentScope = stack[stack.length - 1]?.scope ?? new Map<string, string>();
    let scope = parentScope;
    for (const [name, value] of rawAttrs) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        if (scope === parentScope) scope = new Map(parentScope);
        scope.set(name === 'xmlns' ? '' : name.slice(6), value);
      }
    }
    const { ns, local } = resolve(qname, scope, false);
    const attrs: Record<string, string> = {};
    for (const [name, value] of rawAttrs) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const resolved = resolve(name, scope, true);
      attrs[resolved.local] = value;
      if (resolved.ns) attrs[`{${resolved.ns}}${resolved.local}`] = value;
    }
    const element: XmlElement = { ns, local, attrs, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent) parent.element.children.push(element);
    else if (root) throw new XmlError('more than one root element');
    else root = element;
    if (!selfClosing) {
      if (stack.length >= XML_MAX_DEPTH) throw new XmlError('document nested too deeply');
      stack.push({ qname, rawAttrs, scope, element });
    }
  }
  if (stack.length > 0) throw new XmlError(`unclosed element <${stack[stack.length - 1]?.qname}>`);
  if (!root) throw new XmlError('no root element');
  return root;
}

/** First child with this namespace and local name. */
export function child(element: XmlElement | undefined, ns: string, local: string): XmlElement | undefined {
  return element?.children.find((c) => c.ns === ns && c.local === local);
}

export function children(element: XmlElement | undefined, ns: string, local: string): XmlElement[] {
  return element?.children.filter((c) => c.ns === ns && c.local === local) ?? [];
}

/** Depth-first search for every descendant with this namespace and local name. */
export function descendants(element: XmlElement, ns: string, local: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (node: XmlElement): void => {
    for (const c of node.children) {
      if (c.ns === ns && c.local === local) out.push(c);
      walk(c);
    }
  };
  walk(element);
  return out;
}

export function escapeXmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeXmlAttr(value: string): string {
  return escapeXmlText(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
