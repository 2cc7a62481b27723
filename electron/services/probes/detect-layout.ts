import type { FileContent, ServiceConfig, ServiceState } from './normalize';

/**
 * Which node layout (WINDOWS-KNOWLEDGE.md section 1) a node follows, from what its probes showed: services,
 * their binaries/arguments, component processes and which well-known files exist. Never hard-codes one layout;
 * says `unknown` with the evidence when nothing matches.
 */

export const NODE_LAYOUTS = ['aks', 'rke2', 'tkg-antrea', 'calico-windows', 'kubeadm-sig-windows-tools', 'sdn-start-ps1', 'unknown'] as const;
export type NodeLayout = (typeof NODE_LAYOUTS)[number];

export interface LayoutInputs {
  services?: ServiceState[] | null;
  serviceConfig?: ServiceConfig[] | null;
  processes?: Array<{ name: string; commandLine: string | null }> | null;
  files?: FileContent[] | null;
  /** Log files found (paths). */
  logs?: string[] | null;
}

export interface LayoutResult {
  layout: NodeLayout;
  /** One short sentence per clue, in the order they decided. */
  evidence: string[];
  /** How the components run: service, nssm service, process or (not on the node) a HostProcess pod. */
  components: Record<string, 'service' | 'nssm-service' | 'process' | 'not-on-node'>;
}

const lower = (s: string) => s.toLowerCase();

export function detectLayout(input: LayoutInputs): LayoutResult {
  const services = new Map((input.services ?? []).map((s) => [lower(s.name), s]));
  const configs = new Map((input.serviceConfig ?? []).map((c) => [lower(c.name), c]));
  const procs = (input.processes ?? []).map((p) => ({ name: lower(p.name).replace(/\.exe$/, ''), commandLine: p.commandLine ?? '' }));
  const files = new Set((input.files ?? []).filter((f) => f.exists).map((f) => lower(f.path)));
  const logs = (input.logs ?? []).map(lower);
  const evidence: string[] = [];
  const has = (n: string) => services.has(n);

  const components: LayoutResult['components'] = {};
  for (const [component, names] of Object.entries({ kubelet: ['kubelet'], 'kube-proxy': ['kube-proxy', 'kubeproxy'], flanneld: ['flanneld'], containerd: ['containerd'] })) {
    const svc = names.find((n) => has(n));
    if (svc) components[component] = configs.get(svc)?.nssm ? 'nssm-service' : 'service';
    else if (procs.some((p) => names.includes(p.name))) components[component] = 'process';
    else components[component] = 'not-on-node';
  }

  let layout: NodeLayout = 'unknown';
  if (has('rancher-wins') || logs.some((l) => l.includes('\\rancher\\rke2\\'))) {
    layout = 'rke2';
    evidence.push(has('rancher-wins') ? 'service rancher-wins exists (RKE2 runs the node components through wins)' : 'logs under C:\\var\\lib\\rancher\\rke2');
  } else if (has('kubeproxy') || files.has('c:\\k\\azurecni\\netconf\\10-azure.conflist')) {
    layout = 'aks';
    evidence.push(has('kubeproxy') ? 'service "kubeproxy" (AKS spelling) exists' : 'Azure CNI config C:\\k\\azurecni\\netconf\\10-azure.conflist exists');
  } else if (has('antrea-agent') || has('ovs-vswitchd')) {
    layout = 'tkg-antrea';
    evidence.push('Antrea/OVS services exist (TKG-style node)');
  } else if (has('caliconode') || has('calicofelix')) {
    layout = 'calico-windows';
    evidence.push('Calico for Windows services (CalicoNode/CalicoFelix) exist');
  } else if (has('kubelet') && !has('kube-proxy') && !procs.some((p) => p.name === 'kube-proxy') && (files.has('c:\\var\\lib\\kubelet\\kubeadm-flags.env') || files.has('c:\\var\\lib\\kubelet\\config.yaml'))) {
    layout = 'kubeadm-sig-windows-tools';
    evidence.push('kubelet is a service with kubeadm files under C:\\var\\lib\\kubelet, kube-proxy is not on the node (HostProcess DaemonSet)');
  } else if (has('kube-proxy') || has('flanneld') || procs.some((p) => p.name === 'kube-proxy' || p.name === 'flanneld') || logs.some((l) => /^c:\\k\\[^\\]+\.log$/.test(l))) {
    layout = 'sdn-start-ps1';
    const how = ['kubelet', 'kube-proxy', 'flanneld'].map((c) => `${c} as ${components[c]}`).join(', ');
    evidence.push(`classic C:\\k layout (start.ps1 / SDN scripts): ${how}`);
  } else {
    evidence.push('no service, process or file of a known layout was seen');
  }
  return { layout, evidence, components };
}
