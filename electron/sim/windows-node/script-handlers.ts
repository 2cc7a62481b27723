import type { SimFaults } from './faults';
import { SERVICE_STATUS_NUMBER, START_MODE_WMI, START_TYPE_NUMBER, type ServiceView, type WindowsNodeModel } from './node-model';
import { inputObjectJson, pipelineJson, PsDate } from './ps-json';

/**
 * What each shipped Windeck script prints on a Windows node, computed from the node model. Each handler mirrors
 * its script in electron/services/powershell/scripts/<id>.ps1 (same properties, same order, same pipeline
 * shape); when a script changes, teach the change here (STYLE.md section 7).
 */

export interface ScriptContext {
  model: WindowsNodeModel;
  args: Record<string, unknown>;
  signal: AbortSignal;
  faults: SimFaults;
}

export interface ScriptOutput {
  stdout: string | Buffer;
  stderr?: string;
  exitCode: number;
}

export type ScriptHandler = (ctx: ScriptContext) => Promise<ScriptOutput>;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function ok(stdout: string | Buffer): ScriptOutput {
  return { stdout, exitCode: 0 };
}

function fail(message: string): ScriptOutput {
  return { stdout: '', stderr: `windeck-script-error: ${message}\r\n`, exitCode: 1 };
}

function serviceRow(s: ServiceView) {
  return { Name: s.name, DisplayName: s.displayName, Status: SERVICE_STATUS_NUMBER[s.status], StartType: START_TYPE_NUMBER[s.startType] };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Pad `bytes` to the huge-output fault size with repeated lines (as a runaway log would). */
function padHuge(bytes: Buffer, faults: SimFaults): Buffer {
  const target = faults.hugeOutputBytes ?? 0;
  if (target <= bytes.length) return bytes;
  const line = Buffer.from('I0101 00:00:00.000000    4242 simulated.go:1] filler line of a runaway log, repeated to make the output huge\r\n');
  const count = Math.ceil((target - bytes.length) / line.length);
  return Buffer.concat([Buffer.alloc(line.length * count, line), bytes]);
}

const services: ScriptHandler = async ({ model, args }) => {
  const rows = strings(args.names).flatMap((n) => model.servicesMatching(n)).map(serviceRow);
  return ok(pipelineJson(rows));
};

const serviceConfig: ScriptHandler = async ({ model, args }) => {
  const rows = strings(args.names).flatMap((n) => {
    const s = model.service(n);
    if (!s) return [];
    return [
      {
        Name: s.name,
        DisplayName: s.displayName,
        State: s.status === 'StartPending' ? 'Start Pending' : s.status === 'StopPending' ? 'Stop Pending' : s.status,
        StartMode: START_MODE_WMI[s.startType],
        PathName: s.pathName,
        StartName: s.startName,
        ProcessId: s.pid,
        DependOnService: s.dependsOn,
        Nssm: s.nssm
          ? { Application: s.nssm.application, AppParameters: s.nssm.appParameters, AppDirectory: s.nssm.appDirectory ?? '', AppEnvironmentExtra: s.nssm.appEnvironmentExtra ?? [] }
          : null,
      },
    ];
  });
  return ok(inputObjectJson(rows));
};

const processes: ScriptHandler = async ({ model, args }) => {
  const wanted = new Set(strings(args.names).map((n) => n.toLowerCase().replace(/\.exe$/, '')));
  const rows = model
    .processes()
    .filter((p) => wanted.size === 0 || wanted.has(p.name.toLowerCase().replace(/\.exe$/, '')))
    .map((p) => ({ ProcessId: p.pid, ParentProcessId: p.parentPid, Name: p.name, CommandLine: p.commandLine, CreationDate: new PsDate(p.startedAt) }));
  return ok(inputObjectJson(rows));
};

const hnsNetworks: ScriptHandler = async ({ model }) => ok(inputObjectJson(model.hnsNetworks()));
const hnsEndpoints: ScriptHandler = async ({ model }) => ok(inputObjectJson(model.hnsEndpoints()));
const hnsPolicies: ScriptHandler = async ({ model }) => ok(inputObjectJson(model.hnsPolicyLists()));

const netAdapters: ScriptHandler = async ({ model }) => {
  const adapters = model.adapters();
  return ok(
    inputObjectJson({
      Adapters: adapters.map((a) => ({
        Name: a.name,
        InterfaceDescription: a.interfaceDescription,
        ifIndex: a.ifIndex,
        Status: a.status,
        MacAddress: a.macAddress,
        LinkSpeed: a.linkSpeed,
        MtuSize: a.mtu,
      })),
      IPAddresses: adapters.flatMap((a) => a.ipAddresses.map((ip) => ({ InterfaceAlias: a.name, InterfaceIndex: a.ifIndex, IPAddress: ip.ip, PrefixLength: ip.prefixLength }))),
    }),
  );
};

const dns: ScriptHandler = async ({ model, args, signal }) => {
  const results = [];
  for (const name of strings(args.names)) {
    const answer = model.resolveDns(name);
    if (answer.kind === 'timeout') await sleep(Math.min(num(args.timeoutMs, 2000), 2000), signal);
    results.push(
      answer.kind === 'answer'
        ? {
            Query: name,
            Succeeded: true,
            Answers: answer.addresses.map((ip) => ({ Name: answer.name, Type: 1, TTL: 30, Section: 1, IPAddress: ip })),
            Error: null,
          }
        : {
            Query: name,
            Succeeded: false,
            Answers: [],
            Error: answer.kind === 'nxdomain' ? `${name} : DNS name does not exist` : `${name} : This operation returned because the timeout period expired`,
          },
    );
  }
  return ok(inputObjectJson({ SuffixSearchList: model.dnsSuffixSearchList, Results: results }));
};

const os: ScriptHandler = async ({ model }) => {
  const o = model.os;
  return ok(
    inputObjectJson({
      Caption: o.caption,
      Version: o.version,
      BuildNumber: o.buildNumber,
      OSArchitecture: o.osArchitecture,
      CSName: model.hostname.toUpperCase(),
      UBR: o.ubr,
      DisplayVersion: o.displayVersion ?? null,
      InstallDate: o.installDate ? new PsDate(Date.parse(o.installDate)) : null,
      LastBootUpTime: new PsDate(o.lastBootUpTime ? Date.parse(o.lastBootUpTime) : model.startedAt),
      HotFixes: o.hotfixes.map((h) => ({ HotFixID: h.id, Description: h.description, InstalledOn: new PsDate(Date.parse(h.installedOn)) })),
    }),
  );
};

function fileRow(model: WindowsNodeModel, path: string, maxBytes: number, faults: SimFaults) {
  const f = model.file(path);
  if (!f) return { Path: path, Exists: false, Length: 0, LastWriteTime: null, Offset: 0, ContentBase64: null };
  let bytes = padHuge(f.bytes, faults);
  const length = bytes.length;
  const offset = Math.max(0, length - maxBytes);
  bytes = bytes.subarray(offset);
  return { Path: f.path, Exists: true, Length: length, LastWriteTime: new PsDate(f.lastWriteTime), Offset: offset, ContentBase64: bytes.toString('base64') };
}

const files: ScriptHandler = async ({ model, args, faults }) => {
  const max = num(args.maxBytes, 1024 * 1024);
  return ok(inputObjectJson(strings(args.paths).map((p) => fileRow(model, p, max, faults))));
};

const logs: ScriptHandler = async ({ model, args, faults }) => {
  const max = num(args.maxBytesPerFile, 1024 * 1024);
  const since = num(args.sinceEpochMs, 0);
  const sources = Array.isArray(args.sources) ? (args.sources as Array<Record<string, unknown>>) : [];
  const rows = [];
  for (const src of sources) {
    const dir = typeof src.dir === 'string' ? src.dir : '';
    const filter = typeof src.filter === 'string' ? src.filter : '*';
    for (const p of model.listDir(dir, filter)) {
      const row = fileRow(model, p, max, faults);
      const mtime = model.file(p)?.lastWriteTime ?? 0;
      if (mtime >= since) rows.push(row);
    }
  }
  return ok(inputObjectJson(rows));
};

const runtime: ScriptHandler = async ({ model }) => {
  const r = model.runtime;
  return ok(
    inputObjectJson({
      Containerd: r.containerd
        ? { Path: r.containerd.path, VersionOutput: `containerd github.com/containerd/containerd ${r.containerd.version} ${r.containerd.revision}`, ConfigPath: r.containerd.configPath }
        : null,
      Docker: r.docker ? { Version: r.docker.version, ApiVersion: r.docker.apiVersion } : null,
      SandboxImage: r.sandboxImage,
      Images: r.images.map((i) => ({ Ref: i.ref, Id: i.id, SizeBytes: i.sizeBytes, OsVersion: i.osVersion })),
    }),
  );
};

/** Mirrors restart-service.ps1: note running dependents, Restart-Service -Force, wait, start the dependents again. */
const restartService: ScriptHandler = async ({ model, args, signal }) => {
  const name = typeof args.name === 'string' ? args.name : '';
  const timeoutMs = num(args.timeoutSeconds, 60) * 1000;
  const before = model.service(name);
  if (!before) return fail(`Cannot find any service with service name '${name}'.`);
  const started = model.time();
  // ServiceController.DependentServices (EnumDependentServices) lists indirect dependents too, outermost first.
  const all: string[] = [];
  const walk = (n: string) => {
    for (const d of model.service(n)?.dependents ?? []) {
      walk(d);
      if (!all.includes(d)) all.push(d);
    }
  };
  walk(name);
  const dependents = all.filter((d) => model.service(d)?.status === 'Running');
  let error: string | null = null;
  try {
    model.restartService(name);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = model.service(name);
      if (!s || s.status === 'Running' || s.status === 'Stopped') break;
      if (Date.now() >= deadline) {
        error = `Time-out waiting for service '${name}' to reach Running.`;
        break;
      }
      await sleep(Math.min(250, Math.max(1, model.pendingMs(name))), signal);
      if (signal.aborted) return { stdout: '', exitCode: 130 };
    }
    const now = model.service(name);
    if (now && now.status === 'Stopped') {
      error = `Service '${now.displayName} (${now.name})' cannot be started due to the following error: ${now.lastError ?? 'Cannot start service ' + name + " on computer '.'."}`;
    }
    if (!error) {
      for (const d of dependents) model.startService(d);
    }
  } catch (e) {
    error = (e as Error).message;
  }
  const after = model.service(name)!;
  return ok(
    inputObjectJson({
      Name: before.name,
      Before: { Status: SERVICE_STATUS_NUMBER[before.status], StartType: START_TYPE_NUMBER[before.startType] },
      After: { Status: SERVICE_STATUS_NUMBER[after.status], StartType: START_TYPE_NUMBER[after.startType] },
      Dependents: dependents,
      DependentsAfter: dependents.map((d) => ({ Name: d, Status: SERVICE_STATUS_NUMBER[model.service(d)!.status] })),
      Succeeded: error === null,
      Error: error,
      DurationMs: model.time() - started,
    }),
  );
};

export const SCRIPT_HANDLERS: Record<string, ScriptHandler> = {
  services,
  'service-config': serviceConfig,
  processes,
  'hns-networks': hnsNetworks,
  'hns-endpoints': hnsEndpoints,
  'hns-policies': hnsPolicies,
  'net-adapters': netAdapters,
  dns,
  os,
  files,
  runtime,
  logs,
  'restart-service': restartService,
};
