import { WindeckError } from '../../../shared/contract/errors';
import type { Finding } from '../../../shared/domain/finding';
import type { NodeModel } from '../../../shared/domain/node';
import { parseWindowsVersion } from '../../../shared/domain/windows-builds';
import { redactText } from '../../../shared/logic/redact';
import type { LogExcerpt, NodeReportFacts, ReportFacts } from '../../../shared/report/report-facts';
import type { ServiceCore } from '../create-services';
import { diagnoseProbeRun } from '../diagnose/diagnose-node';
import { kubeInventory } from '../kube/inventory';
import type { ProbeOutcome } from '../probes/runner';
import { normalizeDns, normalizeFiles, normalizeHns, normalizeNetAdapters, normalizeOs, normalizeProcesses, normalizeRuntime, normalizeServiceConfig, normalizeServices } from '../probes/normalize';
import { resolveCluster } from '../rpc/handlers/nodes';
import { ProbeResultsRepo } from '../store/repos/probe-results';

/**
 * The facts a SIG-Windows bug report is made from (shared/report/report-facts.ts), gathered from what Windeck
 * holds: the stored node model and its latest probe results (`gatherReportFacts`), or what a collection just
 * fetched (`buildReportFacts`, used by bundles). Kubernetes version from `kubectl version` (or the API), cloud
 * provider from providerID (render.ts), Windows caption/build/UBR/architecture from the `os` probe (CIM), the
 * Linux control plane's OS from its Node objects, runtime and version, CNI and network mode, findings, and short
 * log excerpts, redacted here.
 */

type Json = Record<string, unknown>;

/** What the collection (or the store) has about one node. */
export interface CollectedNode {
  name: string;
  /** The Node object as the API returned it, or null. */
  nodeObject: unknown;
  model: NodeModel | null;
  /** Probe outcomes by id (raw + parsed). */
  probes: Record<string, ProbeOutcome | { ok: boolean; raw: string | null; parsed: unknown }>;
  /** Config files fetched from the node (original path, bundle name, text). */
  files: Array<{ path: string; name: string; text: string }>;
  /** Logs written, with an excerpt of their error lines (unredacted; redacted when the facts are built). */
  logs: Array<{ name: string; excerpt: string | null }>;
}

const ERROR_LINE = /^[EF]\d{4} |\blevel=(?:error|fatal)\b|\b(?:error|failed|failure|fatal|exception)\b/i;

/** The last error-looking lines of a log tail (at most 8), or null when there are none. */
export function excerptsFromLog(bytes: Buffer): string | null {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe;
  const text = utf16 ? bytes.subarray(2).toString('utf16le') : bytes.toString('utf8');
  const tail = text.length > 512 * 1024 ? text.slice(-512 * 1024) : text;
  const lines = tail.split(/\r?\n/).filter((l) => ERROR_LINE.test(l));
  if (lines.length === 0) return null;
  return lines
    .slice(-8)
    .map((l) => (l.length > 400 ? l.slice(0, 400) + ' …' : l))
    .join('\n');
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function nodeBasics(c: CollectedNode): Omit<NodeReportFacts, 'windows' | 'runtimeDetail' | 'cni' | 'layout'> {
  const m = c.model;
  const o = (c.nodeObject ?? {}) as { metadata?: { labels?: Record<string, string> }; spec?: { providerID?: string }; status?: { nodeInfo?: Json; conditions?: Array<{ type?: string; status?: string }> } };
  const info = o.status?.nodeInfo ?? {};
  const labels = m?.labels ?? o.metadata?.labels ?? {};
  const readyCond = o.status?.conditions?.find((x) => x.type === 'Ready');
  return {
    name: c.name,
    os: m?.os ?? (labels['kubernetes.io/os'] === 'windows' ? 'windows' : labels['kubernetes.io/os'] === 'linux' ? 'linux' : str(info.operatingSystem) ?? 'unknown'),
    osImage: m?.osImage ?? str(info.osImage),
    kernelVersion: m?.kernelVersion ?? str(info.kernelVersion),
    kubeletVersion: m?.kubeletVersion ?? str(info.kubeletVersion),
    kubeProxyVersion: m?.kubeProxyVersion ?? str(info.kubeProxyVersion),
    containerRuntime: m?.containerRuntime ?? str(info.containerRuntimeVersion),
    providerID: m?.providerID ?? str(o.spec?.providerID),
    labels: { ...labels },
    ready: m ? m.ready : readyCond ? readyCond.status === 'True' : null,
  };
}

function parsedOf(c: CollectedNode, id: string): unknown {
  const p = c.probes[id];
  return p && p.ok ? p.parsed : null;
}

function windowsFacts(c: CollectedNode, basics: ReturnType<typeof nodeBasics>): NodeReportFacts['windows'] {
  const os = parsedOf(c, 'os') as Json | null;
  if (os && (os.caption || os.buildNumber)) {
    const build = Number(os.buildNumber);
    return {
      caption: str(os.caption),
      version: str(os.version),
      build: Number.isFinite(build) && build > 0 ? build : null,
      ubr: typeof os.ubr === 'number' ? os.ubr : null,
      architecture: str(os.osArchitecture),
      displayVersion: str(os.displayVersion),
      source: 'cim',
    };
  }
  if (basics.os !== 'windows') return null;
  const v = parseWindowsVersion(basics.kernelVersion) ?? parseWindowsVersion(basics.labels['node.kubernetes.io/windows-build']);
  return {
    caption: basics.osImage,
    version: v ? `${v.major}.${v.minor}.${v.build}` : null,
    build: v?.build ?? null,
    ubr: v?.ubr ?? null,
    architecture: basics.labels['kubernetes.io/arch'] ?? c.model?.architecture ?? null,
    displayVersion: null,
    source: 'node',
  };
}

function runtimeDetail(c: CollectedNode): string | null {
  const r = parsedOf(c, 'runtime') as Json | null;
  if (!r) return null;
  const parts: string[] = [];
  const cd = r.containerd as Json | null;
  if (cd) parts.push(str(cd.versionOutput) ?? `containerd ${str(cd.version) ?? 'unknown'}`);
  const d = r.docker as Json | null;
  if (d) parts.push(`Docker ${str(d.version) ?? 'unknown'} (API ${str(d.apiVersion) ?? '?'})`);
  if (str(r.sandboxImage)) parts.push(`pause image ${str(r.sandboxImage)}`);
  return parts.length ? parts.join('; ') : null;
}

function parseJsonLoose(text: string): Json | null {
  try {
    const v = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

function cniFacts(c: CollectedNode): NodeReportFacts['cni'] {
  let name: string | null = null;
  let type: string | null = null;
  let source = '';
  for (const f of c.files) {
    if (!/\.conf(list)?$|cni\.conf$/i.test(f.name)) continue;
    const j = parseJsonLoose(f.text);
    if (!j) continue;
    name = str(j.name) ?? name;
    const plugins = Array.isArray(j.plugins) ? (j.plugins as Json[]) : [];
    type = str(j.type) ?? str(plugins[0]?.type) ?? type;
    source = `CNI config ${f.path}`;
    break;
  }
  let backend: string | null = null;
  for (const f of c.files) {
    if (!/net-conf\.json$/i.test(f.name)) continue;
    const j = parseJsonLoose(f.text);
    const b = j?.Backend as Json | undefined;
    if (b) backend = str(b.Type) ?? str(b.type);
  }
  const hns = parsedOf(c, 'hns-networks');
  const nets = Array.isArray(hns) ? (hns as Json[]) : [];
  const networks = nets.map((n) => str(n.Name) ?? '').filter((n) => n !== '' && !/^nat$/i.test(n));
  const modes = [...new Set(nets.filter((n) => !/^nat$/i.test(str(n.Name) ?? '')).map((n) => str(n.Type) ?? '').filter(Boolean))];
  if (!name && !type && networks.length === 0 && !backend) return null;
  const flannel = /flannel/i.test(name ?? '') || /flannel/i.test(type ?? '') || c.files.some((f) => /subnet\.env|net-conf\.json/i.test(f.name));
  return {
    name: flannel && !/flannel/i.test(name ?? '') ? `flannel${name ? ` (${name})` : ''}` : name,
    type,
    networkMode: [modes.join(', '), backend ? `flannel backend ${backend}` : ''].filter(Boolean).join('; ') || null,
    networks,
    source: [source, networks.length ? 'Get-HnsNetwork' : ''].filter(Boolean).join(' + ') || 'node files',
  };
}

function layoutOf(c: CollectedNode): string | null {
  const services = (parsedOf(c, 'services') as { services?: Array<{ name: string; status: string }> } | null)?.services ?? [];
  const configs = (parsedOf(c, 'service-config') as Array<{ name: string; nssm: unknown; pathName: string }> | null) ?? [];
  if (services.length === 0 && configs.length === 0) return null;
  const parts: string[] = [];
  if (services.length) parts.push(`Windows services ${services.map((s) => `${s.name} (${s.status})`).join(', ')}`);
  const nssm = configs.filter((s) => s.nssm || /nssm/i.test(s.pathName)).map((s) => s.name);
  if (nssm.length) parts.push(`run by nssm: ${nssm.join(', ')}`);
  return parts.join('; ');
}

/** NodeReportFacts from what was collected about one node. */
export function nodeFacts(c: CollectedNode): NodeReportFacts {
  const basics = nodeBasics(c);
  return { ...basics, windows: windowsFacts(c, basics), runtimeDetail: runtimeDetail(c), cni: cniFacts(c), layout: layoutOf(c) };
}

export interface BuildFactsInput {
  now: number;
  toolVersion: string;
  context: string | null;
  simulated: boolean;
  kubernetesVersion: string | null;
  kubectlVersion: string | null;
  nodes: CollectedNode[];
  /** Linux control-plane lines (`name: osImage (kernel)`). */
  controlPlane: string[];
  findings: Finding[];
  origin: string;
}

/** Report facts from collected data; log excerpts and versions are redacted here. */
export function buildReportFacts(input: BuildFactsInput): ReportFacts {
  const excerpts: LogExcerpt[] = [];
  for (const c of input.nodes) {
    for (const l of c.logs) if (l.excerpt) excerpts.push({ node: c.name, source: l.name, text: redactText(l.excerpt, { level: 'standard' }).text });
  }
  return {
    generatedAt: new Date(input.now).toISOString(),
    tool: { name: 'windeck', version: input.toolVersion },
    cluster: {
      context: input.context,
      simulated: input.simulated,
      kubernetesVersion: input.kubernetesVersion,
      kubectlVersion: input.kubectlVersion ? redactText(input.kubectlVersion, { level: 'standard' }).text : null,
      controlPlaneOs: input.controlPlane,
    },
    nodes: input.nodes.map(nodeFacts),
    findings: input.findings,
    excerpts,
    origin: input.origin,
  };
}

/** Control-plane lines for the report: Linux nodes carrying a control-plane/master role label. */
export function controlPlaneLines(models: readonly NodeModel[]): string[] {
  return models
    .filter((m) => m.os === 'linux' && Object.keys(m.labels).some((k) => k === 'node-role.kubernetes.io/control-plane' || k === 'node-role.kubernetes.io/master'))
    .slice(0, 5)
    .map((m) => `${m.name}: ${m.osImage ?? 'unknown OS'}${m.kernelVersion ? ` (kernel ${m.kernelVersion})` : ''}`);
}

const PARSERS: Record<string, (raw: Buffer) => unknown> = {
  services: (r) => normalizeServices(r).value,
  'service-config': (r) => normalizeServiceConfig(r).value,
  processes: (r) => normalizeProcesses(r).value,
  'hns-networks': (r) => normalizeHns(r).value,
  'hns-endpoints': (r) => normalizeHns(r).value,
  'hns-policies': (r) => normalizeHns(r).value,
  'net-adapters': (r) => normalizeNetAdapters(r).value,
  dns: (r) => normalizeDns(r).value,
  os: (r) => normalizeOs(r).value,
  runtime: (r) => normalizeRuntime(r).value,
  files: (r) => normalizeFiles(r).value,
  logs: (r) => normalizeFiles(r).value,
};

/**
 * Gather the report facts for one node from the store: the node model, its latest stored probe results (raw
 * re-parsed), the cluster's versions, the Linux control plane, findings stored for the node, and excerpts of the
 * error lines of the last logs probe. NOT_FOUND when the node is unknown.
 */
export function gatherReportFacts(core: ServiceCore, target: { cluster?: string | undefined; kubeconfig?: string | undefined; context?: string | undefined; node: string }, extra: { kubectlVersion?: string | null; findings?: Finding[] } = {}): ReportFacts {
  let clusterId: string | null = null;
  if (target.kubeconfig || target.context) {
    clusterId = kubeInventory(core).clusterIdOf({ kubeconfig: target.kubeconfig ?? null, context: target.context ?? null });
  }
  const cluster = clusterId ? core.repos.clusters.get(clusterId) : resolveCluster(core, target.cluster);
  if (!cluster) throw new WindeckError('NOT_FOUND', 'No cluster in the store: run `windeck nodes` (or give --kubeconfig) first.');
  const model = core.repos.nodes.get(cluster.id, target.node);
  const rows = new ProbeResultsRepo(core.store.db).latest(cluster.id, target.node);
  if (!model && rows.length === 0) throw new WindeckError('NOT_FOUND', `Node "${target.node}" is not in the store for ${cluster.context}: run \`windeck nodes\` and \`windeck probe ${target.node}\` first.`, { node: target.node, cluster: cluster.context });
  const probes: CollectedNode['probes'] = {};
  const files: CollectedNode['files'] = [];
  const logs: CollectedNode['logs'] = [];
  for (const r of rows) {
    const raw = r.raw ? Buffer.from(r.raw) : null;
    const parse = PARSERS[r.probeId];
    const parsed = r.ok && raw && parse ? parse(raw) : null;
    probes[r.probeId] = { ok: r.ok, raw: raw ? raw.toString('utf8') : null, parsed };
    if (r.probeId === 'files' && Array.isArray(parsed)) {
      for (const f of parsed as Array<{ path: string; exists: boolean; text: string | null }>) if (f.exists && f.text !== null) files.push({ path: f.path, name: f.path.split(/[\\/]/).pop() ?? f.path, text: f.text });
    }
    if (r.probeId === 'logs' && Array.isArray(parsed)) {
      for (const f of parsed as Array<{ path: string; exists: boolean; text: string | null }>) {
        if (f.exists && f.text) logs.push({ name: f.path.split(/[\\/]/).pop() ?? f.path, excerpt: excerptsFromLog(Buffer.from(f.text, 'utf8')) });
      }
    }
  }
  const stored = core.repos.findings.list({ clusterId: cluster.id, node: target.node }).map(({ source: _s, foundAt: _f, ...f }) => f as Finding);
  // The same rules over the stored evidence (what `windeck diagnose NODE` would say from the store).
  const derived = diagnoseProbeRun({
    node: target.node,
    transport: null,
    results: rows.filter((r) => r.probeId !== 'logs').map((r) => ({ probeId: r.probeId, ok: r.ok, raw: r.raw ? Buffer.from(r.raw).toString('utf8') : null, error: r.error?.message ?? null })),
    nodeObject: model,
  }).findings;
  const findings = [...stored, ...derived, ...(extra.findings ?? [])];
  const seen = new Set<string>();
  const unique = findings.filter((f) => {
    const key = `${f.ruleId}|${f.node}|${f.title}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return buildReportFacts({
    now: core.clock.now(),
    toolVersion: core.version,
    context: cluster.context,
    simulated: cluster.simulated,
    kubernetesVersion: cluster.kubernetesVersion,
    kubectlVersion: extra.kubectlVersion ?? null,
    nodes: [{ name: target.node, nodeObject: null, model, probes, files, logs }],
    controlPlane: controlPlaneLines(core.repos.nodes.listModels(cluster.id)),
    findings: unique,
    origin: 'store',
  });
}

async function readEntry(entry: { open(): Promise<NodeJS.ReadableStream> }, maxBytes: number, tail = false): Promise<Buffer> {
  const stream = await entry.open();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    chunks.push(b);
    size += b.length;
    if (tail) {
      while (size - (chunks[0]?.length ?? 0) > maxBytes && chunks.length > 1) size -= chunks.shift()!.length;
    } else if (size > maxBytes) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      break;
    }
  }
  const all = Buffer.concat(chunks);
  return tail ? all.subarray(Math.max(0, all.length - maxBytes)) : all.subarray(0, maxBytes);
}

/**
 * Report facts read back from a Windeck bundle (zip, a part of one, or a folder): Node objects, probe outputs
 * (re-parsed), config files, log excerpts, versions and findings.json. Everything in a bundle is already redacted
 * (pseudonyms included). PARSE_FAILED when the path is not a Windeck bundle.
 */
export async function bundleReportFacts(bundlePath: string, now: number): Promise<ReportFacts> {
  const { openInput } = await import('../diagnose/input-entries');
  const source = await openInput(bundlePath);
  try {
    const byPath = new Map(source.entries.filter((e) => e.container === '').map((e) => [e.innerPath.replace(/\\/g, '/'), e]));
    const manifestEntry = byPath.get('manifest.json');
    if (!manifestEntry) throw new WindeckError('PARSE_FAILED', `${bundlePath} is not a Windeck bundle (no manifest.json).`, { path: bundlePath });
    const manifest = JSON.parse((await readEntry(manifestEntry, 4 * 1024 * 1024)).toString('utf8')) as { format?: string; nodes?: string[]; cluster?: { context?: string | null; kubernetesVersion?: string | null } };
    if (manifest.format !== 'windeck-bundle') throw new WindeckError('PARSE_FAILED', `${bundlePath} is not a Windeck bundle (manifest format "${String(manifest.format)}").`, { path: bundlePath });
    const readJsonEntry = async (p: string): Promise<unknown> => {
      const e = byPath.get(p);
      if (!e) return null;
      try {
        return JSON.parse((await readEntry(e, 32 * 1024 * 1024)).toString('utf8'));
      } catch {
        return null;
      }
    };
    const nodes: CollectedNode[] = [];
    const nodeNames = new Set<string>(manifest.nodes ?? []);
    for (const p of byPath.keys()) {
      const m = /^nodes\/([^/]+)\//.exec(p);
      if (m) nodeNames.add(m[1]!);
    }
    for (const name of nodeNames) {
      const probes: CollectedNode['probes'] = {};
      const files: CollectedNode['files'] = [];
      const logs: CollectedNode['logs'] = [];
      for (const [p, e] of byPath) {
        if (!p.startsWith(`nodes/${name}/`)) continue;
        const rest = p.slice(`nodes/${name}/`.length);
        const probe = /^probes\/([^/]+)\.raw$/.exec(rest);
        if (probe) {
          const raw = await readEntry(e, 16 * 1024 * 1024);
          const parse = PARSERS[probe[1]!];
          probes[probe[1]!] = { ok: true, raw: raw.toString('utf8'), parsed: parse ? parse(raw) : null };
        } else if (rest.startsWith('files/')) {
          files.push({ path: rest.slice(6), name: rest.slice(6), text: (await readEntry(e, 1024 * 1024)).toString('utf8') });
        } else if (rest.startsWith('logs/') && !/\.gz$/i.test(rest)) {
          logs.push({ name: rest.slice(5), excerpt: excerptsFromLog(await readEntry(e, 512 * 1024, true)) });
        }
      }
      const nodeObject = await readJsonEntry(`nodes/${name}/node.json`);
      nodes.push({ name, nodeObject, model: null, probes, files, logs });
    }
    const version = (await readJsonEntry('cluster/version.json')) as { gitVersion?: string } | null;
    const kubectlEntry = byPath.get('cluster/kubectl-version.txt');
    const kubectl = kubectlEntry ? (await readEntry(kubectlEntry, 64 * 1024)).toString('utf8') : null;
    const findingsDoc = (await readJsonEntry('findings.json')) as { findings?: Finding[] } | null;
    const nodeList = (await readJsonEntry('cluster/nodes.json')) as { items?: Array<{ metadata?: { name?: string; labels?: Record<string, string> }; status?: { nodeInfo?: Record<string, string> } }> } | null;
    const controlPlane = (nodeList?.items ?? [])
      .filter((n) => n.status?.nodeInfo?.operatingSystem === 'linux' && Object.keys(n.metadata?.labels ?? {}).some((k) => /node-role\.kubernetes\.io\/(control-plane|master)/.test(k)))
      .map((n) => `${n.metadata?.name ?? '?'}: ${n.status?.nodeInfo?.osImage ?? 'unknown OS'}${n.status?.nodeInfo?.kernelVersion ? ` (kernel ${n.status.nodeInfo.kernelVersion})` : ''}`);
    return buildReportFacts({
      now,
      toolVersion: 'bundle',
      context: manifest.cluster?.context ?? null,
      simulated: false,
      kubernetesVersion: version?.gitVersion ?? manifest.cluster?.kubernetesVersion ?? null,
      kubectlVersion: kubectl,
      nodes,
      controlPlane,
      findings: findingsDoc?.findings ?? [],
      origin: `bundle:${bundlePath}`,
    });
  } finally {
    await source.close();
  }
}
