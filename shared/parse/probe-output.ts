/**
 * Live probe output → facts, through the same parsers the offline diagnosis uses. The probe id says which parser
 * to try first (the shipped scripts emit JSON: electron/services/powershell/scripts/<id>.ps1); anything else falls
 * back to content classification, so a probe that printed a table or a log still yields its facts.
 */
import { makeFact, type ParseContext } from '../logic/facts';
import { classifyText, type InputKind } from './classify';
import { parseGetServiceJson } from './get-service';
import { parseHnsJson } from './hns';
import { parseText, type TextParseResult } from './parse-text';
import { toLines } from './text';

/** The kind each probe's own output has (used for `inputs` and to pick the parser). */
export const PROBE_KINDS: Readonly<Record<string, InputKind>> = {
  services: 'get-service-json',
  'service-config': 'service-config-json',
  processes: 'process-json',
  'hns-networks': 'hns-json',
  'hns-endpoints': 'hns-json',
  'hns-policies': 'hns-policy-json',
  'net-adapters': 'get-netadapter-json',
  dns: 'dns-probe-json',
  os: 'win32-operatingsystem',
  files: 'file-content-json',
  runtime: 'runtime-probe-json',
  logs: 'file-content-json',
};

function isEmptyJsonList(text: string): boolean {
  const t = toLines(text).join('').trim();
  return t === '' || t === '[]' || t === 'null';
}

/**
 * Parse one probe's raw output. `ctx.source` is usually `probe:<id>` (live) or the bundle path of `<id>.raw`.
 * Never throws.
 */
export function parseProbeOutput(probeId: string, raw: string, ctx: ParseContext): TextParseResult {
  const expected = PROBE_KINDS[probeId];
  // An empty answer is evidence too: no such services, no HNS networks.
  if (isEmptyJsonList(raw)) {
    if (probeId === 'hns-networks') {
      return { kind: 'hns-json', kinds: ['hns-json'], facts: [makeFact('hns-network-listing', ctx, null, 'Get-HnsNetwork returned no networks', { names: [], truncated: false, format: 'hns-json' })], warnings: [] };
    }
    if (probeId === 'services') {
      return { kind: 'get-service-json', kinds: ['get-service-json'], facts: [makeFact('service-listing', ctx, null, 'none of the asked services exists', { names: [], complete: true, format: 'get-service-json' })], warnings: [] };
    }
    return { kind: expected ?? 'empty', kinds: [expected ?? 'empty'], facts: [], warnings: ['empty output'] };
  }
  if (probeId === 'services') {
    const r = parseGetServiceJson(raw, ctx, true);
    if (r.facts.length) return { kind: 'get-service-json', kinds: ['get-service-json'], ...r };
  }
  if (probeId === 'hns-networks' || probeId === 'hns-endpoints') {
    const r = parseHnsJson(raw, ctx);
    if (r.facts.length) return { kind: 'hns-json', kinds: ['hns-json'], ...r };
  }
  const classified = classifyText(raw);
  if (expected && !classified.kinds.includes(expected) && classified.kind === 'unknown') {
    return parseText(raw, ctx, { kind: expected, kinds: [expected] });
  }
  return parseText(raw, ctx, classified);
}
