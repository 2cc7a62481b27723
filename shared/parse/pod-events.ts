/**
 * Pod events: the `Events:` table of `kubectl describe pod|node` (rows may come without the header, pasted
 * alone), `kubectl get events` rows, and an EventList JSON (a Windeck bundle's cluster/events.json).
 */
import { makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

/** `Warning  FailedCreatePodSandBox  13m (x2459 over 58m)  kubelet, kub2win01  Failed to ...` */
export const EVENT_ROW = /^\s*(Normal|Warning)\s{1,}([A-Z][A-Za-z]+)\s{2,}(\S+(?: \(x\d+ over \S+\))?|<unknown>)\s{2,}(.*?)\s{2,}(\S.*)$/;
/** `kubectl get events`: `LAST SEEN   TYPE      REASON   OBJECT   MESSAGE`. */
const GET_EVENTS_HEADER = /^\s*(?:LAST SEEN|LASTSEEN)\s+TYPE\s+REASON\s+(?:OBJECT|KIND)\s+.*MESSAGE/;

/** True when the lines hold pod event rows. */
export function looksLikePodEvents(lines: readonly string[]): boolean {
  return lines.some((l) => EVENT_ROW.test(l) || GET_EVENTS_HEADER.test(l));
}

function countOf(age: string): number | null {
  const m = /\(x(\d+) over/.exec(age);
  return m ? Number(m[1]) : 1;
}

/** Parse event rows; a row's message may continue on the following lines. */
export function parsePodEvents(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = EVENT_ROW.exec(lines[i] ?? '');
    if (!m) continue;
    let message = m[5]!.trim();
    let j = i + 1;
    for (; j < lines.length && j < i + 20; j++) {
      const next = lines[j] ?? '';
      if (next.trim() === '' || EVENT_ROW.test(next)) break;
      message += ' ' + next.trim();
    }
    const from = m[4]!.trim();
    const node = /kubelet, ([\w.-]+)/.exec(from)?.[1] ?? null;
    facts.push(
      makeFact('pod-event', { source: ctx.source, node: node ?? ctx.node }, i + 1, (lines[i] ?? '').trim(), {
        type: m[1]!,
        reason: m[2]!,
        from,
        message,
        count: countOf(m[3]!),
      }),
    );
    i = j - 1;
  }
  return { facts, warnings: facts.length ? [] : ['no event rows found'] };
}

interface KubeEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  involvedObject?: { kind?: string; name?: string };
}

/** Parse an EventList (or a single Event) JSON. */
export function parseEventListJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const json = parseLooseJson(toLines(text));
  if (!json || typeof json.value !== 'object' || json.value === null) return { facts: [], warnings: ['no JSON found'] };
  const v = json.value as { items?: unknown; kind?: string };
  const items = Array.isArray(v.items) ? (v.items as KubeEvent[]) : [v as KubeEvent];
  const facts: Fact[] = [];
  for (const e of items) {
    if (!e || typeof e.reason !== 'string') continue;
    const node = e.source?.host ?? (e.involvedObject?.kind === 'Node' ? (e.involvedObject.name ?? null) : null) ?? e.reportingInstance ?? null;
    facts.push(
      makeFact('pod-event', { source: ctx.source, node: node ?? ctx.node }, null, `${e.type ?? ''} ${e.reason} ${e.message ?? ''}`.trim(), {
        type: e.type ?? null,
        reason: e.reason,
        from: e.source?.component ?? e.reportingComponent ?? null,
        message: e.message ?? '',
        count: typeof e.count === 'number' ? e.count : null,
      }),
    );
  }
  return { facts, warnings: [] };
}
