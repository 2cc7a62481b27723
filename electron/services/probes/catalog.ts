import type { TransportKind } from '../../../shared/contract/errors';
import { PROBE_IDS, type ProbeId } from '../../../shared/domain/probe';
import { PROBE_FILE_MAX_BYTES, PROBE_LOG_MAX_BYTES, PROBE_LOG_WINDOW_MS } from '../../../shared/domain/limits';
import type { ScriptArgs } from '../powershell/invoke';
import type { ScriptId } from '../powershell/script-ids';
import {
  normalizeDns,
  normalizeFiles,
  normalizeHns,
  normalizeNetAdapters,
  normalizeOs,
  normalizeProcesses,
  normalizeRuntime,
  normalizeServiceConfig,
  normalizeServices,
  type Normalized,
} from './normalize';

/**
 * The probe catalogue (DESIGN.md section 4): named, versioned units that run one shipped script with arguments
 * built from the node's context, and parse its output. Ids are stable: they appear in the store, bundles and
 * reports. Bump `version` when the arguments or the parsed shape change.
 */

export { PROBE_IDS, type ProbeId };

export function isProbeId(v: unknown): v is ProbeId {
  return typeof v === 'string' && (PROBE_IDS as readonly string[]).includes(v);
}

/** What a probe may know about the node when it builds its arguments. */
export interface ProbeContext {
  node: string;
  now: number;
  /** Cluster DNS domain (default cluster.local). */
  clusterDomain?: string;
  /** Extra names for the dns probe (service FQDNs of the cluster). */
  dnsNames?: string[];
  /** Log window start (epoch ms); default now - PROBE_LOG_WINDOW_MS. */
  logsSince?: number;
}

export interface ProbeDefinition {
  id: ProbeId;
  version: number;
  title: string;
  scriptId: ScriptId;
  /** Whole-run budget (command timeout) for this probe. */
  timeoutMs: number;
  transports: readonly TransportKind[];
  args(ctx: ProbeContext): ScriptArgs<ScriptId>;
  /** Never throws. `args` are the arguments the run used (e.g. to list services that were asked for but absent). */
  parse(raw: Buffer, args: Record<string, unknown>): Normalized<unknown>;
}

/** Services of every known layout (WINDOWS-KNOWLEDGE.md section 1); Windows service names are case-insensitive. */
export const COMPONENT_SERVICES = ['kubelet', 'kube-proxy', 'kubeproxy', 'flanneld', 'containerd', 'docker', 'hns', 'vmcompute', 'CalicoNode', 'CalicoFelix', 'rancher-wins', 'antrea-agent', 'ovs-vswitchd', 'ovsdb-server', 'csi-proxy'];

export const COMPONENT_PROCESSES = ['kubelet', 'kube-proxy', 'flanneld', 'containerd', 'dockerd', 'calico-node', 'antrea-agent', 'wins', 'nssm', 'powershell', 'pwsh', 'hcsshim', 'containerd-shim-runhcs-v1'];

/** Well-known config files per layout; never kubeconfigs or anything holding credentials. */
export const NODE_FILES = [
  'C:\\k\\cni\\config\\cni.conf',
  'C:\\etc\\cni\\net.d\\10-flannel.conf',
  'C:\\etc\\cni\\net.d\\10-flannel.conflist',
  'C:\\etc\\cni\\net.d\\10-calico.conflist',
  'C:\\etc\\cni\\net.d\\10-antrea.conflist',
  'C:\\k\\azurecni\\netconf\\10-azure.conflist',
  'C:\\run\\flannel\\subnet.env',
  'C:\\etc\\kube-flannel\\net-conf.json',
  'C:\\k\\SourceVip.json',
  'C:\\k\\SourceVipRequest.json',
  'C:\\var\\lib\\kubelet\\config.yaml',
  'C:\\var\\lib\\kubelet\\kubeadm-flags.env',
  'C:\\var\\lib\\kube-proxy\\config.conf',
  'C:\\k\\kubeproxy.config.yaml',
  'C:\\Program Files\\containerd\\config.toml',
];

export const LOG_SOURCES = [
  { dir: 'C:\\k', filter: '*.log' },
  { dir: 'C:\\var\\log\\kubelet', filter: '*.log' },
  { dir: 'C:\\var\\log\\kube-proxy', filter: '*.log' },
  { dir: 'C:\\var\\log\\flanneld', filter: '*.log' },
  { dir: 'C:\\var\\log\\containerd', filter: '*.log' },
  { dir: 'C:\\var\\log\\antrea', filter: '*.log' },
  { dir: 'C:\\var\\lib\\rancher\\rke2\\agent\\logs', filter: '*.log' },
];

/** Cluster names a node should resolve, plus the short and dotted partial names Windows handles differently. */
export function defaultDnsNames(domain = 'cluster.local'): string[] {
  return [`kubernetes.default.svc.${domain}`, `kube-dns.kube-system.svc.${domain}`, 'kubernetes', 'kubernetes.default'];
}

const BOTH: readonly TransportKind[] = ['ssh', 'winrm'];

const names = (args: Record<string, unknown>) => (Array.isArray(args.names) ? args.names.map(String) : []);

export const PROBES: Record<ProbeId, ProbeDefinition> = {
  services: {
    id: 'services',
    version: 1,
    title: 'Component services',
    scriptId: 'services',
    timeoutMs: 30_000,
    transports: BOTH,
    args: () => ({ names: COMPONENT_SERVICES }),
    parse: (raw, args) => normalizeServices(raw, names(args)),
  },
  'service-config': {
    id: 'service-config',
    version: 1,
    title: 'Service binaries, arguments and nssm parameters',
    scriptId: 'service-config',
    timeoutMs: 30_000,
    transports: BOTH,
    args: () => ({ names: COMPONENT_SERVICES }),
    parse: (raw) => normalizeServiceConfig(raw),
  },
  processes: {
    id: 'processes',
    version: 1,
    title: 'Component processes',
    scriptId: 'processes',
    timeoutMs: 30_000,
    transports: BOTH,
    args: () => ({ names: COMPONENT_PROCESSES }),
    parse: (raw) => normalizeProcesses(raw),
  },
  'hns-networks': { id: 'hns-networks', version: 1, title: 'HNS networks', scriptId: 'hns-networks', timeoutMs: 30_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeHns(raw) },
  'hns-endpoints': { id: 'hns-endpoints', version: 1, title: 'HNS endpoints', scriptId: 'hns-endpoints', timeoutMs: 30_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeHns(raw) },
  'hns-policies': { id: 'hns-policies', version: 1, title: 'HNS policy lists (load balancers)', scriptId: 'hns-policies', timeoutMs: 30_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeHns(raw) },
  'net-adapters': { id: 'net-adapters', version: 1, title: 'Network adapters', scriptId: 'net-adapters', timeoutMs: 30_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeNetAdapters(raw) },
  dns: {
    id: 'dns',
    version: 1,
    title: 'DNS resolution from the node',
    scriptId: 'dns',
    timeoutMs: 60_000,
    transports: BOTH,
    args: (ctx) => ({ names: [...new Set([...defaultDnsNames(ctx.clusterDomain), ...(ctx.dnsNames ?? [])])] }),
    parse: (raw) => normalizeDns(raw),
  },
  os: { id: 'os', version: 1, title: 'Windows version, build, UBR, hotfixes', scriptId: 'os', timeoutMs: 30_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeOs(raw) },
  files: {
    id: 'files',
    version: 1,
    title: 'CNI, flannel, SourceVip, kubelet/kube-proxy and containerd config files',
    scriptId: 'files',
    timeoutMs: 60_000,
    transports: BOTH,
    args: () => ({ paths: NODE_FILES, maxBytes: PROBE_FILE_MAX_BYTES }),
    parse: (raw) => normalizeFiles(raw),
  },
  runtime: { id: 'runtime', version: 1, title: 'Container runtime and pause image', scriptId: 'runtime', timeoutMs: 60_000, transports: BOTH, args: () => ({}), parse: (raw) => normalizeRuntime(raw) },
  logs: {
    id: 'logs',
    version: 1,
    title: 'Component log tails within the window',
    scriptId: 'logs',
    timeoutMs: 120_000,
    transports: BOTH,
    args: (ctx) => ({ sources: LOG_SOURCES, sinceEpochMs: Math.max(0, Math.floor(ctx.logsSince ?? ctx.now - PROBE_LOG_WINDOW_MS)), maxBytesPerFile: PROBE_LOG_MAX_BYTES }),
    parse: (raw) => normalizeFiles(raw),
  },
};
