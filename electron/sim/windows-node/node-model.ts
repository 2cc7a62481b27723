/**
 * State model of one simulated Windows node (DESIGN.md section 9). Plain data in (a `NodeSpec`, usually built
 * from a scenario file), queries and mutations out. Time is read from an injected clock so that service
 * transitions (StartPending -> Running after `startDelayMs`) and growing logs are deterministic in tests.
 *
 * Stable API (other simulator parts and the WinRM endpoint build on it):
 * - `new WindowsNodeModel(spec, { now })`
 * - `services()`, `service(name)`, `startService(name)`, `stopService(name)`, `restartService(name)`
 * - `processes()`, `hnsNetworks()`, `hnsEndpoints()`, `hnsPolicyLists()`, `adapters()`, `resolveDns(name)`
 * - `file(path)`, `listDir(dir, filter)`, `logBytes(path)`, `os`, `runtime`, `hostname`
 *
 * It must not import the product's parsers or rules: it holds what Windows holds, not what Windeck expects.
 */

import { RestartBehaviour } from './restart-behaviour';

export const SERVICE_STATUSES = ['Stopped', 'StartPending', 'StopPending', 'Running', 'ContinuePending', 'PausePending', 'Paused'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];
/** System.ServiceProcess.ServiceControllerStatus values, as Windows PowerShell 5.1 prints them in JSON. */
export const SERVICE_STATUS_NUMBER: Record<ServiceStatus, number> = {
  Stopped: 1,
  StartPending: 2,
  StopPending: 3,
  Running: 4,
  ContinuePending: 5,
  PausePending: 6,
  Paused: 7,
};

export const START_TYPES = ['Boot', 'System', 'Automatic', 'Manual', 'Disabled'] as const;
export type StartType = (typeof START_TYPES)[number];
/** System.ServiceProcess.ServiceStartMode values. */
export const START_TYPE_NUMBER: Record<StartType, number> = { Boot: 0, System: 1, Automatic: 2, Manual: 3, Disabled: 4 };
/** Win32_Service.StartMode strings (CIM uses "Auto", not "Automatic"). */
export const START_MODE_WMI: Record<StartType, string> = { Boot: 'Boot', System: 'System', Automatic: 'Auto', Manual: 'Manual', Disabled: 'Disabled' };

export interface NssmSpec {
  application: string;
  appParameters: string;
  appDirectory?: string;
  /** `AppEnvironmentExtra` (REG_MULTI_SZ), e.g. `NODE_NAME=win-1` for flanneld. */
  appEnvironmentExtra?: string[];
}

export interface ServiceSpec {
  name: string;
  displayName: string;
  status: ServiceStatus;
  startType: StartType;
  /** Services this one depends on (`DependOnService`). */
  dependsOn?: string[];
  /** Win32_Service.PathName (for nssm services: the nssm.exe path). */
  pathName: string;
  startName?: string;
  nssm?: NssmSpec;
  /** The process while the service runs. */
  process?: { name: string; commandLine: string };
  startDelayMs?: number;
  stopDelayMs?: number;
  /** When set, every start attempt fails with this Win32 message and the service ends Stopped. */
  failStart?: string;
}

export interface ProcessSpec {
  name: string;
  commandLine: string;
  pid?: number;
  parentPid?: number;
}

/** A file's bytes: `content` text (with `encoding`) or raw `base64`. */
export interface FileSpec {
  path: string;
  content?: string;
  base64?: string;
  encoding?: 'utf8' | 'utf8-bom' | 'utf16le';
  /** ISO time; default: the model's start. */
  lastWriteTime?: string;
}

export interface LogSpec {
  path: string;
  lines: string[];
  /** Lines appended as time passes, cycling through `lines` (each gets `{{ts}}`/`{{iso}}` filled in). */
  grow?: { everyMs: number; lines: string[] };
}

export interface DnsSpec {
  suffixSearchList: string[];
  /** FQDN (lower case, no trailing dot) -> IPv4 addresses. */
  records: Record<string, string[]>;
  /** Names whose queries time out instead of answering. */
  timeouts?: string[];
}

export interface OsSpec {
  caption: string;
  version: string;
  buildNumber: string;
  ubr: number;
  osArchitecture: string;
  displayVersion?: string;
  installDate?: string;
  lastBootUpTime?: string;
  hotfixes: Array<{ id: string; description: string; installedOn: string }>;
}

export interface ImageSpec {
  ref: string;
  id: string;
  sizeBytes: number;
  /** os.version of the image, e.g. 10.0.17763.5936. */
  osVersion: string;
}

export interface RuntimeSpec {
  containerd?: { path: string; version: string; revision: string; configPath: string };
  docker?: { version: string; apiVersion: string };
  sandboxImage: string;
  images: ImageSpec[];
}

export interface AdapterSpec {
  name: string;
  interfaceDescription: string;
  ifIndex: number;
  status: 'Up' | 'Down' | 'Disconnected' | 'Not Present';
  macAddress: string;
  linkSpeed: string;
  mtu: number;
  ipAddresses: Array<{ ip: string; prefixLength: number }>;
}

/** HNS objects are kept as the HNS JSON that `Get-HnsNetwork` returns (PascalCase keys). */
export type HnsObject = Record<string, unknown> & { ID: string; Name?: string };

export interface NodeSpec {
  hostname: string;
  /** Free text naming the layout this node follows (for humans; the product must detect it itself). */
  layout: string;
  os: OsSpec;
  services: ServiceSpec[];
  processes: ProcessSpec[];
  hnsNetworks: HnsObject[];
  hnsEndpoints: HnsObject[];
  hnsPolicyLists: HnsObject[];
  adapters: AdapterSpec[];
  dns: DnsSpec;
  files: FileSpec[];
  logs: LogSpec[];
  runtime: RuntimeSpec;
}

export interface ServiceView {
  name: string;
  displayName: string;
  status: ServiceStatus;
  startType: StartType;
  dependsOn: string[];
  dependents: string[];
  pathName: string;
  startName: string;
  nssm: NssmSpec | null;
  pid: number;
  lastError: string | null;
}

export interface ProcessView {
  pid: number;
  parentPid: number;
  name: string;
  commandLine: string;
  startedAt: number;
}

export type DnsAnswer = { kind: 'answer'; name: string; addresses: string[] } | { kind: 'nxdomain' } | { kind: 'timeout' };

export interface ModelOptions {
  now?: () => number;
}

interface ServiceRuntime {
  spec: ServiceSpec;
  status: ServiceStatus;
  /** Pending transition: at `at` the status becomes `to`. */
  pending: { to: ServiceStatus; at: number } | null;
  pid: number;
  startedAt: number;
  lastError: string | null;
}

interface LogRuntime {
  spec: LogSpec;
  base: Buffer;
  grown: number;
}

const SYSTEM_PROCESSES: ProcessSpec[] = [
  { name: 'System', commandLine: '' },
  { name: 'smss.exe', commandLine: '\\SystemRoot\\System32\\smss.exe' },
  { name: 'csrss.exe', commandLine: '%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768 Windows=On SubSystemType=Windows ServerDll=basesrv,1 ServerDll=winsrv:UserServerDllInitialization,3 ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16' },
  { name: 'wininit.exe', commandLine: 'wininit.exe' },
  { name: 'services.exe', commandLine: 'C:\\Windows\\system32\\services.exe' },
  { name: 'lsass.exe', commandLine: 'C:\\Windows\\system32\\lsass.exe' },
  { name: 'sshd.exe', commandLine: '"C:\\Windows\\System32\\OpenSSH\\sshd.exe"' },
];

function klogTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micros}`;
}

function fillLine(template: string, ms: number): string {
  return template.replaceAll('{{ts}}', klogTimestamp(ms)).replaceAll('{{iso}}', new Date(ms).toISOString());
}

/** Bytes of a file spec as they sit on disk. */
export function fileSpecBytes(spec: FileSpec): Buffer {
  if (spec.base64 !== undefined) return Buffer.from(spec.base64, 'base64');
  const text = spec.content ?? '';
  switch (spec.encoding ?? 'utf8') {
    case 'utf8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    default:
      return Buffer.from(text, 'utf8');
  }
}

function normPath(p: string): string {
  return p.replaceAll('/', '\\').replace(/\\+$/, '').toLowerCase();
}

/** Windows wildcard (`*`, `?`) match, case-insensitive. */
export function wildcardMatch(pattern: string, name: string): boolean {
  const re = new RegExp('^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.') + '$', 'i');
  return re.test(name);
}

export class WindowsNodeModel {
  readonly hostname: string;
  readonly layout: string;
  readonly os: OsSpec;
  readonly runtime: RuntimeSpec;
  readonly startedAt: number;
  private readonly now: () => number;
  private readonly serviceRuntimes = new Map<string, ServiceRuntime>();
  private readonly extraProcesses: ProcessView[];
  private networks: HnsObject[];
  private endpoints: HnsObject[];
  private policyLists: HnsObject[];
  private readonly adapterList: AdapterSpec[];
  private readonly dnsSpec: DnsSpec;
  private readonly fileMap = new Map<string, { spec: FileSpec; bytes: Buffer; mtime: number }>();
  private readonly logMap = new Map<string, LogRuntime>();
  private nextPid = 1200;
  /** What restarts do to HNS and to the services (restart-behaviour.ts). */
  private restart: RestartBehaviour | null = null;

  constructor(spec: NodeSpec, options: ModelOptions = {}) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.hostname = spec.hostname;
    this.layout = spec.layout;
    this.os = structuredClone(spec.os);
    this.runtime = structuredClone(spec.runtime);
    for (const s of spec.services) {
      this.serviceRuntimes.set(s.name.toLowerCase(), {
        spec: structuredClone(s),
        status: s.status,
        pending: null,
        pid: s.status === 'Running' || s.status === 'StopPending' ? this.allocPid() : 0,
        startedAt: this.startedAt,
        lastError: null,
      });
    }
    this.extraProcesses = [...SYSTEM_PROCESSES, ...spec.processes].map((p) => ({
      pid: p.pid ?? this.allocPid(),
      parentPid: p.parentPid ?? 4,
      name: p.name,
      commandLine: p.commandLine,
      startedAt: this.startedAt,
    }));
    this.networks = structuredClone(spec.hnsNetworks);
    this.endpoints = structuredClone(spec.hnsEndpoints);
    this.policyLists = structuredClone(spec.hnsPolicyLists);
    this.adapterList = structuredClone(spec.adapters);
    this.dnsSpec = structuredClone(spec.dns);
    for (const f of spec.files) {
      const mtime = f.lastWriteTime ? Date.parse(f.lastWriteTime) : this.startedAt;
      this.fileMap.set(normPath(f.path), { spec: structuredClone(f), bytes: fileSpecBytes(f), mtime });
    }
    for (const l of spec.logs) {
      const base = Buffer.from(l.lines.map((line) => fillLine(line, this.startedAt) + '\r\n').join(''), 'utf8');
      this.logMap.set(normPath(l.path), { spec: structuredClone(l), base, grown: 0 });
    }
    this.restart = new RestartBehaviour(spec, {
      now: () => this.now(),
      networks: () => this.networks,
      setNetworks: (list) => void (this.networks = list),
      setEndpoints: (list) => void (this.endpoints = list),
      policyLists: () => this.policyLists,
      setPolicyLists: (list) => void (this.policyLists = list),
      appendLog: (path, lines) => this.appendLog(path, lines),
      settleServices: () => this.serviceRuntimes.forEach((rt) => this.settle(rt)),
    });
  }

  private allocPid(): number {
    this.nextPid += 4 + Math.floor(this.nextPid % 7) * 4;
    return this.nextPid;
  }

  /** Apply transitions that are due. */
  private settle(rt: ServiceRuntime): void {
    const t = this.now();
    while (rt.pending && rt.pending.at <= t) {
      const to = rt.pending.to;
      rt.pending = null;
      if (to === 'Running') {
        if (rt.spec.failStart) {
          rt.status = 'Stopped';
          rt.pid = 0;
          rt.lastError = rt.spec.failStart;
        } else {
          rt.status = 'Running';
          rt.pid = this.allocPid();
          rt.startedAt = t;
          rt.lastError = null;
          rt.pending = this.restart?.onRunning(rt.spec.name, t) ?? null;
        }
      } else if (to === 'Stopped') {
        rt.status = 'Stopped';
        rt.pid = 0;
      } else {
        rt.status = to;
      }
    }
  }

  private runtimeOf(name: string): ServiceRuntime | undefined {
    const rt = this.serviceRuntimes.get(name.toLowerCase());
    if (rt) this.settle(rt);
    return rt;
  }

  private view(rt: ServiceRuntime): ServiceView {
    const dependents = [...this.serviceRuntimes.values()]
      .filter((o) => (o.spec.dependsOn ?? []).some((d) => d.toLowerCase() === rt.spec.name.toLowerCase()))
      .map((o) => o.spec.name);
    return {
      name: rt.spec.name,
      displayName: rt.spec.displayName,
      status: rt.status,
      startType: rt.spec.startType,
      dependsOn: [...(rt.spec.dependsOn ?? [])],
      dependents,
      pathName: rt.spec.pathName,
      startName: rt.spec.startName ?? 'LocalSystem',
      nssm: rt.spec.nssm ? structuredClone(rt.spec.nssm) : null,
      pid: rt.pid,
      lastError: rt.lastError,
    };
  }

  /** All services, in registry (alphabetical) order as `Get-Service` lists them. */
  services(): ServiceView[] {
    return [...this.serviceRuntimes.values()]
      .map((rt) => {
        this.settle(rt);
        return this.view(rt);
      })
      .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  }

  service(name: string): ServiceView | null {
    const rt = this.runtimeOf(name);
    return rt ? this.view(rt) : null;
  }

  /** Services whose name matches a `Get-Service -Name` pattern (wildcards allowed). */
  servicesMatching(pattern: string): ServiceView[] {
    return this.services().filter((s) => wildcardMatch(pattern, s.name) || wildcardMatch(pattern, s.displayName));
  }

  /**
   * Begin starting a service (as `Start-Service` does before it waits). Throws a Windows-like message when it
   * cannot even be asked to start.
   */
  startService(name: string): void {
    const rt = this.mustService(name);
    if (rt.spec.startType === 'Disabled') {
      throw new Error(`Service '${rt.spec.displayName} (${rt.spec.name})' cannot be started due to the following error: Cannot start service ${rt.spec.name} on computer '.'.`);
    }
    for (const dep of rt.spec.dependsOn ?? []) {
      const d = this.runtimeOf(dep);
      if (d && d.status !== 'Running' && d.status !== 'StartPending') this.startService(dep);
    }
    if (rt.status === 'Running' || rt.status === 'StartPending') return;
    rt.status = 'StartPending';
    rt.pending = { to: 'Running', at: this.now() + (rt.spec.startDelayMs ?? 0) };
    this.settle(rt);
  }

  /** Begin stopping a service and (like `-Force`) its running dependents. */
  stopService(name: string): string[] {
    const rt = this.mustService(name);
    const stopped: string[] = [];
    for (const s of this.services()) {
      if (s.dependsOn.some((d) => d.toLowerCase() === rt.spec.name.toLowerCase()) && (s.status === 'Running' || s.status === 'StartPending')) {
        stopped.push(...this.stopService(s.name));
      }
    }
    if (rt.status !== 'Stopped' && rt.status !== 'StopPending') {
      this.restart?.onStop(rt.spec.name);
      rt.status = 'StopPending';
      rt.pending = { to: 'Stopped', at: this.now() + (rt.spec.stopDelayMs ?? 0) };
      this.settle(rt);
      stopped.push(rt.spec.name);
    }
    return stopped;
  }

  /** Stop then start (the caller polls `service(name)` until the transition completes). */
  restartService(name: string): void {
    const rt = this.mustService(name);
    this.stopService(name);
    const stopAt = rt.pending?.at ?? this.now();
    rt.pending = null;
    rt.status = 'StartPending';
    rt.pid = 0;
    rt.pending = { to: 'Running', at: Math.max(stopAt, this.now()) + (rt.spec.startDelayMs ?? 0) };
    this.settle(rt);
  }

  /** Milliseconds until `name` leaves its pending state (0 when settled). */
  pendingMs(name: string): number {
    const rt = this.mustService(name);
    return rt.pending ? Math.max(0, rt.pending.at - this.now()) : 0;
  }

  private mustService(name: string): ServiceRuntime {
    const rt = this.runtimeOf(name);
    if (!rt) throw new Error(`Cannot find any service with service name '${name}'.`);
    return rt;
  }

  /** Running processes: system ones, each running service's process, and the scenario's extra processes. */
  processes(): ProcessView[] {
    const out: ProcessView[] = [...this.extraProcesses];
    for (const rt of this.serviceRuntimes.values()) {
      this.settle(rt);
      if (rt.pid > 0 && rt.spec.process) {
        out.push({ pid: rt.pid, parentPid: 700, name: rt.spec.process.name, commandLine: rt.spec.process.commandLine, startedAt: rt.startedAt });
      }
    }
    return out.sort((a, b) => a.pid - b.pid);
  }

  hnsNetworks(): HnsObject[] {
    this.restart?.tick();
    return structuredClone(this.networks);
  }

  hnsEndpoints(): HnsObject[] {
    this.restart?.tick();
    return structuredClone(this.endpoints);
  }

  hnsPolicyLists(): HnsObject[] {
    this.restart?.tick();
    return structuredClone(this.policyLists);
  }

  removeHnsNetwork(name: string): boolean {
    const before = this.networks.length;
    this.networks = this.networks.filter((n) => String(n.Name ?? '').toLowerCase() !== name.toLowerCase());
    return this.networks.length !== before;
  }

  adapters(): AdapterSpec[] {
    return structuredClone(this.adapterList);
  }

  get dnsSuffixSearchList(): string[] {
    return [...this.dnsSpec.suffixSearchList];
  }

  /**
   * Resolve like the Windows DNS client: a name without a dot is tried with each suffix of the search list;
   * a name with a dot is treated as fully qualified (so `kubernetes.default` fails where `kubernetes` works).
   */
  resolveDns(name: string): DnsAnswer {
    const q = name.toLowerCase().replace(/\.$/, '');
    const timeouts = new Set((this.dnsSpec.timeouts ?? []).map((t) => t.toLowerCase()));
    const candidates = q.includes('.') ? [q] : this.dnsSpec.suffixSearchList.map((s) => `${q}.${s.toLowerCase()}`);
    for (const c of candidates) {
      if (timeouts.has(c) || timeouts.has(q)) return { kind: 'timeout' };
      const hit = this.dnsSpec.records[c];
      if (hit) return { kind: 'answer', name: c, addresses: [...hit] };
    }
    return { kind: 'nxdomain' };
  }

  /** A file by absolute Windows path (case-insensitive), or a log (current bytes), or null. */
  file(filePath: string): { path: string; bytes: Buffer; lastWriteTime: number } | null {
    const key = normPath(filePath);
    const f = this.fileMap.get(key);
    if (f) return { path: f.spec.path, bytes: f.bytes, lastWriteTime: f.mtime };
    const l = this.logMap.get(key);
    if (l) {
      const { bytes, mtime } = this.logState(l);
      return { path: l.spec.path, bytes, lastWriteTime: mtime };
    }
    return null;
  }

  /** Files directly in `dir` whose name matches `filter` (`*.log`). */
  listDir(dir: string, filter = '*'): string[] {
    const d = normPath(dir);
    const paths = [...this.fileMap.values()].map((f) => f.spec.path).concat([...this.logMap.values()].map((l) => l.spec.path));
    return paths
      .filter((p) => {
        const n = normPath(p);
        const cut = n.lastIndexOf('\\');
        return n.slice(0, cut) === d && wildcardMatch(filter, n.slice(cut + 1));
      })
      .sort();
  }

  /** Whether a directory exists (some file lies under it). */
  dirExists(dir: string): boolean {
    const d = normPath(dir) + '\\';
    return [...this.fileMap.keys(), ...this.logMap.keys()].some((k) => k.startsWith(d));
  }

  writeFile(filePath: string, content: string): void {
    const spec: FileSpec = { path: filePath, content };
    this.fileMap.set(normPath(filePath), { spec, bytes: fileSpecBytes(spec), mtime: this.now() });
  }

  deleteFile(filePath: string): boolean {
    return this.fileMap.delete(normPath(filePath));
  }

  /** Append lines to a log now (restarts write to their component's log). */
  appendLog(filePath: string, lines: string[]): void {
    const key = normPath(filePath);
    let l = this.logMap.get(key);
    if (!l) {
      l = { spec: { path: filePath, lines: [] }, base: Buffer.alloc(0), grown: 0 };
      this.logMap.set(key, l);
    }
    const t = this.now();
    l.base = Buffer.concat([this.logState(l).bytes, Buffer.from(lines.map((x) => fillLine(x, t) + '\r\n').join(''), 'utf8')]);
    l.grown = this.growCount(l);
    l.spec.grow = l.spec.grow ? { ...l.spec.grow } : undefined;
  }

  private growCount(l: LogRuntime): number {
    if (!l.spec.grow || l.spec.grow.everyMs <= 0 || l.spec.grow.lines.length === 0) return 0;
    return Math.floor((this.now() - this.startedAt) / l.spec.grow.everyMs);
  }

  private logState(l: LogRuntime): { bytes: Buffer; mtime: number } {
    const count = this.growCount(l);
    if (!l.spec.grow || count <= l.grown) return { bytes: l.base, mtime: this.startedAt + l.grown * (l.spec.grow?.everyMs ?? 0) };
    const extra: string[] = [];
    for (let i = l.grown; i < count; i += 1) {
      const at = this.startedAt + (i + 1) * l.spec.grow.everyMs;
      extra.push(fillLine(l.spec.grow.lines[i % l.spec.grow.lines.length] ?? '', at) + '\r\n');
    }
    l.base = Buffer.concat([l.base, Buffer.from(extra.join(''), 'utf8')]);
    l.grown = count;
    return { bytes: l.base, mtime: this.startedAt + count * l.spec.grow.everyMs };
  }

  /** Current time of the model's clock (epoch ms). */
  time(): number {
    return this.now();
  }
}
