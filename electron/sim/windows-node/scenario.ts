import type { SimFaults } from './faults';
import type { NodeSpec } from './node-model';
import healthy from '../scenarios/healthy.json';
import kubeProxyStopped from '../scenarios/kube-proxy-stopped.json';
import hnsNetworkMissing from '../scenarios/hns-network-missing.json';
import flannelWaiting from '../scenarios/flannel-waiting.json';
import pauseMismatch from '../scenarios/pause-mismatch.json';
import serviceNotAutomatic from '../scenarios/service-not-automatic.json';
import kubeletRestartFails from '../scenarios/kubelet-restart-fails.json';
import wrongMgmtIp from '../scenarios/wrong-mgmt-ip.json';
import sourcevipStale from '../scenarios/sourcevip-stale.json';
import kubeletArgsWeak from '../scenarios/kubelet-args-weak.json';
import exceptionlistBroad from '../scenarios/exceptionlist-misconfigured.json';
import vethernetDuplicate from '../scenarios/vethernet-duplicate.json';
import dnsBroken from '../scenarios/dns-broken.json';
import flannelBareProcess from '../scenarios/flannel-bare-process.json';
import hostKeyChanged from '../scenarios/host-key-changed.json';
import authFailure from '../scenarios/auth-failure.json';
import slowNode from '../scenarios/slow-node.json';
import dropMidStream from '../scenarios/drop-mid-stream.json';
import hugeLogs from '../scenarios/huge-logs.json';
import nonUtf8Output from '../scenarios/non-utf8-output.json';
import restartAksServices from '../scenarios/restart-aks-services.json';
import restartHostprocess from '../scenarios/restart-hostprocess.json';
import restartKubeProxyCrashes from '../scenarios/restart-kube-proxy-crashes.json';
import restartNetworkLost from '../scenarios/restart-network-lost.json';
import restartSlowStart from '../scenarios/restart-slow-start.json';

/**
 * Scenarios are data files in electron/sim/scenarios/: `healthy.json` holds a whole node; the others name
 * `"extends": "healthy"` and list `patch` operations plus `faults`. `plants` lists the rule ids
 * (WINDOWS-KNOWLEDGE.md section 4) the scenario is meant to make fire, so demo and tests can check them.
 *
 * Strings may hold `{{placeholders}}` filled per node: nodeName, nodeIp, podCidr, podGateway, sourceVip,
 * podIp1, podIp2, clusterCidr, serviceCidr, dnsServiceIp.
 *
 * Patch paths (from the scenario root, so they start with `node.`): dot-separated keys with `[key=value]` selectors into arrays, e.g.
 * `node.services[name=kube-proxy].status` or `node.hnsNetworks[Name=flannel.4096]`.
 * Ops: `set` (replace or add), `remove`, `append` (to an array), `merge` (shallow, into an object).
 */

export type PatchOp =
  | { op: 'set'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'append'; path: string; value: unknown }
  | { op: 'merge'; path: string; value: Record<string, unknown> };

export interface ScenarioFile {
  name: string;
  title: string;
  description: string;
  plants: string[];
  extends?: string;
  node?: unknown;
  patch?: PatchOp[];
  faults?: SimFaults;
}

export interface NodeParams {
  nodeName: string;
  nodeIp: string;
  /** The node's pod subnet (a /24); default derived from the address. */
  podCidr?: string;
  clusterCidr?: string;
  serviceCidr?: string;
  dnsServiceIp?: string;
}

export interface ResolvedScenario {
  name: string;
  title: string;
  description: string;
  plants: string[];
  spec: NodeSpec;
  faults: SimFaults;
}

const CATALOG: Record<string, ScenarioFile> = Object.fromEntries(
  [
    healthy,
    kubeProxyStopped,
    hnsNetworkMissing,
    flannelWaiting,
    pauseMismatch,
    serviceNotAutomatic,
    kubeletRestartFails,
    wrongMgmtIp,
    sourcevipStale,
    kubeletArgsWeak,
    exceptionlistBroad,
    vethernetDuplicate,
    dnsBroken,
    flannelBareProcess,
    hostKeyChanged,
    authFailure,
    slowNode,
    dropMidStream,
    hugeLogs,
    nonUtf8Output,
    restartAksServices,
    restartHostprocess,
    restartKubeProxyCrashes,
    restartNetworkLost,
    restartSlowStart,
  ].map((s) => [(s as ScenarioFile).name, s as ScenarioFile]),
);

/** Names of every scenario, healthy first, then the rest in the documented demo order. */
export const SCENARIO_NAMES: readonly string[] = Object.keys(CATALOG);

export function scenarioFile(name: string): ScenarioFile {
  const s = CATALOG[name];
  if (!s) throw new Error(`unknown scenario '${name}' (known: ${SCENARIO_NAMES.join(', ')})`);
  return s;
}

type Segment = { key: string } | { match: [string, string] };

function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  const re = /\[([^=\]]+)=([^\]]*)\]|([^.[\]]+)/g;
  for (const m of path.matchAll(re)) {
    if (m[3] !== undefined) out.push({ key: m[3] });
    else out.push({ match: [m[1]!, m[2]!] });
  }
  return out;
}

function step(container: unknown, seg: Segment): { parent: unknown; key: string | number } | null {
  if ('key' in seg) {
    if (typeof container !== 'object' || container === null) return null;
    return { parent: container, key: seg.key };
  }
  if (!Array.isArray(container)) return null;
  const [k, v] = seg.match;
  const idx = container.findIndex((item) => typeof item === 'object' && item !== null && String((item as Record<string, unknown>)[k]).toLowerCase() === v.toLowerCase());
  return idx < 0 ? null : { parent: container, key: idx };
}

/** Apply one patch op to `root` in place; throws when the path does not exist (a scenario bug). */
export function applyPatch(root: unknown, op: PatchOp): void {
  const segs = parsePath(op.path);
  let cur: unknown = root;
  for (let i = 0; i < segs.length - 1; i += 1) {
    const s = step(cur, segs[i]!);
    if (!s) throw new Error(`scenario patch path not found: ${op.path}`);
    cur = (s.parent as Record<string | number, unknown>)[s.key];
  }
  const last = step(cur, segs[segs.length - 1]!);
  if (!last) throw new Error(`scenario patch path not found: ${op.path}`);
  const parent = last.parent as Record<string | number, unknown>;
  switch (op.op) {
    case 'set':
      parent[last.key] = structuredClone(op.value);
      break;
    case 'remove':
      if (Array.isArray(parent) && typeof last.key === 'number') parent.splice(last.key, 1);
      else delete parent[last.key];
      break;
    case 'append': {
      const arr = parent[last.key];
      if (!Array.isArray(arr)) throw new Error(`scenario patch append target is not an array: ${op.path}`);
      if (Array.isArray(op.value)) arr.push(...structuredClone(op.value));
      else arr.push(structuredClone(op.value));
      break;
    }
    case 'merge': {
      const obj = parent[last.key];
      if (typeof obj !== 'object' || obj === null) throw new Error(`scenario patch merge target is not an object: ${op.path}`);
      Object.assign(obj, structuredClone(op.value));
      break;
    }
  }
}

function ipv4(addr: string): number[] {
  const parts = addr.split('.').map((p) => Number(p));
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? parts : [127, 0, 0, 1];
}

/** Placeholder values for one node. The pod subnet defaults to 10.244.<last octet>.0/24. */
export function nodePlaceholders(params: NodeParams): Record<string, string> {
  const ip = ipv4(params.nodeIp);
  const podCidr = params.podCidr ?? `10.244.${ip[3]}.0/24`;
  const base = podCidr.split('/')[0]!.split('.').slice(0, 3).join('.');
  return {
    nodeName: params.nodeName,
    nodeIp: params.nodeIp,
    podCidr,
    podGateway: `${base}.1`,
    sourceVip: `${base}.2`,
    podIp1: `${base}.10`,
    podIp2: `${base}.11`,
    clusterCidr: params.clusterCidr ?? '10.244.0.0/16',
    serviceCidr: params.serviceCidr ?? '10.96.0.0/12',
    dnsServiceIp: params.dnsServiceIp ?? '10.96.0.10',
  };
}

function fill(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') return value.replace(/\{\{(\w+)\}\}/g, (all, k: string) => (k in vars ? vars[k]! : all));
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[fill(k, vars) as string] = fill(v, vars);
    return out;
  }
  return value;
}

/** The scenario's node spec for one node: base node, patches applied, placeholders filled. */
export function resolveScenario(name: string, params: NodeParams): ResolvedScenario {
  const file = scenarioFile(name);
  const chain: ScenarioFile[] = [];
  for (let s: ScenarioFile | undefined = file; s; s = s.extends ? scenarioFile(s.extends) : undefined) {
    chain.unshift(s);
    if (chain.length > 8) throw new Error(`scenario '${name}' extends too deeply`);
  }
  const baseNode = chain.find((s) => s.node !== undefined)?.node;
  if (!baseNode) throw new Error(`scenario '${name}' has no node`);
  const root = { node: structuredClone(baseNode) };
  let faults: SimFaults = {};
  for (const s of chain) {
    for (const op of s.patch ?? []) applyPatch(root, op);
    faults = { ...faults, ...(s.faults ?? {}) };
  }
  const vars = nodePlaceholders(params);
  // Placeholders are filled after patching so patches can use them too; `{{ts}}`/`{{iso}}` stay for the logs.
  return { name: file.name, title: file.title, description: file.description, plants: [...file.plants], spec: fill(root.node, vars) as NodeSpec, faults };
}
