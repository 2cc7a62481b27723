/**
 * OS images, kernels and runtimes of simulated nodes. The Windows rows are taken from real nodes in
 * ../shared/samples/nodes (source in each row); the simulator rotates through them so a large cluster looks like
 * a real mixed fleet. The simulator never reads those files at run time.
 */
export interface OsProfile {
  osImage: string;
  kernelVersion: string;
  containerRuntimeVersion: string;
  source: string;
}

export const WINDOWS_PROFILES: readonly OsProfile[] = [
  {
    osImage: 'Windows Server 2019 Datacenter',
    kernelVersion: '10.0.17763.1397',
    containerRuntimeVersion: 'containerd://1.4.1',
    source: 'samples/nodes/get-nodes-wide-ws2019-containerd-1.4.1.txt (kubernetes-sigs/sig-windows-tools PR #112)',
  },
  {
    osImage: 'Windows Server 2019 Datacenter',
    kernelVersion: '10.0.17763.1935',
    containerRuntimeVersion: 'containerd://1.4.4+unknown',
    source: 'samples/nodes/get-nodes-wide-aks-ws2019-containerd-unknown-suffix.txt (Azure/azure-workload-identity PR #46)',
  },
  {
    osImage: 'Windows Server 2019 Datacenter',
    kernelVersion: '10.0.17763.2061',
    containerRuntimeVersion: 'containerd://1.5.4',
    source: 'samples/nodes/get-nodes-wide-rke2-ws2019-containerd-1.5.4.txt (rancher/rke2 issue #1481)',
  },
  {
    osImage: 'Windows Server 2019 Standard Evaluation',
    kernelVersion: '10.0.17763.2452',
    containerRuntimeVersion: 'containerd://1.5.7',
    source: 'samples/nodes/get-nodes-wide-ws2019-eval-antrea-containerd-1.5.7.txt (kubernetes-sigs/sig-windows-dev-tools PR #171)',
  },
  {
    osImage: 'Windows Server 2022 Datacenter',
    kernelVersion: '10.0.20348.2461',
    containerRuntimeVersion: 'containerd://1.7.20',
    source: 'same shape as the rows above, Server 2022 build (matches electron/sim/scenarios/healthy.json)',
  },
  {
    osImage: 'Windows Server Datacenter',
    kernelVersion: '10.0.19041.804',
    containerRuntimeVersion: 'docker://19.3.14',
    source: 'samples/nodes/describe-node-aks-engine-ws-2004-dualstack-labels.txt (Azure/aks-engine PR #4176); SAC 2004, unsupported on v1.32',
  },
];

export const LINUX_PROFILES: readonly OsProfile[] = [
  { osImage: 'Ubuntu 22.04.4 LTS', kernelVersion: '5.15.0-1064-azure', containerRuntimeVersion: 'containerd://1.7.15-1', source: 'typical AKS Linux node' },
  { osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0-25-cloud-amd64', containerRuntimeVersion: 'containerd://1.7.20', source: 'typical kubeadm Linux node' },
];

/** Image tags that match a Windows build (process isolation needs host build = image build). */
export function windowsImageTag(kernelVersion: string): string {
  const build = Number(kernelVersion.split('.')[2]);
  if (build === 17763) return 'ltsc2019';
  if (build === 20348) return 'ltsc2022';
  if (build === 26100) return 'ltsc2025';
  if (build === 19041) return '2004';
  if (build === 19042) return '20H2';
  return 'ltsc2019';
}
