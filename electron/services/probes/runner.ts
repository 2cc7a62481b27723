import { WindeckError, isWindeckError, type TransportKind, type WireError } from '../../../shared/contract/errors';
import { runScript } from '../powershell/invoke';
import { loadScript } from '../powershell/script-loader';
import type { ProbeResultsRepo } from '../store/repos/probe-results';
import { fanOut } from '../transports/fan-out';
import type { NodeTransport } from '../transports/node-transport';
import { PROBES, PROBE_IDS, type ProbeContext, type ProbeId } from './catalog';

/**
 * Run probes on one node through one transport. Each run stores the raw output verbatim (the bytes as
 * received) and its parsed form in the store, then reports per probe `{ ok, raw, parsed, error, durationMs }`
 * (DESIGN.md section 10). A probe that could not run is `ok: false` with the error; a probe that ran and saw
 * something bad is `ok: true` (findings are data).
 */

export interface ProbeOutcome {
  ok: boolean;
  raw: string | null;
  parsed: unknown;
  error: WireError | null;
  durationMs: number;
  warnings: string[];
  exitCode: number | null;
}

export interface ProbeReport {
  node: string;
  transport: TransportKind;
  probes: Record<string, ProbeOutcome>;
}

export interface RunProbesOptions {
  clusterId: string;
  transport: NodeTransport;
  probes?: readonly ProbeId[];
  context?: Partial<ProbeContext>;
  signal: AbortSignal;
  repo?: ProbeResultsRepo | null;
  /** Probes run at once on the node (each is one SSH channel / WinRM shell). */
  concurrency?: number;
  now?: () => number;
  onProgress?: (done: number, total: number, probe: ProbeId) => void;
  scriptDirs?: string[];
}

function stderrMessage(stderr: string): string {
  const line = stderr.split(/\r?\n/).find((l) => l.startsWith('windeck-script-error:')) ?? stderr.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return line.replace(/^windeck-script-error:\s*/, '').slice(0, 300);
}

export async function runProbes(options: RunProbesOptions): Promise<ProbeReport> {
  const now = options.now ?? Date.now;
  const ids = [...new Set(options.probes && options.probes.length > 0 ? options.probes : PROBE_IDS)];
  const transport = options.transport;
  const ctx: ProbeContext = { node: transport.node, now: now(), ...options.context };
  const settled = await fanOut(
    ids,
    options.concurrency ?? 4,
    async (id, signal): Promise<ProbeOutcome> => {
      const def = PROBES[id];
      const startedAt = now();
      const chunks: Buffer[] = [];
      const args = def.args(ctx) as Record<string, unknown>;
      let scriptSha: string | null = null;
      let outcome: ProbeOutcome;
      let exitCode: number | null = null;
      let stderr: string | null = null;
      try {
        if (!def.transports.includes(transport.kind)) throw new WindeckError('UNSUPPORTED', `The ${id} probe does not run over ${transport.kind}.`, { node: transport.node, transport: transport.kind, step: id });
        scriptSha = (await loadScript(def.scriptId, options.scriptDirs)).sha256;
        const result = await runScript(transport, def.scriptId, args, {
          signal,
          timeouts: { commandMs: def.timeoutMs },
          onStdout: (c) => chunks.push(Buffer.from(c)),
          ...(options.scriptDirs ? { scriptDirs: options.scriptDirs } : {}),
        });
        exitCode = result.exitCode;
        stderr = result.stderr;
        const raw = Buffer.concat(chunks);
        if (result.exitCode !== 0) {
          throw new WindeckError('REMOTE_FAILED', `${id} failed on ${transport.node} (exit ${result.exitCode}): ${stderrMessage(result.stderr) || 'no error text'}`, { node: transport.node, transport: transport.kind, step: id });
        }
        const parsed = def.parse(raw, args);
        const warnings = [...parsed.warnings];
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(raw);
        } catch {
          warnings.push('the output was not valid UTF-8; invalid bytes are kept in the raw output and shown as U+FFFD');
        }
        outcome = { ok: true, raw: result.stdout, parsed: parsed.value, error: null, durationMs: now() - startedAt, warnings, exitCode };
      } catch (error) {
        const e = isWindeckError(error) ? (error as WindeckError) : new WindeckError('INTERNAL', (error as Error)?.message ?? String(error), { node: transport.node, step: id });
        const raw = Buffer.concat(chunks);
        outcome = { ok: false, raw: raw.length > 0 ? new TextDecoder('utf-8').decode(raw) : null, parsed: null, error: e.toWire(), durationMs: now() - startedAt, warnings: [], exitCode };
      }
      options.repo?.insert({
        clusterId: options.clusterId,
        node: transport.node,
        probeId: id,
        probeVersion: def.version,
        scriptId: def.scriptId,
        scriptSha256: scriptSha,
        transport: transport.kind,
        ok: outcome.ok,
        exitCode,
        raw: chunks.length > 0 ? Buffer.concat(chunks) : null,
        stderr,
        parsed: outcome.parsed,
        warnings: outcome.warnings,
        error: outcome.error,
        startedAt,
        durationMs: outcome.durationMs,
      });
      return outcome;
    },
    { signal: options.signal, ...(options.onProgress ? { onSettled: (done: number, total: number, id: ProbeId) => options.onProgress!(done, total, id) } : {}) },
  );
  const probes: Record<string, ProbeOutcome> = {};
  for (const r of settled) {
    probes[r.item] = r.ok ? r.value : { ok: false, raw: null, parsed: null, error: r.error, durationMs: r.durationMs, warnings: [], exitCode: null };
  }
  return { node: transport.node, transport: transport.kind, probes };
}
