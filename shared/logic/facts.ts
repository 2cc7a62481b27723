/**
 * Facts: the typed evidence the diagnostic rules read (DESIGN.md section 5).
 *
 * A parser turns one text (a pasted file, a log, or the raw output of a live probe) into facts; the same parser
 * runs on both, so a file dropped by a user and a probe run on a live node produce the same facts. Every fact
 * says where it came from (`source`: a file path or `probe:<id>`), the 1-based line in that text (null when the
 * fact spans the whole text), a short excerpt (what a finding shows as evidence), the node when the input says
 * which node it is about (null otherwise), and its parsed content in `data`.
 *
 * Pure data: no node:*, no DOM.
 */

/** Normalized Windows service state names (as `windeck probe --json` prints them). */
export type ServiceState = 'Running' | 'Stopped' | 'StartPending' | 'StopPending' | 'ContinuePending' | 'PausePending' | 'Paused';
/** Normalized start types. */
export type ServiceStartType = 'Automatic' | 'Manual' | 'Disabled' | 'Boot' | 'System';

export interface ServiceData {
  name: string;
  displayName: string | null;
  /** Null when the output had no status (e.g. `sc qc`). Unknown words are kept as given. */
  status: ServiceState | string | null;
  startType: ServiceStartType | null;
  delayedAutoStart: boolean | null;
  /** How the row was printed: `get-service-table`, `get-service-json`, `sc-query`, ... */
  format: string;
}

/** A listing of services: tells whether the absence of a service means something. */
export interface ServiceListingData {
  names: string[];
  /** True when the listing covers every service the node has (or every component asked for by the probe). */
  complete: boolean;
  format: string;
}

export interface ProcessData {
  name: string;
  pid: number | null;
  commandLine: string | null;
  /** Parent process name when known (nssm.exe wraps services). */
  parentName: string | null;
}

export interface ProcessListingData {
  names: string[];
  format: string;
}

/** Command-line arguments of a node component, from wherever they were seen. */
export interface ComponentArgsData {
  component: 'kubelet' | 'kube-proxy' | 'flanneld' | 'containerd' | 'other';
  /** Tokens, each `--flag=value` or `--flag` followed by its value as a separate token. */
  args: string[];
  origin: 'service-binary-path' | 'nssm-app-parameters' | 'process-command-line' | 'klog-flags' | 'script';
}

/** A KubeletConfiguration file (YAML or JSON). */
export interface KubeletConfigData {
  systemReserved: Record<string, string> | null;
  kubeReserved: Record<string, string> | null;
}

export interface HnsSubnet {
  addressPrefix: string | null;
  gatewayAddress: string | null;
}

export interface HnsNetworkData {
  id: string | null;
  name: string;
  /** As printed (HNS prints `Overlay` or `overlay`); compare case-insensitively. */
  type: string | null;
  managementIP: string | null;
  adapterName: string | null;
  subnets: HnsSubnet[];
  /** RemoteSubnetRoute / HostRoute etc. policy types seen on the network. */
  policyTypes: string[];
  format: string;
}

export interface HnsNetworkListingData {
  names: string[];
  /** True when the listing was cut off (a paste that ends mid-record, JSON that could not be completed). */
  truncated: boolean;
  format: string;
}

export interface HnsEndpointData {
  id: string | null;
  name: string;
  ipAddress: string | null;
  prefixLength: number | null;
  gatewayAddress: string | null;
  /** Null when the output has no DNSSuffix field at all (host/agent endpoints). */
  dnsSuffix: string[] | null;
  dnsServerList: string[] | null;
  isRemote: boolean | null;
  virtualNetworkName: string | null;
  format: string;
}

/** An HNS API request seen in a log (`Invoke-HNSRequest ... -Verbose`, HcnCreateNetwork) and its result. */
export interface HnsRequestData {
  method: string | null;
  path: string | null;
  /** `Name` in the request body. */
  name: string | null;
  type: string | null;
  adapterName: string | null;
  success: boolean | null;
  error: string | null;
  errorCode: number | null;
}

export interface IpAdapter {
  /** As printed after "Ethernet adapter": `vEthernet (Ethernet 2)`, `Ethernet 2`. */
  name: string;
  description: string | null;
  ipv4: string[];
  subnetMasks: string[];
  gateways: string[];
  dnsServers: string[];
  connectionSuffix: string | null;
  /** "Connection-specific DNS Suffix Search List" (per adapter, newer Windows). */
  suffixSearchList: string[];
  mediaDisconnected: boolean;
}

export interface IpconfigData {
  /** `container`: taken inside a container/pod; `host`: on a node; `unknown`: cannot tell. */
  view: 'container' | 'host' | 'unknown';
  /** Why `view` was decided, for evidence. */
  viewReason: string;
  all: boolean;
  hostName: string | null;
  suffixSearchList: string[];
  adapters: IpAdapter[];
}

export interface NetAdapterData {
  name: string;
  description: string | null;
  status: string | null;
  macAddress: string | null;
  ifIndex: number | null;
  /** IPv4 addresses on the adapter, when the output had them (the net-adapters probe does). */
  ipv4: string[];
}

export interface NetAdapterListingData {
  names: string[];
  format: string;
}

export interface LogSignalData {
  /** Signature id from shared/parse/log-signals.ts (`hns-adapter-not-found`, `hns-network-not-found`, ...). */
  signal: string;
  /** Component that printed it, when the text says (`kubelet`, `kube-proxy`, `flanneld`, `containerd`...). */
  component: string | null;
  /** Named captures (network name, endpoint name, ...). */
  captures: Record<string, string>;
  /** How many times this signature matched in the same source (the fact points at the first ones). */
  count: number;
}

export interface CniRoute {
  destinationPrefix: string;
  needEncap: boolean;
}

export interface CniConfigData {
  name: string | null;
  /** Top-level `type` (flannel, win-bridge, win-overlay, azure-vnet, nsx.bat...). */
  type: string | null;
  /** `delegate.type` for flannel (l2bridge, win-overlay, win-bridge...). */
  delegateType: string | null;
  dnsNameservers: string[];
  /** Null when the config has no dns.Search. */
  dnsSearch: string[] | null;
  /** One entry per OutBoundNAT policy: its ExceptionList (null when the key is absent). Empty when none. */
  outboundNat: { exceptionList: string[] | null }[];
  routes: CniRoute[];
  /** 1-based lines of `Search` and `ExceptionList` in the source, for evidence. */
  searchLine: number | null;
  exceptionListLine: number | null;
}

export interface FlannelNetConfData {
  network: string | null;
  backendName: string | null;
  backendType: string | null;
  vni: number | null;
  port: number | null;
}

export interface SubnetEnvData {
  network: string | null;
  subnet: string | null;
  mtu: number | null;
  ipmasq: boolean | null;
}

/** Whether a file the node should have exists (the `files` probe). */
export interface NodeFileData {
  role: 'subnet-env' | 'source-vip' | 'source-vip-request' | 'cni-config' | 'net-conf' | 'kubelet-config' | 'kube-proxy-config' | 'other';
  path: string;
  exists: boolean;
  sizeBytes: number | null;
}

export interface SourceVipData {
  ip: string | null;
  /** An IPAM error message found in the file, or a reason why it cannot be read. */
  error: string | null;
  valid: boolean;
}

export interface OsInfoData {
  build: number | null;
  ubr: number | null;
  productName: string | null;
  /** Server, Client, Server Core, Nano Server... as printed. */
  installationType: string | null;
  /** True for Windows 10/11 client editions, null when unknown. */
  isClient: boolean | null;
  origin: 'systeminfo' | 'get-computerinfo' | 'docker-info' | 'node' | 'probe' | 'wer' | 'other';
}

export interface NodeInfoData {
  /** Null when the paste does not show the node's name (a describe output cut above `Name:`). */
  name: string | null;
  /** Ready condition: true/false, null when not shown (or Unknown). */
  ready: boolean | null;
  readyStatus: string | null;
  os: 'windows' | 'linux' | 'unknown';
  kubeletVersion: string | null;
  kubeProxyVersion: string | null;
  osImage: string | null;
  kernelVersion: string | null;
  containerRuntime: string | null;
  internalIP: string | null;
  podCIDR: string | null;
  /** Null when the input did not show taints. */
  taints: string[] | null;
  roles: string | null;
  format: string;
}

export interface RuntimeVersionData {
  runtime: 'docker' | 'containerd' | 'cri-o' | 'other';
  version: string;
  /** Which part printed it: the daemon (server), the client, or a Node object. */
  role: 'server' | 'client' | 'node';
  os: string | null;
}

export interface KubeVersionData {
  clientVersion: string | null;
  serverVersion: string | null;
  /** kubectl's own warning about skew, when printed. */
  skewWarning: string | null;
  format: string;
}

export interface DnsLookupData {
  query: string;
  server: string | null;
  serverAddress: string | null;
  outcome: 'ok' | 'timeout' | 'nxdomain' | 'servfail' | 'refused' | 'no-server' | 'error';
  addresses: string[];
  tool: 'nslookup' | 'resolve-dnsname' | 'probe';
}

export interface ConnectivityData {
  target: string;
  /** `external` (outside the cluster), `cluster` (pod/service), `nodeport-local` (the node's own NodePort). */
  scope: 'external' | 'cluster' | 'nodeport-local' | 'nodeport-remote';
  protocol: 'icmp' | 'tcp' | 'http';
  port: number | null;
  ok: boolean;
}

export interface BitLockerData {
  mountPoint: string;
  protectionStatus: string | null;
  volumeStatus: string | null;
}

export interface PodEventData {
  type: string | null;
  reason: string;
  from: string | null;
  message: string;
  count: number | null;
}

export interface WindowsEventData {
  provider: string | null;
  eventId: number | null;
  level: string | null;
  message: string;
}

export interface WerReportData {
  appName: string | null;
  eventType: string | null;
  exceptionCode: string | null;
  isFatal: boolean | null;
  osVersion: string | null;
}

export interface ManagementIpData {
  ip: string;
  origin: string;
}

export interface DirectoryListingData {
  directory: string;
  entries: { mode: string; lengthBytes: number | null; name: string }[];
}

/** The data each fact type carries. */
export interface FactDataMap {
  service: ServiceData;
  'service-listing': ServiceListingData;
  process: ProcessData;
  'process-listing': ProcessListingData;
  'component-args': ComponentArgsData;
  'kubelet-config': KubeletConfigData;
  'hns-network': HnsNetworkData;
  'hns-network-listing': HnsNetworkListingData;
  'hns-endpoint': HnsEndpointData;
  'hns-request': HnsRequestData;
  ipconfig: IpconfigData;
  'net-adapter': NetAdapterData;
  'net-adapter-listing': NetAdapterListingData;
  'log-signal': LogSignalData;
  'cni-config': CniConfigData;
  'flannel-net-conf': FlannelNetConfData;
  'subnet-env': SubnetEnvData;
  'node-file': NodeFileData;
  'source-vip': SourceVipData;
  'os-info': OsInfoData;
  'node-info': NodeInfoData;
  'runtime-version': RuntimeVersionData;
  'kube-version': KubeVersionData;
  'dns-lookup': DnsLookupData;
  connectivity: ConnectivityData;
  bitlocker: BitLockerData;
  'pod-event': PodEventData;
  'windows-event': WindowsEventData;
  'wer-report': WerReportData;
  'management-ip': ManagementIpData;
  'directory-listing': DirectoryListingData;
}

export type FactType = keyof FactDataMap;

export interface FactBase {
  /** File path (relative to the diagnosed root) or `probe:<probe-id>`. */
  source: string;
  /** 1-based line in the source text, null when the fact is about the whole text. */
  line: number | null;
  excerpt: string;
  node: string | null;
}

/** One piece of evidence. */
export type Fact<T extends FactType = FactType> = { [K in T]: FactBase & { type: K; data: FactDataMap[K] } }[T];

/** Where a parser's facts go: the source name and the node, when the input says. */
export interface ParseContext {
  source: string;
  node: string | null;
}

/** What every parser returns; parsers never throw. */
export interface ParseResult {
  facts: Fact[];
  warnings: string[];
}

export const EXCERPT_MAX_CHARS = 300;

/** Cut an excerpt to a readable size (evidence, not a copy of the file). */
export function clipExcerpt(text: string, max = EXCERPT_MAX_CHARS): string {
  const t = text.replace(/\s+$/u, '');
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/** Build a fact. */
export function makeFact<K extends FactType>(type: K, ctx: ParseContext, line: number | null, excerpt: string, data: FactDataMap[K]): Fact<K> {
  return { type, source: ctx.source, line, excerpt: clipExcerpt(excerpt), node: ctx.node, data } as Fact<K>;
}

/** The facts of one type, typed. */
export function factsOf<K extends FactType>(facts: readonly Fact[], type: K): Fact<K>[] {
  return facts.filter((f) => f.type === type) as unknown as Fact<K>[];
}

/** An empty result with one warning. */
export function emptyResult(warning?: string): ParseResult {
  return { facts: [], warnings: warning ? [warning] : [] };
}
