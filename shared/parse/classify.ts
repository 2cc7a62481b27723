/**
 * The content classifier: given a file's bytes (and name, used only to tell archives apart from text), say
 * what it is, as a stable kebab-case kind id (`get-service-table`, `hnsdiag-list`, `kubelet-log`, ...), or
 * `unknown`. Recognition is by content only (EXPECTATIONS.md: a file name proves nothing). A paste may hold
 * several outputs; `kinds` lists every one found, in order of appearance, and `kind` is the first.
 */
import { jsonValues, isCniConfig, isFlannelNetConf } from './cni';
import { componentOfGoFile } from './log-signals';
import { looksLikeSc } from './sc';
import { looksLikeHnsdiag, hnsListKinds, looksLikeHnsJson, looksLikeHnsRequestLog } from './hns';
import { looksLikeIpconfig } from './ipconfig';
import { looksLikeDescribeNode, looksLikeGetNodes, looksLikeKubectlVersionText } from './kubectl';
import { looksLikeKubeletConfig, looksLikeSubnetEnv, ipamJsonKind } from './node-files';
import { looksLikeComputerInfo, looksLikeSysteminfo } from './os-info';
import { looksLikePodEvents } from './pod-events';
import { looksLikeContainerdVersion, looksLikeDockerInfo, looksLikeDockerVersion } from './runtime';
import { looksLikeNslookup, looksLikeResolveDnsName } from './dns';
import { decodeBytes, toLines, cleanMarkdownLine, type TextEncoding } from './text';
import {
  looksLikeBitLocker,
  looksLikeChildItem,
  looksLikeEventLog,
  looksLikeNetAdapter,
  looksLikeProcessTable,
  looksLikeTestNetConnection,
} from './windows-misc';

/** Every kind id the classifier can answer (a public contract, like rule ids: add, never rename). */
export const INPUT_KINDS = [
  'get-service-table',
  'get-service-list',
  'get-service-json',
  'sc-query',
  'sc-qc',
  'hnsdiag-list',
  'get-hnsnetwork-list',
  'get-hnsendpoint-list',
  'hns-json',
  'hns-request-log',
  'ipconfig-all',
  'ipconfig',
  'get-netadapter',
  'get-netadapter-json',
  'get-dnsclientglobalsetting',
  'klog',
  'kubelet-log',
  'kube-proxy-log',
  'flanneld-log',
  'logrus-log',
  'calico-log',
  'k2s-log',
  'etw-json-log',
  'runtime-log',
  'powershell-transcript',
  'cni-config',
  'flannel-net-conf',
  'subnet-env',
  'cni-ipam-result',
  'cni-error',
  'kubelet-config',
  'systeminfo',
  'get-computerinfo',
  'win32-operatingsystem',
  'kubectl-version',
  'kubectl-version-json',
  'kube-version-json',
  'kubectl-get-nodes',
  'kubectl-get-nodes-wide',
  'kubectl-describe-node',
  'node-json',
  'node-yaml',
  'docker-version',
  'docker-info',
  'containerd-version',
  'nslookup',
  'resolve-dnsname',
  'dns-probe-json',
  'pod-events',
  'event-list-json',
  'eventlog',
  'winevent-xml',
  'wer-report',
  'get-childitem',
  'get-process',
  'process-json',
  'service-config-json',
  'bitlocker',
  'test-netconnection',
  'connectivity-json',
  'hns-policy-json',
  'get-hnsnetwork-table',
  'runtime-probe-json',
  'file-content-json',
  'winver',
  'route-print',
  'arp-table',
  'netsh-interfaces',
  'netsh-port-range',
  'docker-ps',
  'azure-cni-log',
  'evtx',
  'kubeconfig',
  'windeck-manifest',
  'windeck-findings',
  'windeck-probe-meta',
  'windeck-probe-result',
  'windeck-report',
  'zip-archive',
  'gzip',
  'binary',
  'empty',
  'unreadable',
  'unknown',
] as const;

export type InputKind = (typeof INPUT_KINDS)[number];

export interface Detection {
  kind: InputKind;
  /** 0-based line where it starts. */
  line: number;
}

export interface Classification {
  kind: InputKind;
  kinds: InputKind[];
  encoding: TextEncoding;
}

const KLOG = /^\s*[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+([\w.-]+\.go):\d+\]/;
const LOGRUS = /^\s*`?(?:time="[^"]*"\s+level=\w+|level=\w+\s+msg=|(?:FATA|ERRO|WARN|INFO|DEBU)\[[^\]]*\]|[a-z][\w.]*="(?:[^"\\]|\\.)*"(?:\s+[a-z][\w.]*=|\s*$))/;
const CALICO = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+ \[(?:INFO|WARNING|ERROR|DEBUG|FATAL|PANIC)\]\[\d+\]/;
const K2S = /^\[\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}\] \| Msg:/;
const ETW = /^\[\d+\] \{"Timestamp":/;
const RUNTIME_ERR = /hcsshim::|hcs::(?:System|CreateComputeSystem|Process)|encountered an error during hcsshim/;
const PS_ERROR = /^\s*\+ (?:CategoryInfo|FullyQualifiedErrorId)\s*:|^At [A-Za-z]:\\.*:\d+ char:\d+|^At line:\d+ char:\d+|^WARNING: The names of some imported commands|^Exception: [A-Za-z]:\\.*\.ps1:\d+|^[\w-]+ : .+$/;
const SERVICE_TABLE_HEADER = /^\s*Status\s+Name\s+DisplayName\s*$/;
const EVENT_XML = /<Event xmlns="http:\/\/schemas\.microsoft\.com\/win\/2004\/08\/events\/event">/;
const WER = /^EventType=/;

function firstLine(lines: readonly string[], re: RegExp): number {
  for (let i = 0; i < lines.length; i++) if (re.test(lines[i] ?? '')) return i;
  return -1;
}

type Obj = Record<string, unknown>;

function jsonKind(value: unknown, text: string): InputKind | null {
  const first = (Array.isArray(value) ? value[0] : value) as unknown;
  if (typeof first !== 'object' || first === null) return null;
  const o = first as Obj;
  const has = (...keys: string[]) => keys.every((k) => k in o);
  if (has('format') && o['format'] === 'windeck-bundle') return 'windeck-manifest';
  if (has('findings') && Array.isArray(o['findings'])) return 'windeck-findings';
  if (has('transport', 'durationMs') || (has('exitCode', 'durationMs') && 'started' in o)) return 'windeck-probe-meta';
  if (o['kind'] === 'Config' && ('clusters' in o || 'contexts' in o)) return 'kubeconfig';
  if (o['kind'] === 'NodeList' || o['kind'] === 'Node') return 'node-json';
  if (o['kind'] === 'EventList' || o['kind'] === 'Event') return 'event-list-json';
  if (o['kind'] === 'KubeletConfiguration' || looksLikeKubeletConfig(text)) return 'kubelet-config';
  if ('clientVersion' in o || 'serverVersion' in o) return 'kubectl-version-json';
  if (has('gitVersion', 'major', 'minor')) return 'kube-version-json';
  if (isCniConfig(o)) return 'cni-config';
  if (isFlannelNetConf(o)) return 'flannel-net-conf';
  const ipam = ipamJsonKind(o);
  if (ipam === 'result') return 'cni-ipam-result';
  if (ipam === 'error') return 'cni-error';
  if (looksLikeHnsJson(text) || ('Output' in o && looksLikeHnsJson(JSON.stringify(o['Output'] ?? '')))) return 'hns-json';
  if ('ActivityId' in o && ('References' in o || 'VIPs' in o)) return 'hns-policy-json';
  if ('Path' in o && 'Exists' in o && ('ContentBase64' in o || 'Length' in o)) return 'file-content-json';
  if ('Containerd' in o && 'Docker' in o) return 'runtime-probe-json';
  if ('Adapters' in o && Array.isArray(o['Adapters'])) return 'get-netadapter-json';
  if ('Results' in o && Array.isArray(o['Results']) && 'SuffixSearchList' in o) return 'dns-probe-json';
  if ('Name' in o && ('PathName' in o || 'AppParameters' in o || 'Nssm' in o)) return 'service-config-json';
  if (('Name' in o || 'ServiceName' in o) && ('Status' in o || 'State' in o) && !('CommandLine' in o)) return 'get-service-json';
  if (('Name' in o || 'ProcessName' in o) && ('CommandLine' in o || 'ProcessId' in o || ('Id' in o && 'ProcessName' in o))) return 'process-json';
  if ('Name' in o && 'InterfaceDescription' in o) return 'get-netadapter-json';
  if ('MountPoint' in o && ('ProtectionStatus' in o || 'VolumeStatus' in o)) return 'bitlocker';
  if ('OsBuildNumber' in o || 'WindowsProductName' in o || 'WindowsBuildLabEx' in o) return 'get-computerinfo';
  if ('BuildNumber' in o && ('Caption' in o || 'Version' in o)) return 'win32-operatingsystem';
  if ('query' in o && ('ok' in o || 'addresses' in o)) return 'dns-probe-json';
  if ('target' in o && 'protocol' in o && 'ok' in o) return 'connectivity-json';
  return null;
}

/** Classification looks at this much text at most (the head of a big log tells what it is). */
export const CLASSIFY_MAX_CHARS = 256 * 1024;

/** Detect every kind present in decoded text (its first CLASSIFY_MAX_CHARS), in order of appearance. */
export function detectKinds(fullText: string): Detection[] {
  let text = fullText;
  if (text.length > CLASSIFY_MAX_CHARS) {
    const cut = text.lastIndexOf('\n', CLASSIFY_MAX_CHARS);
    text = text.slice(0, cut > 0 ? cut : CLASSIFY_MAX_CHARS);
  }
  const lines = toLines(text).map((l) => (l.includes('`') || l.includes('**') ? cleanMarkdownLine(l) : l));
  if (lines.every((l) => l.trim() === '')) return [{ kind: 'empty', line: 0 }];
  // Cheap substring gates keep a big log from running every detector's regex over every line.
  const has = (needle: string) => text.includes(needle);
  const found: Detection[] = [];
  const add = (kind: InputKind, line: number) => {
    if (line >= 0 && !found.some((f) => f.kind === kind)) found.push({ kind, line });
  };

  // JSON values (first few) → kind by keys.
  const firstJson = firstLine(lines, /^\s*[[{]/);
  if (firstJson >= 0) {
    const values = jsonValues(lines);
    for (const v of values.slice(0, 4)) {
      for (const item of Array.isArray(v.value) ? v.value.slice(0, 3) : [v.value]) {
        const k = jsonKind(item, lines.slice(v.startLine - 1, v.endLine).join('\n'));
        if (k) add(k, v.startLine - 1);
      }
    }
    if (values.length === 0 && looksLikeHnsJson(text)) add('hns-json', firstJson);
  }
  if (firstJson < 0 && looksLikeHnsJson(text)) add('hns-json', 0);
  if (EVENT_XML.test(text)) add('winevent-xml', firstLine(lines, /<Event\s/));
  if (/^\s*apiVersion:\s/m.test(text) && /^kind:\s*Node(List)?\s*$/m.test(text)) add('node-yaml', firstLine(lines, /^apiVersion:/));
  if (/^kind:\s*KubeletConfiguration\s*$/m.test(text)) add('kubelet-config', firstLine(lines, /^kind:/));
  if (/^kind:\s*Config\s*$/m.test(text) && /^clusters:/m.test(text)) add('kubeconfig', 0);
  if (/^format:\s*windeck-bundle/m.test(text)) add('windeck-manifest', 0);

  // Windows command outputs.
  if (has('DisplayName') && firstLine(lines, SERVICE_TABLE_HEADER) >= 0 && lines.some((l, i) => SERVICE_TABLE_HEADER.test(l) && /^\s*-{4,}\s+-{4}/.test(lines[i + 1] ?? ''))) add('get-service-table', firstLine(lines, SERVICE_TABLE_HEADER));
  if (has('DisplayName') && firstLine(lines, /^Status\s+:\s+(Running|Stopped|StartPending|StopPending|Paused)\s*$/) >= 0 && firstLine(lines, /^(Name|ServiceName)\s+:\s+\S/) >= 0 && firstLine(lines, /^DisplayName\s+:/) >= 0)
    add('get-service-list', firstLine(lines, /^(Name|Status|DisplayName)\s+:/));
  if (/SERVICE_NAME|DIENSTNAME|NOM_SERVICE|NOMBRE_DE_SERVICIO|NOME_SERVIZIO/.test(text) && looksLikeSc(lines)) add(lines.some((l) => /^\s*(START_TYPE|BINARY_PATH_NAME)\s*:/i.test(l)) ? 'sc-qc' : 'sc-query', firstLine(lines, /SERVICE_NAME|DIENSTNAME|NOM_SERVICE/i));
  if (has(' : ') && looksLikeHnsdiag(lines)) add('hnsdiag-list', firstLine(lines, /^\s*(Network|Endpoint|Namespace|LoadBalancer)\s*:\s*[0-9a-fA-F-]{36}/));
  const hl = /IPAddress|ManagementIP|Subnets|MacPools|DrMacAddress|LayeredOn|VirtualNetwork/.test(text) ? hnsListKinds(lines) : { networks: false, endpoints: false };
  if (hl.networks) add('get-hnsnetwork-list', firstLine(lines, /^(ActivityId|AdditionalParams|Name)\s+:/));
  if (hl.endpoints) add('get-hnsendpoint-list', firstLine(lines, /^(ActivityId|AdditionalParams|Name)\s+:/));
  if (/HNSRequest|HnsRequest|Hcn/.test(text) && looksLikeHnsRequestLog(lines)) add('hns-request-log', firstLine(lines, /Invoke-HNSRequest\s+Method\[|HcnCreate/i));
  const ip = /\. \. \.|dapter|Carte |Scheda /.test(text) ? looksLikeIpconfig(lines) : null;
  if (ip) add(ip.all ? 'ipconfig-all' : 'ipconfig', Math.max(0, firstLine(lines, /Windows IP Configuration|Windows-IP-Konfiguration|Configuration IP de Windows|adapter .+:\s*$/i)));
  if (has('InterfaceDescription') && looksLikeNetAdapter(lines)) add('get-netadapter', firstLine(lines, /^\s*Name\s+InterfaceDescription/));
  if (has('UseSuffixSearchList') && firstLine(lines, /^UseSuffixSearchList\s*:/) >= 0) add('get-dnsclientglobalsetting', firstLine(lines, /^UseSuffixSearchList\s*:/));
  if (has('10.0.') && looksLikeSysteminfo(lines)) add('systeminfo', firstLine(lines, /:\s+10\.0\.\d{4,5}\b/));
  if (has(' : ') && looksLikeComputerInfo(lines)) add('get-computerinfo', firstLine(lines, /^(Windows|Os|Cs)\w+\s*:/));
  if (has('API version') && looksLikeDockerVersion(lines)) add('docker-version', firstLine(lines, /^Client\b/));
  if (has('Server Version') && looksLikeDockerInfo(lines)) add('docker-info', Math.max(0, firstLine(lines, /^Client:|^Server:/)));
  if (has('containerd') && looksLikeContainerdVersion(lines)) add('containerd-version', firstLine(lines, /^containerd/));
  if (/DNS|Server|Serveur|Servidor|find|Address/.test(text) && looksLikeNslookup(lines)) add('nslookup', Math.max(0, firstLine(lines, /nslookup|^\s*DNS request timed out|^\s*Server:/i)));
  if (/Resolve-DnsName|Section/.test(text) && looksLikeResolveDnsName(lines)) add('resolve-dnsname', firstLine(lines, /Resolve-DnsName|^\s*Name\s+Type\s+TTL/));
  if (looksLikeEventLog(lines)) add('eventlog', firstLine(lines, /^\s*\d+\s+[A-Z][a-z]{2} \d{2}|^\s*\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4} \d|^\s*(Index|TimeCreated)\s/));
  if (has('EventType=') && firstLine(lines, WER) >= 0 && lines.some((l) => /^(NsAppName|AppName|Sig\[\d+\]\.Name)=/.test(l))) add('wer-report', firstLine(lines, /^\w+=/));
  if (has('Directory:') && looksLikeChildItem(lines)) add('get-childitem', firstLine(lines, /^\s*Directory:/));
  if (has('ProcessName') && looksLikeProcessTable(lines)) add('get-process', firstLine(lines, /^\s*Handles\s+NPM/));
  if (has('MountPoint') && looksLikeBitLocker(lines) && !found.some((f) => f.kind === 'bitlocker')) add('bitlocker', firstLine(lines, /MountPoint/));
  if (has('ComputerName') && looksLikeTestNetConnection(lines)) add('test-netconnection', firstLine(lines, /^\s*ComputerName\s*:/));
  if (has('FLANNEL_') && looksLikeSubnetEnv(lines)) add('subnet-env', firstLine(lines, /^\s*FLANNEL_/));

  // collectlogs.ps1 and friends (recognized; parse-only or partly parsed).
  if (has('Windows NT') && firstLine(lines, /^\s*Microsoft Windows NT 10\.0\.\d{4,5}\.\d+\s*$/) >= 0) add('winver', firstLine(lines, /^\s*Microsoft Windows NT 10\.0/));
  if (has('----') && lines.some((l, i) => /^\s*Name\s+Type\s+Id\b/.test(l) && /^\s*-{4}\s+-{4}\s+-{2}/.test(lines[i + 1] ?? ''))) add('get-hnsnetwork-table', firstLine(lines, /^\s*Name\s+Type\s+Id\b/));
  if (has('Route Table') && firstLine(lines, /^\s*IPv4 Route Table\s*$|^\s*Interface List\s*$/) >= 0 && firstLine(lines, /Network Destination\s+Netmask\s+Gateway/) >= 0) add('route-print', firstLine(lines, /Interface List|IPv4 Route Table/));
  if (has('Interface: ') && firstLine(lines, /^\s*Interface: \d{1,3}(?:\.\d{1,3}){3} --- 0x[0-9a-f]+/i) >= 0) add('arp-table', firstLine(lines, /^\s*Interface: /));
  if (has('Idx') && firstLine(lines, /^\s*Idx\s+Met\s+MTU\s+State\s+Name/) >= 0) add('netsh-interfaces', firstLine(lines, /^\s*Idx\s+Met/));
  if (has('Protocol ') && firstLine(lines, /^\s*Protocol (?:tcp|udp) (?:Port Exclusion Ranges|Dynamic Port Range)/i) >= 0) add('netsh-port-range', firstLine(lines, /^\s*Protocol (?:tcp|udp)/i));
  if (has('CONTAINER ID') && firstLine(lines, /^CONTAINER ID\s+IMAGE\s+COMMAND\s+CREATED\s+STATUS/) >= 0) add('docker-ps', firstLine(lines, /^CONTAINER ID/));
  if (has('] [') && firstLine(lines, /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \[\d+\] \[(?:cni|net|ipam|azure-vnet|cni-net|cni-ipam)/) >= 0) add('azure-cni-log', firstLine(lines, /^\d{4}\/\d{2}\/\d{2} /));

  // kubectl.
  if (has(' Version: ') && looksLikeKubectlVersionText(lines)) add('kubectl-version', firstLine(lines, /^\s*(Client|Server) Version:/));
  const gn = has('STATUS') ? looksLikeGetNodes(lines) : null;
  if (gn) add(gn.wide ? 'kubectl-get-nodes-wide' : 'kubectl-get-nodes', firstLine(lines, /^\s*NAME\s+STATUS\s+ROLES/));
  if (/Name:|System Info:/.test(text) && looksLikeDescribeNode(lines)) add('kubectl-describe-node', firstLine(lines, /^Name:\s+\S|^System Info:/));
  if (/Normal|Warning|LAST SEEN/.test(text) && looksLikePodEvents(lines)) add('pod-events', firstLine(lines, /^\s*(Normal|Warning)\s+[A-Z]\w+\s|^\s*LAST SEEN/));

  // Logs.
  const klogLines = lines.filter((l) => KLOG.test(l));
  if (klogLines.length > 0) {
    const votes = new Map<string, number>();
    for (const l of klogLines) {
      const c = componentOfGoFile(KLOG.exec(l)![1]!);
      if (c) votes.set(c, (votes.get(c) ?? 0) + 1);
    }
    if (/Searching for interface using|Found Interface for|Using interface with name|Created HNSNetwork|flanneld|subnet lease/i.test(text)) votes.set('flanneld', (votes.get('flanneld') ?? 0) + 2);
    const top = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    const kind: InputKind = top === 'kubelet' ? 'kubelet-log' : top === 'kube-proxy' ? 'kube-proxy-log' : top === 'flanneld' ? 'flanneld-log' : 'klog';
    add(kind, firstLine(lines, KLOG));
  }
  if (/\[(?:INFO|WARNING|ERROR|DEBUG|FATAL|PANIC)\]\[/.test(text) && firstLine(lines, CALICO) >= 0) add('calico-log', firstLine(lines, CALICO));
  if (has('| Msg:') && firstLine(lines, K2S) >= 0) add('k2s-log', firstLine(lines, K2S));
  if (has('{"Timestamp"') && firstLine(lines, ETW) >= 0) add('etw-json-log', firstLine(lines, ETW));
  if (has('=') && firstLine(lines, LOGRUS) >= 0) add('logrus-log', firstLine(lines, LOGRUS));
  if (/CategoryInfo|WARNING: The names|Exception: |Line \|/.test(text) && firstLine(lines, PS_ERROR) >= 0 && lines.some((l) => /^\s*\+ (CategoryInfo|FullyQualifiedErrorId)|^WARNING: The names of some imported commands|^Exception: |^\s*Line \|/.test(l)))
    add('powershell-transcript', firstLine(lines, PS_ERROR));
  if (/hcs/.test(text) && firstLine(lines, RUNTIME_ERR) >= 0) add('runtime-log', firstLine(lines, RUNTIME_ERR));

  found.sort((a, b) => a.line - b.line);
  return found;
}

/** Classify decoded text. */
export function classifyText(text: string): { kind: InputKind; kinds: InputKind[] } {
  const found = detectKinds(text);
  if (found.length === 0) return { kind: 'unknown', kinds: [] };
  return { kind: found[0]!.kind, kinds: found.map((f) => f.kind) };
}

/** Classify a file by its bytes (archives by magic number, text by content). */
export function classify(name: string, bytes: Uint8Array): Classification {
  void name;
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)) return { kind: 'zip-archive', kinds: ['zip-archive'], encoding: 'binary' };
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return { kind: 'gzip', kinds: ['gzip'], encoding: 'binary' };
  if (bytes.length >= 8 && String.fromCharCode(...bytes.subarray(0, 7)) === 'ElfFile') return { kind: 'evtx', kinds: ['evtx'], encoding: 'binary' };
  const decoded = decodeBytes(bytes);
  if (decoded.encoding === 'binary') return { kind: 'binary', kinds: ['binary'], encoding: 'binary' };
  const c = classifyText(decoded.text);
  return { ...c, encoding: decoded.encoding };
}
