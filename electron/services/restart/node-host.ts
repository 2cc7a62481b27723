import { WindeckError } from '../../../shared/contract/errors';
import { normalizeServiceStatus, normalizeStartType } from '../../../shared/parse/components';
import { RESTART_READ_TIMEOUT_MS } from '../../../shared/domain/limits';
import { runScript } from '../powershell/invoke';
import { loadScript } from '../powershell/script-loader';
import type { ScriptId } from '../powershell/script-ids';
import type { NodeTransport, RunResult } from '../transports/node-transport';
import type { HostFile, HostNetwork, HostProcess, HostService, RestartNodeHost, ServiceRestartReport } from './ports';

/**
 * RestartNodeHost over a NodeTransport (SSH or WinRM): the shipped scripts, their arguments validated by
 * powershell/invoke.ts, and tolerant reading of what Windows PowerShell 5.1 prints (a single object not in an
 * array, enums as numbers, a BOM, CRLF).
 */

type Json = Record<string, unknown>;

function stripBom(text: string): string {
  return text.replace(/^\uFEFF/, '');
}

/** The JSON a script printed; PARSE_FAILED when it is not JSON. Empty output is an empty list. */
export function scriptJson(result: RunResult, scriptId: string, node: string): unknown {
  const text = stripBom(result.stdout).trim();
  if (text === '') return [];
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WindeckError(
      'PARSE_FAILED',
      `The ${scriptId} script on ${node} printed something that is not JSON (first bytes: ${JSON.stringify(text.slice(0, 60))}).`,
      {
        node,
        transport: result.transport,
        step: scriptId,
      },
    );
  }
}

/** PowerShell 5.1 prints one object bare and several as an array. */
export function asList(value: unknown): Json[] {
  if (Array.isArray(value)) return value.filter((v): v is Json => typeof v === 'object' && v !== null);
  return typeof value === 'object' && value !== null ? [value as Json] : [];
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function int(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
}

function strings(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x !== '');
  return typeof v === 'string' && v !== '' ? [v] : [];
}

/** Decode file bytes as Windows writes them: UTF-8 (with or without BOM) or UTF-16LE with BOM. */
export function decodeFileBytes(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  return bytes.toString('utf8');
}

/** The `windeck-script-error: ...` line of a failed script, else its stderr, shortened. */
function scriptError(result: RunResult): string {
  const line = result.stderr.split(/\r?\n/).find((l) => l.startsWith('windeck-script-error:'));
  const text = (line ? line.slice('windeck-script-error:'.length) : result.stderr).trim();
  return text.length > 0 ? text.slice(0, 500) : `exit code ${result.exitCode}`;
}

export interface TransportNodeHostOptions {
  /** Per-read limit (each script run); restart-service gets its own from its timeoutSeconds. */
  readTimeoutMs?: number;
  /** Script directory override (tests). */
  scriptDirs?: string[];
  /** Called once by close() (a pooled transport may want to keep the connection). */
  onClose?: () => Promise<void>;
  /** The diagnostics engine over this transport (rule ids found now); absent: findings are not compared. */
  findings?: (transport: NodeTransport, signal: AbortSignal) => Promise<string[]>;
}

export class TransportNodeHost implements RestartNodeHost {
  readonly node: string;
  readonly transport;
  private readonly readTimeoutMs: number;

  readonly findings?: (signal: AbortSignal) => Promise<string[]>;

  constructor(
    private readonly t: NodeTransport,
    private readonly options: TransportNodeHostOptions = {},
  ) {
    this.node = t.node;
    this.transport = t.kind;
    this.readTimeoutMs = options.readTimeoutMs ?? RESTART_READ_TIMEOUT_MS;
    const diagnose = options.findings;
    if (diagnose) this.findings = (signal) => diagnose(t, signal);
  }

  private async run(scriptId: ScriptId, args: Record<string, unknown>, signal: AbortSignal, commandMs = this.readTimeoutMs): Promise<RunResult> {
    const result = await runScript(this.t, scriptId, args, {
      signal,
      // Restart-Service prints nothing until the service is back: the idle limit must not end it earlier.
      timeouts: { commandMs, idleMs: commandMs },
      ...(this.options.scriptDirs ? { scriptDirs: this.options.scriptDirs } : {}),
    });
    if (result.exitCode !== 0) {
      throw new WindeckError('REMOTE_FAILED', `The ${scriptId} script failed on ${this.node}: ${scriptError(result)}`, {
        node: this.node,
        transport: result.transport,
        step: scriptId,
      });
    }
    return result;
  }

  async services(names: readonly string[], signal: AbortSignal): Promise<HostService[]> {
    if (names.length === 0) return [];
    const listed = asList(scriptJson(await this.run('services', { names: [...names] }, signal), 'services', this.node));
    if (listed.length === 0) return [];
    const found = listed.map((r) => str(r.Name)).filter((n): n is string => n !== null);
    const config = asList(scriptJson(await this.run('service-config', { names: found }, signal), 'service-config', this.node));
    return listed.flatMap((row) => {
      const name = str(row.Name);
      if (!name) return [];
      const cfg = config.find((c) => str(c.Name)?.toLowerCase() === name.toLowerCase());
      const nssm = cfg && typeof cfg.Nssm === 'object' && cfg.Nssm !== null ? (cfg.Nssm as Json) : null;
      const pid = int(cfg?.ProcessId);
      return [
        {
          name,
          displayName: str(row.DisplayName),
          status: normalizeServiceStatus(row.Status) ?? 'Unknown',
          startType: normalizeStartType(row.StartType) ?? (cfg ? normalizeStartType(cfg.StartMode) : null),
          dependsOn: cfg ? strings(cfg.DependOnService) : [],
          pathName: cfg ? str(cfg.PathName) : null,
          nssm: nssm
            ? { application: str(nssm.Application) ?? '', appParameters: str(nssm.AppParameters) ?? '', appEnvironmentExtra: strings(nssm.AppEnvironmentExtra) }
            : null,
          pid: pid && pid > 0 ? pid : null,
        },
      ];
    });
  }

  async processes(names: readonly string[], signal: AbortSignal): Promise<HostProcess[]> {
    const rows = asList(scriptJson(await this.run('processes', { names: [...names] }, signal), 'processes', this.node));
    return rows.flatMap((r) => {
      const pid = int(r.ProcessId);
      const name = str(r.Name);
      return pid !== null && name ? [{ pid, parentPid: int(r.ParentProcessId), name, commandLine: str(r.CommandLine) }] : [];
    });
  }

  async hnsNetworks(signal: AbortSignal): Promise<HostNetwork[]> {
    const rows = asList(scriptJson(await this.run('hns-networks', {}, signal), 'hns-networks', this.node));
    return rows.flatMap((r) => {
      const name = str(r.Name);
      return name ? [{ name, type: str(r.Type), managementIp: str(r.ManagementIP) }] : [];
    });
  }

  async loadBalancerCount(signal: AbortSignal): Promise<number> {
    const rows = asList(scriptJson(await this.run('hns-policies', {}, signal), 'hns-policies', this.node));
    return rows.filter((r) => asList(r.Policies).some((p) => str(p.Type)?.toUpperCase() === 'ELB')).length;
  }

  async files(paths: readonly string[], signal: AbortSignal): Promise<HostFile[]> {
    if (paths.length === 0) return [];
    const rows = asList(scriptJson(await this.run('files', { paths: [...paths], maxBytes: 256 * 1024 }, signal), 'files', this.node));
    return paths.map((p) => {
      const row = rows.find((r) => str(r.Path)?.toLowerCase() === p.toLowerCase());
      if (!row || row.Exists !== true) return { path: p, exists: false, text: null };
      const b64 = str(row.ContentBase64) ?? '';
      return { path: p, exists: true, text: decodeFileBytes(Buffer.from(b64, 'base64')) };
    });
  }

  async restartService(name: string, timeoutSeconds: number, signal: AbortSignal): Promise<ServiceRestartReport> {
    // The script waits up to timeoutSeconds for Running, then starts dependents: give the transport some slack.
    const result = await this.run('restart-service', { name, timeoutSeconds }, signal, timeoutSeconds * 1000 + 30_000);
    const row = asList(scriptJson(result, 'restart-service', this.node))[0];
    if (!row)
      throw new WindeckError('PARSE_FAILED', `The restart-service script on ${this.node} printed no result.`, {
        node: this.node,
        transport: result.transport,
        step: 'restart-service',
      });
    const before = row.Before as Json | undefined;
    const after = row.After as Json | undefined;
    return {
      name: str(row.Name) ?? name,
      succeeded: row.Succeeded === true,
      error: str(row.Error),
      statusBefore: normalizeServiceStatus(before?.Status),
      statusAfter: normalizeServiceStatus(after?.Status),
      dependents: asList(row.DependentsAfter).map((d) => ({ name: str(d.Name) ?? '?', status: normalizeServiceStatus(d.Status) })),
      durationMs: int(row.DurationMs),
    };
  }

  async scriptVersion(id: 'restart-service' | 'hns-networks'): Promise<number> {
    return (await loadScript(id, this.options.scriptDirs)).version;
  }

  async close(): Promise<void> {
    if (this.options.onClose) await this.options.onClose();
    else await this.t.close();
  }
}
