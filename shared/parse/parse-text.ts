/**
 * One entry point for a whole text: classify it, run the parser of every kind found in it, and scan it for log
 * signatures. Used by the offline diagnosis (files, bundles, collectlogs folders) and by live probes alike.
 */
import type { Fact, ParseContext, ParseResult } from '../logic/facts';
import { classifyText, type InputKind } from './classify';
import { parseCniConfigs } from './cni';
import { parseDnsProbeJson, parseNslookup, parseResolveDnsName } from './dns';
import { parseGetServiceJson, parseGetServiceList, parseGetServiceTable } from './get-service';
import { parseHnsdiag, parseHnsJson, parseHnsList, parseHnsNetworkTable, parseHnsRequestLog } from './hns';
import { parseIpconfig } from './ipconfig';
import { parseDescribeNode, parseGetNodes, parseKubectlVersion, parseNodeObjects, parseServerVersionJson } from './kubectl';
import { scanLogSignals } from './log-signals';
import { parseKubeletConfig, parseSourceVip, parseSubnetEnv } from './node-files';
import { parseComputerInfo, parseSysteminfo, parseWerReport, parseWin32Os, parseWinver } from './os-info';
import { parseEventListJson, parsePodEvents } from './pod-events';
import { parseContainerdVersion, parseDockerInfo, parseDockerVersion, parseRuntimeProbeJson } from './runtime';
import { parseLooseJson } from './json-loose';
import { decodeBase64, decodeBytes, toLines } from './text';
import { makeFact, type NodeFileData } from '../logic/facts';
import { parseSc } from './sc';
import {
  parseBitLocker,
  parseChildItem,
  parseConnectivityJson,
  parseEventLog,
  parseEventXml,
  parseNetAdapter,
  parseProcesses,
  parseServiceConfigJson,
  parseTestNetConnection,
} from './windows-misc';

export type TextParser = (text: string, ctx: ParseContext) => ParseResult;

/** The structured parser of each kind; kinds without one carry only log signatures (logs) or nothing. */
export const PARSERS: Partial<Record<InputKind, TextParser>> = {
  'get-service-table': parseGetServiceTable,
  'get-service-list': parseGetServiceList,
  'get-service-json': (t, c) => parseGetServiceJson(t, c, false),
  'sc-query': parseSc,
  'sc-qc': parseSc,
  'hnsdiag-list': parseHnsdiag,
  'get-hnsnetwork-list': parseHnsList,
  'get-hnsendpoint-list': parseHnsList,
  'hns-json': parseHnsJson,
  'hns-request-log': parseHnsRequestLog,
  'ipconfig-all': parseIpconfig,
  ipconfig: parseIpconfig,
  'get-netadapter': parseNetAdapter,
  'get-netadapter-json': parseNetAdapter,
  'cni-config': parseCniConfigs,
  'flannel-net-conf': parseCniConfigs,
  'subnet-env': parseSubnetEnv,
  'cni-ipam-result': parseSourceVip,
  'cni-error': parseSourceVip,
  'kubelet-config': parseKubeletConfig,
  systeminfo: parseSysteminfo,
  'get-computerinfo': parseComputerInfo,
  'win32-operatingsystem': parseWin32Os,
  'kubectl-version': parseKubectlVersion,
  'kubectl-version-json': parseKubectlVersion,
  'kube-version-json': parseServerVersionJson,
  'kubectl-get-nodes': parseGetNodes,
  'kubectl-get-nodes-wide': parseGetNodes,
  'kubectl-describe-node': parseDescribeNode,
  'node-json': parseNodeObjects,
  'node-yaml': parseNodeObjects,
  'docker-version': parseDockerVersion,
  'docker-info': parseDockerInfo,
  'containerd-version': parseContainerdVersion,
  nslookup: parseNslookup,
  'resolve-dnsname': parseResolveDnsName,
  'dns-probe-json': parseDnsProbeJson,
  'pod-events': parsePodEvents,
  'event-list-json': parseEventListJson,
  eventlog: parseEventLog,
  'winevent-xml': parseEventXml,
  'wer-report': parseWerReport,
  'get-childitem': parseChildItem,
  'get-process': parseProcesses,
  'process-json': parseProcesses,
  'service-config-json': parseServiceConfigJson,
  bitlocker: parseBitLocker,
  'test-netconnection': parseTestNetConnection,
  'connectivity-json': parseConnectivityJson,
  winver: parseWinver,
  'get-hnsnetwork-table': parseHnsNetworkTable,
  'runtime-probe-json': parseRuntimeProbeJson,
  'file-content-json': (t, c) => parseFileContentJson(t, c),
};

/** What a node file is, by its path on the node (the files/logs probes say which file they read). */
export function nodeFileRole(path: string): NodeFileData['role'] {
  const p = path.replace(/\\/g, '/').toLowerCase();
  const base = p.split('/').pop() ?? p;
  if (base === 'subnet.env') return 'subnet-env';
  if (base === 'sourcevip.json') return 'source-vip';
  if (base === 'sourceviprequest.json') return 'source-vip-request';
  if (base === 'net-conf.json') return 'net-conf';
  if (/\/cni\/|net\.d\//.test(p) && /\.(conf|conflist|json)$/.test(base)) return 'cni-config';
  if (/kubelet/.test(p) && /config\.(ya?ml|json)$/.test(base)) return 'kubelet-config';
  if (/kube-?proxy/.test(p) && /\.(ya?ml|json|conf)$/.test(base)) return 'kube-proxy-config';
  return 'other';
}

/**
 * The files and logs probes: `[{"Path", "Exists", "Length", "Offset", "ContentBase64"}]`. Each file becomes a
 * `node-file` fact, and its content is parsed like any other text (source `<source>#<path>`).
 */
export function parseFileContentJson(text: string, ctx: ParseContext): ParseResult {
  const json = parseLooseJson(toLines(text));
  if (!json) return { facts: [], warnings: ['no JSON found'] };
  const rows = (Array.isArray(json.value) ? json.value : [json.value]).filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  const facts: Fact[] = [];
  const warnings: string[] = [];
  for (const r of rows) {
    const path = typeof r['Path'] === 'string' ? r['Path'] : null;
    if (!path) continue;
    const exists = r['Exists'] === true;
    const size = typeof r['Length'] === 'number' ? r['Length'] : null;
    facts.push(makeFact('node-file', ctx, null, `${path}: ${exists ? `${size ?? '?'} bytes` : 'does not exist'}`, { role: nodeFileRole(path), path, exists, sizeBytes: size }));
    if (!exists || typeof r['ContentBase64'] !== 'string') continue;
    const content = decodeBytes(decodeBase64(r['ContentBase64'])).text;
    const sub = parseText(content, { source: `${ctx.source}#${path}`, node: ctx.node });
    facts.push(...sub.facts);
    warnings.push(...sub.warnings.map((w) => `${path}: ${w}`));
  }
  return { facts, warnings };
}

/** Kinds whose text is never scanned (our own outputs, credentials). */
const NO_SCAN: ReadonlySet<InputKind> = new Set<InputKind>(['windeck-findings', 'windeck-manifest', 'windeck-probe-meta', 'windeck-probe-result', 'windeck-report', 'kubeconfig', 'binary', 'zip-archive', 'gzip', 'evtx', 'empty', 'unreadable']);
/** Kinds whose content is data for other parsers only (the log scan would see it twice). */
const NO_SIGNAL_SCAN: ReadonlySet<InputKind> = new Set<InputKind>(['file-content-json']);

/** The component a log kind belongs to, for finding texts. */
export function componentOfKind(kind: InputKind): string | null {
  switch (kind) {
    case 'kubelet-log':
      return 'kubelet';
    case 'kube-proxy-log':
      return 'kube-proxy';
    case 'flanneld-log':
      return 'flanneld';
    case 'calico-log':
      return 'calico';
    case 'logrus-log':
    case 'runtime-log':
      return 'container runtime';
    default:
      return null;
  }
}

export interface TextParseResult extends ParseResult {
  kind: InputKind;
  kinds: InputKind[];
}

/** Parse a whole text: every kind's parser plus the log signature scan. Never throws. */
export function parseText(text: string, ctx: ParseContext, knownKinds?: { kind: InputKind; kinds: InputKind[] }): TextParseResult {
  const { kind, kinds } = knownKinds ?? classifyText(text);
  const facts: Fact[] = [];
  const warnings: string[] = [];
  if (kinds.some((k) => NO_SCAN.has(k))) return { kind, kinds, facts, warnings };
  const seen = new Set<TextParser>();
  for (const k of kinds) {
    const p = PARSERS[k];
    if (!p || seen.has(p)) continue;
    seen.add(p);
    try {
      const r = p(text, ctx);
      facts.push(...r.facts);
      warnings.push(...r.warnings.map((w) => `${k}: ${w}`));
    } catch (error) {
      warnings.push(`${k}: parser failed: ${(error as Error).message}`);
    }
  }
  const component = kinds.map(componentOfKind).find((c) => c !== null) ?? null;
  if (kinds.some((k) => NO_SIGNAL_SCAN.has(k))) return { kind, kinds, facts, warnings };
  try {
    facts.push(...scanLogSignals(text, ctx, component).facts);
  } catch (error) {
    warnings.push(`log scan failed: ${(error as Error).message}`);
  }
  return { kind, kinds, facts, warnings };
}
