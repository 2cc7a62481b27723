import type { TransportKind } from '../../../shared/contract/errors';

/** Per-stage timeouts of one remote run; each expiry raises TIMEOUT naming the stage. */
export interface RunTimeouts {
  connectMs: number;
  channelMs: number;
  commandMs: number;
  /** No output for this long ends the run. */
  idleMs: number;
}

/**
 * One PowerShell script run on a node. `script` is the fixed, shipped script text (first line
 * `# windeck-script: <id> v<N>`); `args` travel as data (validated before, encoded by the invoker), never
 * spliced into the script.
 */
export interface RunRequest {
  scriptId: string;
  script: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  timeouts?: Partial<RunTimeouts>;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

export interface RunResult {
  transport: TransportKind;
  stdout: string;
  stderr: string;
  exitCode: number;
  startedAt: number;
  durationMs: number;
}

/** A session to one Windows node (SSH, WinRM, later HostProcess). Implementations honour `signal` for real. */
export interface NodeTransport {
  readonly kind: TransportKind;
  readonly node: string;
  run(request: RunRequest): Promise<RunResult>;
  close(): Promise<void>;
}
