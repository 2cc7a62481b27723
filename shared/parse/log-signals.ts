/**
 * Log signatures: the error messages the SIG-Windows troubleshooting guide and real issues name, matched in any
 * text (kubelet/kube-proxy/flanneld/containerd logs, pod events, script transcripts, event log rows).
 *
 * Lines are first assembled into records (a klog entry hard-wrapped over several lines is one record), then every
 * record is matched against the signatures. The scanner is incremental (`pushLine` ... `finish`) so a 1 GB log
 * streams through it with bounded memory: per source it keeps one fact per signature and capture, with a count.
 */
import { clipExcerpt, makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { splitLines, stripCiTimestamps } from './text';

export interface LogSignature {
  id: string;
  pattern: RegExp;
  /** Named captures to keep (from the pattern's named groups). */
  keys?: string[];
  /** Only when the whole record also matches this. */
  context?: RegExp;
  /** Never when the record matches this. */
  unless?: RegExp;
}

/**
 * The signatures. Ids are internal (rules map them to catalogue rule ids); patterns are case-insensitive where
 * Windows varies the case.
 */
export const LOG_SIGNATURES: readonly LogSignature[] = [
  { id: 'hns-adapter-not-found', pattern: /An adapter was not found|ErrorCode[=:"\s]+2151350278\b/i },
  {
    id: 'hns-network-not-found',
    pattern:
      /(?:GETHNSNew?torkByName\((?<call>[^)]+)\)[^\n]*?)?\bnetwork (?<network>[\w.:-]+) not found\b|Unable to find HNS Network(?: with name)?\s*(?<network2>[\w.:-]*)|HNS network (?<network3>[\w.:-]+) (?:was )?not found|could not find (?:the )?HNS network (?<network4>[\w.:-]*)/i,
    keys: ['network', 'network2', 'network3', 'network4'],
    unless: /\bEndpoint [\w.-]+ not found/i,
  },
  { id: 'hns-network-already-exists', pattern: /A network with this name already exists|ErrorCode[=:"\s]+2151350288\b/i },
  { id: 'hns-network-cleanup', pattern: /Cleaning up (?:the )?old HNS network|Removing (?:old|existing|stale) HNS network|Deleting (?:old|existing|stale) HNS network/i },
  {
    id: 'hns-endpoint-failed',
    pattern:
      /failed to find HNSEndpoint\s*(?<endpoint>[\w.-]*)|Remote endpoint creation failed|failed to hot attach (?:bridge )?HNSEndpoint\s*(?<endpoint2>[\w.-]*)|(?:HNS )?Endpoint creation failed|failed to create (?:the )?(?:HNS ?)?endpoint|hcnCreateEndpoint failed|HNS failed with error : Element not found|\(0x490\)/i,
    keys: ['endpoint', 'endpoint2'],
    unless: /Endpoint information not available|Policy creation failed/i,
  },
  { id: 'flannel-waiting-for-network', pattern: /Waiting for the Network(?: \((?<network>[^)]+)\))? to be created/i, keys: ['network'] },
  {
    id: 'subnet-env-missing',
    pattern: /subnet\.env\S*:? (?:The system cannot find the (?:path|file) specified|no such file or directory)|failed to load flannel 'subnet\.env' file|subnet\.env (?:not found|does not exist|is missing)/i,
  },
  {
    id: 'pause-os-mismatch',
    pattern: /container operating system does not match the host operating system|operating system of the container does not match the operating system of the host|0xc0370101/i,
    context: /sandbox/i,
  },
  { id: 'container-os-mismatch', pattern: /container operating system does not match the host operating system|operating system of the container does not match the operating system of the host|0xc0370101/i, unless: /sandbox/i },
  { id: 'wincat-missing', pattern: /wincat(?:\.exe)?\b[^\n]{0,200}?(?:cannot find the file specified|executable file not found|not found in %PATH%|is not recognized)/i },
  { id: 'socat-missing', pattern: /unable to do port forwarding: socat not found/i },
  {
    id: 'runtime-unreachable',
    pattern:
      /failed to retrieve docker version|client version [\d.]+ is too (?:new|old)\. (?:Maximum|Minimum) supported API version|failed to get (?:container )?runtime version|getting the runtime version failed|RuntimeVersion from runtime service failed|Cannot connect to the Docker daemon/i,
  },
  { id: 'management-ip-not-found', pattern: /(?:could not|couldn't|unable to|failed to) find (?:the |an |a )?(?:HNS )?network (?:with|by|for) (?:the )?management IP|management IP[^\n]{0,80}(?:does not match|mismatch)/i },
  { id: 'hns-policy-failed', pattern: /Policy creation failed/i },
  { id: 'hns-parameter-incorrect', pattern: /hnsCall failed in Win32: The parameter is incorrect/i },
  { id: 'hcs-rpc-failed', pattern: /The remote procedure call failed(?: and did not execute)?/i, context: /hcs/i },
];

/**
 * Cheap pre-check: a record that contains none of these words cannot match any signature (most log lines), so the
 * signature patterns run only on the few that do. Keep in step with LOG_SIGNATURES.
 */
const PREFILTER =
  /not found|ot Found|dapter|215135|[Ff]ind|already exists|HNS|hns|ndpoint|0x490|aiting for the|subnet\.env|perating system|0xc0370101|wincat|socat|[Vv]ersion|Docker daemon|anagement IP|olicy creation|parameter is incorrect|emote procedure/;
/** A block of lines without any of these is skipped line-wise (only counted): no signature, no FLAG, no IP. */
const BLOCK_PREFILTER = new RegExp(`${PREFILTER.source}|FLAG: |Management IP`);
const BLOCK_CHARS = 64 * 1024;

function prefilter(text: string): boolean {
  return PREFILTER.test(text);
}

const RECORD_START =
  /^(?:[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|time="|level=|[A-Z]{4}\[\d{4}-|\[\d+\] \{|\[\d{2}-\d{2}-\d{4} |\s*(?:Normal|Warning)\s{2,}[A-Z]\w+\s|\s*\d+ [A-Z][a-z]{2} \d{2} \d{2}:\d{2}\s|\d{1,2}\/\d{1,2}\/\d{4} |VERBOSE:|WARNING:|Invoke-HnsRequest :|New-HnsNetwork :)/;

const KLOG_START = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+([\w.-]+\.go):\d+\]/;
const FLAG_LINE = /\bFLAG: (--[\w-]+)="(.*)"\s*$/;
const EVENT_NODE = /^\s*(?:Normal|Warning)\s{2,}\w+\s{2,}.*?\s{2,}kubelet, ([\w.-]+)\s{2,}/;
const MGMT_IP = /Management IP detected on vSwitch:\s*(\d{1,3}(?:\.\d{1,3}){3})/;

export const RECORD_MAX_CHARS = 16 * 1024;
export const SIGNAL_KEYS_PER_SIGNATURE = 20;

interface Held {
  fact: Fact<'log-signal'>;
}

/** Which component a klog source file belongs to (best effort, for the finding text). */
export function componentOfGoFile(file: string): string | null {
  if (/^(proxier|hns|hnsV[12]|server_windows|winkernel)\b/i.test(file)) return 'kube-proxy';
  if (/^(hostgw_windows|vxlan_windows|vxlan_network_windows|vxlan_network|subnet|flannel)\b/i.test(file)) return 'flanneld';
  if (/^(kubelet|pod_workers|cni|cni_windows|docker_sandbox|docker_service|kuberuntime_\w+|kube_docker_client|kubelet_\w+|container_manager\w*|eviction_manager|reconciler\w*|remote_runtime|cpu_manager|node_container_manager\w*)\b/i.test(file)) return 'kubelet';
  if (/^portforward\b/i.test(file)) return 'kubectl';
  return null;
}

/** Incremental signature scanner over lines. */
export class LogSignalScanner {
  private record: { text: string; firstLine: number; lineOffsets: { at: number; line: number }[]; klog: boolean; node: string | null; hit: boolean } | null = null;
  private readonly held = new Map<string, Held>();
  private readonly perSignature = new Map<string, number>();
  private readonly flags = new Map<string, { value: string; line: number }>();
  private readonly extra: Fact[] = [];
  private flagComponent: string | null = null;

  constructor(
    private readonly ctx: ParseContext,
    private readonly component: string | null = null,
  ) {}

  /**
   * Feed one line (without its line end); `lineNo` is 1-based. `hit` says whether the line holds a signature word
   * (computed when not given; pushBlock finds them for a whole block in one pass).
   */
  pushLine(rawLine: string, lineNo: number, hit?: boolean): void {
    const line = rawLine.length > RECORD_MAX_CHARS ? rawLine.slice(0, RECORD_MAX_CHARS) : rawLine;
    const wordHit = hit ?? prefilter(line);
    const flag = line.includes('FLAG: ') ? FLAG_LINE.exec(line) : null;
    if (flag) {
      if (this.flags.size < 500 && !this.flags.has(flag[1]!)) this.flags.set(flag[1]!, { value: flag[2]!, line: lineNo });
      const k = KLOG_START.exec(line);
      if (k && !this.flagComponent) this.flagComponent = componentOfGoFile(k[1]!) ?? null;
    }
    const mgmt = line.includes('Management IP') ? MGMT_IP.exec(line) : null;
    if (mgmt && this.extra.length < 50) this.extra.push(makeFact('management-ip', this.ctx, lineNo, line.trim(), { ip: mgmt[1]!, origin: 'log' }));
    const isStart = RECORD_START.test(line);
    const cur = this.record;
    if (cur && !isStart && cur.klog && line.trim() !== '' && cur.text.length < RECORD_MAX_CHARS) {
      cur.lineOffsets.push({ at: cur.text.length + 1, line: lineNo });
      cur.text += ' ' + line.trim();
      cur.hit = cur.hit || wordHit;
      return;
    }
    this.flush();
    if (line.trim() === '') return;
    const node = line.includes('kubelet, ') ? (EVENT_NODE.exec(line)?.[1] ?? null) : null;
    this.record = { text: line, firstLine: lineNo, lineOffsets: [{ at: 0, line: lineNo }], klog: KLOG_START.test(line) || /^\s*(?:Normal|Warning)\s{2,}/.test(line), node, hit: wordHit };
  }

  private flush(): void {
    const rec = this.record;
    this.record = null;
    if (!rec || !rec.hit) return;
    for (const sig of LOG_SIGNATURES) {
      const m = sig.pattern.exec(rec.text);
      if (!m) continue;
      if (sig.context && !sig.context.test(rec.text)) continue;
      if (sig.unless && sig.unless.test(rec.text)) continue;
      const captures: Record<string, string> = {};
      for (const k of sig.keys ?? []) {
        const v = m.groups?.[k];
        if (v) captures[k.replace(/\d+$/, '')] = v;
      }
      const key = `${sig.id}|${JSON.stringify(captures)}`;
      const existing = this.held.get(key);
      if (existing) {
        existing.fact.data.count++;
        continue;
      }
      const n = this.perSignature.get(sig.id) ?? 0;
      if (n >= SIGNAL_KEYS_PER_SIGNATURE) continue;
      this.perSignature.set(sig.id, n + 1);
      let line = rec.firstLine;
      for (const o of rec.lineOffsets) if (o.at <= m.index) line = o.line;
      const from = Math.max(0, m.index - 120);
      const excerpt = `${from > 0 ? '…' : ''}${rec.text.slice(from, m.index + m[0].length + 160)}`;
      const component = this.componentFor(rec.text);
      const fact = makeFact('log-signal', { source: this.ctx.source, node: rec.node ?? this.ctx.node }, line, clipExcerpt(excerpt.trim(), 400), { signal: sig.id, component, captures, count: 1 });
      this.held.set(key, { fact });
    }
  }

  private componentFor(text: string): string | null {
    const k = KLOG_START.exec(text);
    if (k) return componentOfGoFile(k[1]!) ?? this.component;
    if (/kubelet, [\w.-]+/.test(text)) return 'kubelet';
    return this.component;
  }

  /**
   * Feed a block of whole lines (LF or CRLF) starting at line `firstLineNo`; returns the number of lines. Blocks of
   * ~64 KB that contain no signature word are only counted, which keeps a big quiet log cheap.
   */
  pushBlock(text: string, firstLineNo: number): number {
    let lineNo = firstLineNo;
    let pos = 0;
    while (pos < text.length) {
      let end = Math.min(text.length, pos + BLOCK_CHARS);
      if (end < text.length) {
        const nl = text.indexOf('\n', end);
        end = nl < 0 ? text.length : nl + 1;
      }
      const block = text.slice(pos, end);
      if (!BLOCK_PREFILTER.test(block)) {
        this.flush();
        let n = 0;
        for (let i = block.indexOf('\n'); i >= 0; i = block.indexOf('\n', i + 1)) n++;
        if (!block.endsWith('\n')) n++;
        lineNo += n;
      } else {
        // One pass over the block finds every signature word; each line then knows whether it has one.
        const hits: number[] = [];
        const re = new RegExp(PREFILTER.source, 'g');
        for (let m = re.exec(block); m; m = re.exec(block)) hits.push(m.index);
        let h = 0;
        let start = 0;
        while (start < block.length) {
          const nl = block.indexOf('\n', start);
          const stop = nl < 0 ? block.length : nl;
          while (h < hits.length && hits[h]! < start) h++;
          const hit = h < hits.length && hits[h]! < stop;
          const line = block.charCodeAt(stop - 1) === 13 ? block.slice(start, stop - 1) : block.slice(start, stop);
          this.pushLine(line, lineNo++, hit);
          start = stop + 1;
        }
      }
      pos = end;
    }
    return lineNo - firstLineNo;
  }

  /** Flush and return the facts. */
  finish(): Fact[] {
    this.flush();
    const out: Fact[] = [...this.held.values()].map((h) => h.fact);
    out.push(...this.extra);
    if (this.flags.size > 0) {
      // Which component printed the FLAG: dump: the file's kind, else flags only one of them has.
      const f = this.flags;
      const isProxy = this.component === 'kube-proxy' || this.flagComponent === 'kube-proxy' || (f.has('--proxy-mode') && !f.has('--windows-priorityclass'));
      const isKubelet = !isProxy && (this.component === 'kubelet' || this.flagComponent === 'kubelet' || f.has('--windows-priorityclass') || f.has('--pod-infra-container-image') || f.has('--system-reserved'));
      const comp = isProxy ? 'kube-proxy' : isKubelet ? 'kubelet' : null;
      if (comp) {
        const args = [...this.flags.entries()].filter(([, v]) => v.value !== '' && v.value !== '[]' && v.value !== 'map[]').map(([k, v]) => `${k}=${v.value}`);
        const first = Math.min(...[...this.flags.values()].map((v) => v.line));
        out.push(makeFact('component-args', this.ctx, first, `${this.flags.size} FLAG: lines (${comp} start-up flags)`, { component: comp, args, origin: 'klog-flags' }));
      }
    }
    return out;
  }
}

/** Scan a whole text (non-streaming convenience). */
export function scanLogSignals(text: string, ctx: ParseContext = { source: 'input', node: null }, component: string | null = null): ParseResult {
  const scanner = new LogSignalScanner(ctx, component);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z /m.test(text.slice(0, 4096))) {
    // CI logs: strip the per-line timestamps first (line numbers stay).
    stripCiTimestamps(splitLines(text)).forEach((l, i) => scanner.pushLine(l, i + 1));
  } else {
    scanner.pushBlock(text.replace(/\r(?!\n)/g, '\n'), 1);
  }
  return { facts: scanner.finish(), warnings: [] };
}
