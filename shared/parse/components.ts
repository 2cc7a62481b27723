/**
 * Names of the node components Windeck watches, in the spellings distributions use
 * (WINDOWS-KNOWLEDGE.md section 1: AKS names kube-proxy `kubeproxy`, TKG capitalizes `Kubelet`).
 */

export type Component = 'kubelet' | 'kube-proxy' | 'flanneld' | 'containerd' | 'docker' | 'hns';

const ALIASES: Record<string, Component> = {
  kubelet: 'kubelet',
  'kubelet.exe': 'kubelet',
  'kube-proxy': 'kube-proxy',
  kubeproxy: 'kube-proxy',
  'kube-proxy.exe': 'kube-proxy',
  flanneld: 'flanneld',
  'flanneld.exe': 'flanneld',
  containerd: 'containerd',
  'containerd.exe': 'containerd',
  docker: 'docker',
  dockerd: 'docker',
  'dockerd.exe': 'docker',
  hns: 'hns',
};

/** The component a service or process name stands for, or null. Case-insensitive. */
export function componentOf(name: string | null | undefined): Component | null {
  if (!name) return null;
  return ALIASES[name.trim().toLowerCase()] ?? null;
}

/** PowerShell 5.1 prints ServiceControllerStatus as a number. */
const STATUS_BY_NUMBER: Record<number, string> = {
  1: 'Stopped',
  2: 'StartPending',
  3: 'StopPending',
  4: 'Running',
  5: 'ContinuePending',
  6: 'PausePending',
  7: 'Paused',
};

const STATUS_BY_WORD: Record<string, string> = {
  stopped: 'Stopped',
  startpending: 'StartPending',
  start_pending: 'StartPending',
  stoppending: 'StopPending',
  stop_pending: 'StopPending',
  running: 'Running',
  continuepending: 'ContinuePending',
  continue_pending: 'ContinuePending',
  pausepending: 'PausePending',
  pause_pending: 'PausePending',
  paused: 'Paused',
};

/** Normalize a service status (number, enum name or sc.exe word) to the PowerShell enum name. */
export function normalizeServiceStatus(value: unknown): string | null {
  if (typeof value === 'number') return STATUS_BY_NUMBER[value] ?? String(value);
  if (typeof value !== 'string') return null;
  const v = value.trim();
  if (v === '') return null;
  if (/^\d+$/.test(v)) return STATUS_BY_NUMBER[Number(v)] ?? v;
  return STATUS_BY_WORD[v.toLowerCase().replace(/\s+/g, '')] ?? v;
}

const START_BY_NUMBER: Record<number, 'Boot' | 'System' | 'Automatic' | 'Manual' | 'Disabled'> = {
  0: 'Boot',
  1: 'System',
  2: 'Automatic',
  3: 'Manual',
  4: 'Disabled',
};

/** Normalize a start type (number, enum name, sc.exe `AUTO_START`/`DEMAND_START`, WMI `Auto`). */
export function normalizeStartType(value: unknown): 'Boot' | 'System' | 'Automatic' | 'Manual' | 'Disabled' | null {
  if (typeof value === 'number') return START_BY_NUMBER[value] ?? null;
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  if (/^\d+$/.test(v)) return START_BY_NUMBER[Number(v)] ?? null;
  if (v.startsWith('auto') || v === 'automatic' || v === 'automaticdelayedstart') return 'Automatic';
  if (v === 'manual' || v === 'demand_start' || v === 'demand') return 'Manual';
  if (v === 'disabled') return 'Disabled';
  if (v === 'boot' || v === 'boot_start') return 'Boot';
  if (v === 'system' || v === 'system_start') return 'System';
  return null;
}
