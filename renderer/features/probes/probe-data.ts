import { z } from 'zod';
import type { WireError } from '../../../shared/contract/errors';
import type { ProbeId, ProbeReport } from '../../../shared/domain/probe';

// The contract carries a probe's parsed form as `unknown` (each probe has its own shape). These schemas are the
// renderer's reading of those shapes: lenient (extra fields pass, odd values become null), and when one does
// not match, the screen shows the raw output instead of guessing.

const optStr = z.string().nullable().optional().catch(null);
const optNum = z.number().nullable().optional().catch(null);

export const ServicesParsed = z.object({
  services: z.array(z.object({ name: z.string(), displayName: optStr, status: z.string(), startType: optStr })),
  missing: z.array(z.string()).catch([]),
});
export type ServicesParsed = z.infer<typeof ServicesParsed>;

export const ServiceConfigParsed = z.array(
  z.object({
    name: z.string(),
    state: optStr,
    startType: optStr,
    processId: optNum,
    commandLine: optStr,
    dependOnService: z.array(z.string()).catch([]),
    startName: optStr,
  }),
);
export type ServiceConfigParsed = z.infer<typeof ServiceConfigParsed>;

export const ProcessesParsed = z.array(z.object({ pid: z.number(), name: z.string().catch(''), startedAt: optStr, commandLine: optStr }));
export type ProcessesParsed = z.infer<typeof ProcessesParsed>;

/** HNS objects pass through as HNS printed them; we read a few well-known fields. */
export const HnsObjects = z.array(z.record(z.string(), z.unknown()));
export type HnsObjects = z.infer<typeof HnsObjects>;

export const NetAdaptersParsed = z.object({
  adapters: z.array(
    z.object({ name: optStr, interfaceDescription: optStr, ifIndex: z.unknown(), status: optStr, macAddress: optStr, linkSpeed: optStr, mtu: z.unknown() }),
  ),
  ipAddresses: z.array(z.object({ interfaceAlias: optStr, interfaceIndex: z.unknown(), ipAddress: optStr, prefixLength: z.unknown() })),
});
export type NetAdaptersParsed = z.infer<typeof NetAdaptersParsed>;

export const DnsParsed = z.object({
  suffixSearchList: z.array(z.string()).catch([]),
  results: z.array(z.object({ query: z.string(), succeeded: z.boolean(), addresses: z.array(z.string()).catch([]), answerName: optStr, error: optStr })),
});
export type DnsParsed = z.infer<typeof DnsParsed>;

export const FilesParsed = z.array(
  z.object({
    path: z.string(),
    exists: z.boolean(),
    length: z.number().catch(0),
    lastWriteTime: optStr,
    truncated: z.boolean().catch(false),
    encoding: optStr,
    text: optStr,
  }),
);
export type FilesParsed = z.infer<typeof FilesParsed>;

/** One probe's stored outcome, as a screen needs it. */
export type ProbeView<T> =
  | { state: 'absent' }
  | { state: 'failed'; error: WireError | null; raw: string | null }
  | { state: 'unreadable'; raw: string | null }
  | { state: 'ok'; value: T; raw: string | null };

export function probeView<T>(report: ProbeReport | undefined, id: ProbeId, schema: z.ZodType<T>): ProbeView<T> {
  const outcome = report?.probes[id];
  if (!outcome) return { state: 'absent' };
  if (!outcome.ok) return { state: 'failed', error: outcome.error, raw: outcome.raw };
  const parsed = schema.safeParse(outcome.parsed);
  return parsed.success ? { state: 'ok', value: parsed.data, raw: outcome.raw } : { state: 'unreadable', raw: outcome.raw };
}

/** A field of an HNS object by any of its spellings (HNS v1 and v2 differ), as display text. */
export function hnsField(o: Record<string, unknown>, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = o[k];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    return JSON.stringify(v);
  }
  return null;
}

/** HNS subnets as "10.244.1.0/24 via 10.244.1.1". */
export function hnsSubnets(o: Record<string, unknown>): string[] {
  const subnets = Array.isArray(o.Subnets) ? o.Subnets : [];
  return subnets.map((s) => {
    const r = (s ?? {}) as Record<string, unknown>;
    const prefix = typeof r.AddressPrefix === 'string' ? r.AddressPrefix : '?';
    return typeof r.GatewayAddress === 'string' && r.GatewayAddress ? `${prefix} via ${r.GatewayAddress}` : prefix;
  });
}

/** The host key fingerprint an UNKNOWN/CHANGED error names, if any. */
export function fingerprintIn(message: string): string | null {
  return /SHA256:[A-Za-z0-9+/]{43}/.exec(message)?.[0] ?? null;
}

/** Lines of `text` containing `needle` (case-insensitive), with their 1-based numbers; all lines when empty. */
export function grepLines(text: string, needle: string, max = 5000): Array<{ n: number; line: string }> {
  const lines = text.split(/\r?\n/);
  const q = needle.trim().toLowerCase();
  const out: Array<{ n: number; line: string }> = [];
  for (let i = 0; i < lines.length && out.length < max; i++) {
    const line = lines[i] ?? '';
    if (q === '' || line.toLowerCase().includes(q)) out.push({ n: i + 1, line });
  }
  return out;
}
