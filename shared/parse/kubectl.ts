/**
 * kubectl output: `kubectl version` (old `version.Info{...}` format, the 1.28+ short format, `-o json|yaml`,
 * WARNING lines and stderr around it), `kubectl get nodes [-o wide]`, `kubectl describe node`, and Node objects
 * as JSON or YAML (a Node, or a NodeList as in a Windeck bundle's cluster/nodes.json).
 */
import yaml from 'js-yaml';
import { makeFact, type Fact, type NodeInfoData, type ParseContext, type ParseResult } from '../logic/facts';
import { parseLooseJson } from './json-loose';
import { parseAlignedTable } from './ps-table';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

// ---------------------------------------------------------------- kubectl version

const OLD_LINE = /^(Client|Server) Version:\s*version\.Info\{(.*)\}\s*$/;
const SHORT_LINE = /^(Client|Server) Version:\s*(v\d+\.\d+\S*)\s*$/;
const SKEW_WARNING = /^WARNING: version difference between client \(([\d.]+)\) and server \(([\d.]+)\).*$/;

/** True when the text is `kubectl version` text output. */
export function looksLikeKubectlVersionText(lines: readonly string[]): boolean {
  return lines.some((l) => OLD_LINE.test(l.trim()) || SHORT_LINE.test(l.trim()));
}

/** Parse `kubectl version` in any of its formats. */
export function parseKubectlVersion(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let client: { v: string; line: number; raw: string } | null = null;
  let server: { v: string; line: number; raw: string } | null = null;
  let warning: string | null = null;
  let warningLine: number | null = null;
  let format = 'kubectl-version';
  lines.forEach((l, i) => {
    const t = l.trim();
    const old = OLD_LINE.exec(t);
    const short = SHORT_LINE.exec(t);
    if (old) {
      const gv = /GitVersion:"([^"]+)"/.exec(old[2]!)?.[1] ?? null;
      if (gv) {
        if (old[1] === 'Client') client = { v: gv, line: i + 1, raw: t };
        else server = { v: gv, line: i + 1, raw: t };
      }
    } else if (short) {
      if (short[1] === 'Client') client = { v: short[2]!, line: i + 1, raw: t };
      else server = { v: short[2]!, line: i + 1, raw: t };
    }
    const w = SKEW_WARNING.exec(t);
    if (w) {
      warning = t;
      warningLine = i + 1;
    }
  });
  if (!client && !server) {
    const json = parseLooseJson(lines);
    if (json && typeof json.value === 'object' && json.value !== null) {
      const v = json.value as { clientVersion?: { gitVersion?: string }; serverVersion?: { gitVersion?: string } };
      format = 'kubectl-version-json';
      const cl = lines.findIndex((l) => /"clientVersion"/.test(l));
      const sl = lines.findIndex((l) => /"serverVersion"/.test(l));
      if (v.clientVersion?.gitVersion) client = { v: v.clientVersion.gitVersion, line: cl + 1, raw: `clientVersion.gitVersion: ${v.clientVersion.gitVersion}` };
      if (v.serverVersion?.gitVersion) server = { v: v.serverVersion.gitVersion, line: sl + 1, raw: `serverVersion.gitVersion: ${v.serverVersion.gitVersion}` };
    } else {
      // YAML form: `clientVersion:\n  gitVersion: v1.x`.
      try {
        const y = yaml.load(lines.join('\n')) as { clientVersion?: { gitVersion?: string }; serverVersion?: { gitVersion?: string } } | undefined;
        if (y && typeof y === 'object') {
          format = 'kubectl-version-yaml';
          if (y.clientVersion?.gitVersion) client = { v: y.clientVersion.gitVersion, line: 1, raw: `clientVersion.gitVersion: ${y.clientVersion.gitVersion}` };
          if (y.serverVersion?.gitVersion) server = { v: y.serverVersion.gitVersion, line: 1, raw: `serverVersion.gitVersion: ${y.serverVersion.gitVersion}` };
        }
      } catch {
        /* not YAML */
      }
    }
  }
  const c = client as { v: string; line: number; raw: string } | null;
  const s = server as { v: string; line: number; raw: string } | null;
  if (!c && !s) return { facts: [], warnings: ['no kubectl version found'] };
  const excerpt = [c?.raw, s?.raw].filter(Boolean).join(' / ');
  const facts: Fact[] = [
    makeFact('kube-version', ctx, warningLine ?? s?.line ?? c?.line ?? null, warning ?? excerpt, { clientVersion: c?.v ?? null, serverVersion: s?.v ?? null, skewWarning: warning, format }),
  ];
  return { facts, warnings: s ? [] : ['no server version (kubectl could not reach the API server)'] };
}

/** cluster/version.json in a Windeck bundle: the API server's /version. */
export function parseServerVersionJson(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const json = parseLooseJson(toLines(text));
  const v = json?.value as { gitVersion?: string } | undefined;
  if (!v || typeof v.gitVersion !== 'string') return { facts: [], warnings: ['no gitVersion'] };
  return { facts: [makeFact('kube-version', ctx, 1, `gitVersion: ${v.gitVersion}`, { clientVersion: null, serverVersion: v.gitVersion, skewWarning: null, format: 'version-json' })], warnings: [] };
}

// ---------------------------------------------------------------- helpers

function osFromImage(osImage: string | null, kernel: string | null): NodeInfoData['os'] {
  if (osImage && /windows/i.test(osImage)) return 'windows';
  if (kernel && /^10\.0\.\d{5}/.test(kernel)) return 'windows';
  if (osImage && /linux|ubuntu|debian|centos|red hat|rhel|flatcar|bottlerocket|amazon|container-optimized|mariner|azure linux|sles|suse|fedora|coreos/i.test(osImage)) return 'linux';
  if (kernel && /^\d+\.\d+\.\d+-/.test(kernel)) return 'linux';
  return 'unknown';
}

function readyFrom(status: string | null): boolean | null {
  if (!status) return null;
  const parts = status.split(',');
  if (parts.includes('Ready')) return true;
  if (parts.includes('NotReady')) return false;
  return null;
}

// ---------------------------------------------------------------- kubectl get nodes

const NODES_HEADER = (l: string) => /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(l.trim());

/** True when the lines hold a `kubectl get nodes` table. */
export function looksLikeGetNodes(lines: readonly string[]): { wide: boolean } | null {
  const h = lines.find((l) => NODES_HEADER(l));
  if (!h) return null;
  return { wide: /KERNEL-VERSION|CONTAINER-RUNTIME|OS-IMAGE/.test(h) };
}

/** Parse `kubectl get nodes [-o wide]`. */
export function parseGetNodes(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text).map((l) => l.replace(/^\s+/, (s) => (s.length <= 2 ? '' : s)));
  const facts: Fact[] = [];
  for (const t of parseAlignedTable(lines, NODES_HEADER)) {
    for (const row of t.rows) {
      const c = row.cells;
      const rawName = c['NAME'] ?? '';
      if (!rawName) continue;
      const name = rawName.replace(/^node\//, '');
      const osImage = c['OS-IMAGE'] || null;
      const kernel = c['KERNEL-VERSION'] || null;
      const status = c['STATUS'] || null;
      facts.push(
        makeFact('node-info', { source: ctx.source, node: name }, row.line, row.raw.trim(), {
          name,
          ready: readyFrom(status),
          readyStatus: status,
          os: osFromImage(osImage, kernel),
          kubeletVersion: c['VERSION'] || null,
          kubeProxyVersion: null,
          osImage,
          kernelVersion: kernel,
          containerRuntime: c['CONTAINER-RUNTIME'] || null,
          internalIP: c['INTERNAL-IP'] && c['INTERNAL-IP'] !== '<none>' ? c['INTERNAL-IP'] : null,
          podCIDR: null,
          taints: null,
          roles: c['ROLES'] || null,
          format: 'kubectl-get-nodes',
        }),
      );
    }
  }
  return { facts, warnings: facts.length ? [] : ['no node rows found'] };
}

// ---------------------------------------------------------------- kubectl describe node

const DESCRIBE_KEYS = /^\s*(Kernel Version|OS Image|Operating System|Container Runtime Version|Kubelet Version|Kube-Proxy Version|PodCIDR|Machine ID)\s*:/;

/** True when the lines hold (part of) `kubectl describe node`. */
export function looksLikeDescribeNode(lines: readonly string[]): boolean {
  const hasName = lines.some((l) => /^Name:\s+\S+/.test(l)) && lines.some((l) => /^(Roles|Labels|Taints|Conditions):/.test(l));
  const sysInfo = lines.some((l) => /^System Info:\s*$/.test(l.trim())) && lines.filter((l) => DESCRIBE_KEYS.test(l)).length >= 2;
  return hasName || sysInfo;
}

/** Parse `kubectl describe node` output (one or more nodes; heads or tails of it). */
export function parseDescribeNode(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  // Split at `Name:` lines that start a node.
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (/^Name:\s+\S+/.test(l)) starts.push(i);
  });
  if (starts.length === 0 || starts[0]! > 0) starts.unshift(0);
  for (let s = 0; s < starts.length; s++) {
    const from = starts[s]!;
    const to = starts[s + 1] ?? lines.length;
    const part = lines.slice(from, to);
    const get = (key: string): { value: string; line: number } | null => {
      const re = new RegExp(`^\\s*${key.replace(/[-/]/g, '\\$&')}:\\s*(.*?)\\s*$`);
      for (let i = 0; i < part.length; i++) {
        const m = re.exec(part[i] ?? '');
        if (m) return { value: m[1]!, line: from + i + 1 };
      }
      return null;
    };
    const name = get('Name')?.value ?? null;
    const kernel = get('Kernel Version')?.value || null;
    const osImage = get('OS Image')?.value || null;
    const runtime = get('Container Runtime Version');
    const kubelet = get('Kubelet Version')?.value || null;
    if (!name && !kernel && !runtime && !kubelet) continue;
    const opsys = get('Operating System')?.value ?? null;
    // Taints: `Taints: <none>` or a list continuing on indented lines.
    let taints: string[] | null = null;
    const taintIdx = part.findIndex((l) => /^Taints:/.test(l));
    if (taintIdx >= 0) {
      const first = (part[taintIdx] ?? '').replace(/^Taints:\s*/, '').trim();
      taints = first === '<none>' || first === '' ? [] : [first];
      for (let k = taintIdx + 1; k < part.length && /^\s{10,}\S/.test(part[k] ?? ''); k++) taints.push((part[k] ?? '').trim());
    }
    // Ready condition row inside Conditions.
    let readyStatus: string | null = null;
    for (const l of part) {
      const m = /^\s+Ready\s+(True|False|Unknown)\b/.exec(l);
      if (m) readyStatus = m[1]!;
    }
    const ip = /^\s*InternalIP:\s*(\S+)/m.exec(part.join('\n'))?.[1] ?? null;
    const anchor = runtime ?? get('Kernel Version') ?? get('Name');
    const data: NodeInfoData = {
      name,
      ready: readyStatus === null ? null : readyStatus === 'True' ? true : false,
      readyStatus,
      os: opsys === 'windows' ? 'windows' : opsys === 'linux' ? 'linux' : osFromImage(osImage, kernel) !== 'unknown' ? osFromImage(osImage, kernel) : part.some((l) => /kubernetes\.io\/os=windows/.test(l)) ? 'windows' : 'unknown',
      kubeletVersion: kubelet,
      kubeProxyVersion: get('Kube-Proxy Version')?.value || null,
      osImage,
      kernelVersion: kernel,
      containerRuntime: runtime?.value || null,
      internalIP: ip,
      podCIDR: get('PodCIDR')?.value || null,
      taints,
      roles: get('Roles')?.value ?? null,
      format: 'kubectl-describe-node',
    };
    facts.push(makeFact('node-info', { source: ctx.source, node: name ?? ctx.node }, anchor?.line ?? from + 1, anchor ? (lines[anchor.line - 1] ?? '').trim() : `Name: ${name}`, data));
  }
  return { facts, warnings: facts.length ? [] : ['no node description found'] };
}

// ---------------------------------------------------------------- Node JSON / YAML

interface KubeNode {
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { podCIDR?: string; taints?: { key: string; value?: string; effect: string }[] };
  status?: {
    conditions?: { type: string; status: string }[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion?: string; kubeProxyVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string; operatingSystem?: string };
  };
}

function nodeToData(n: KubeNode, format: string): NodeInfoData {
  const info = n.status?.nodeInfo ?? {};
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? null;
  const os = info.operatingSystem === 'windows' || n.metadata?.labels?.['kubernetes.io/os'] === 'windows' ? 'windows' : info.operatingSystem === 'linux' ? 'linux' : osFromImage(info.osImage ?? null, info.kernelVersion ?? null);
  return {
    name: n.metadata?.name ?? null,
    ready: ready === null ? null : ready === 'True',
    readyStatus: ready,
    os,
    kubeletVersion: info.kubeletVersion ?? null,
    kubeProxyVersion: info.kubeProxyVersion ?? null,
    osImage: info.osImage ?? null,
    kernelVersion: info.kernelVersion ?? null,
    containerRuntime: info.containerRuntimeVersion ?? null,
    internalIP: n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? null,
    podCIDR: n.spec?.podCIDR ?? null,
    taints: n.spec?.taints ? n.spec.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`) : [],
    roles: null,
    format,
  };
}

/** Parse a Node or NodeList as JSON or YAML. */
export function parseNodeObjects(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  let value: unknown = parseLooseJson(lines)?.value;
  let format = 'node-json';
  if (value === undefined) {
    try {
      value = yaml.load(lines.join('\n'));
      format = 'node-yaml';
    } catch {
      return { facts: [], warnings: ['neither JSON nor YAML'] };
    }
  }
  if (typeof value !== 'object' || value === null) return { facts: [], warnings: ['no object'] };
  const v = value as { kind?: string; items?: KubeNode[] };
  const nodes: KubeNode[] = Array.isArray(v.items) ? v.items : [v as KubeNode];
  const facts: Fact[] = [];
  for (const n of nodes) {
    if (!n || (n.kind !== undefined && n.kind !== 'Node') || !n.status) continue;
    const d = nodeToData(n, format);
    const line = d.name ? lines.findIndex((l) => l.includes(`"name": "${d.name}"`) || l.includes(`name: ${d.name}`)) + 1 || null : null;
    facts.push(makeFact('node-info', { source: ctx.source, node: d.name ?? ctx.node }, line, `Node ${d.name ?? '?'}: ${d.osImage ?? ''} ${d.kernelVersion ?? ''} ${d.containerRuntime ?? ''} kubelet ${d.kubeletVersion ?? '?'}`.replace(/\s+/g, ' '), d));
  }
  return { facts, warnings: facts.length ? [] : ['no Node objects found'] };
}
