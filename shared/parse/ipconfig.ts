/**
 * `ipconfig` and `ipconfig /all`, on a node or inside a container (`kubectl exec ... ipconfig /all`), in English
 * and a few localized spellings. Multi-value fields (DNS servers, suffix search lists) continue on indented
 * lines. The parser also decides whether the view is a container's (a pod's DNS settings) or a host's.
 */
import { makeFact, type Fact, type IpAdapter, type IpconfigData, type ParseContext, type ParseResult } from '../logic/facts';
import { cleanMarkdownLine, promptCommand, toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

const HEADER = /^\s*(?:Windows IP Configuration|Windows-IP-Konfiguration|Configuration IP de Windows|Configuración IP de Windows|Configurazione IP di Windows)\s*$/i;
const ADAPTER = /^(?:(?:Ethernet|Wireless LAN|Tunnel|Unknown|PPP)(?: adapter|-Adapter)|Carte (?:Ethernet|réseau sans fil|Tunnel)|Adaptador de (?:Ethernet|LAN inalámbrica|túnel)|Scheda (?:Ethernet|LAN wireless))\s+(.+?)\s*:\s*$/i;
const FIELD = /^\s+(\S.*?)(?:\s?\.)*\s*:\s?(.*?)\s*$/;

type FieldKey = 'hostName' | 'suffixSearchList' | 'connectionSuffix' | 'adapterSuffixSearchList' | 'description' | 'ipv4' | 'mask' | 'gateway' | 'dnsServers' | 'media' | 'dhcp';

const LABELS: [RegExp, FieldKey][] = [
  [/^(host ?name|nom de l.h[oô]te|nombre de host|hostname)$/i, 'hostName'],
  [/^connection-specific dns suffix search list$/i, 'adapterSuffixSearchList'],
  [/^(dns suffix search list|suchliste für dns-suffixe|liste de recherche du suffixe dns|lista de búsqueda de sufijos dns|elenco di ricerca suffissi dns)$/i, 'suffixSearchList'],
  [/^(connection-specific dns suffix|verbindungsspezifisches dns-suffix|suffixe dns propre à la connexion|sufijo dns específico para la conexión|suffisso dns specifico per connessione)$/i, 'connectionSuffix'],
  [/^(description|beschreibung|descripción|descrizione)$/i, 'description'],
  [/^(ipv4 address|ip address|ipv4-adresse|ip-adresse|adresse ipv4|adresse ip|dirección ipv4|indirizzo ipv4)$/i, 'ipv4'],
  [/^(subnet mask|subnetzmaske|masque de sous-réseau|máscara de subred|subnet mask)$/i, 'mask'],
  [/^(default gateway|standardgateway|passerelle par défaut|puerta de enlace predeterminada|gateway predefinito)$/i, 'gateway'],
  [/^(dns servers|dns-server|serveurs dns|servidores dns|server dns)$/i, 'dnsServers'],
  [/^(media state|medienstatus|statut du média|estado de los medios|stato supporto)$/i, 'media'],
  [/^(dhcp enabled|dhcp aktiviert|dhcp activé|dhcp habilitado|dhcp abilitato)$/i, 'dhcp'],
];

function labelKey(label: string): FieldKey | null {
  const l = label.replace(/(?:\s?\.)+$/, '').trim();
  for (const [re, key] of LABELS) if (re.test(l)) return key;
  return null;
}

function cleanValue(v: string): string {
  return v.replace(/\((?:Preferred|Bevorzugt|Préféré|Preferido|Preferito)\)\s*$/i, '').replace(/%\d+$/, '').trim();
}

/** True when the text looks like ipconfig output. */
export function looksLikeIpconfig(lines: readonly string[]): { all: boolean } | null {
  const hasHeader = lines.some((l) => HEADER.test(cleanMarkdownLine(l)));
  const adapters = lines.filter((l) => ADAPTER.test(l)).length;
  if (!hasHeader && adapters === 0) return null;
  if (!hasHeader && !lines.some((l) => FIELD.test(l) && labelKey((FIELD.exec(l) ?? [])[1] ?? '') === 'ipv4')) return null;
  const all = lines.some((l) => {
    const m = FIELD.exec(l);
    return m !== null && ['hostName', 'description', 'dhcp'].includes(labelKey(m[1]!) ?? '');
  });
  return { all };
}

interface Block {
  start: number;
  end: number;
}

const COMPARTMENT = /^\s*Network Information for Compartment (\d+)/i;

function blocks(lines: readonly string[]): Block[] {
  const starts: number[] = [];
  lines.forEach((l, i) => {
    // `ipconfig /allcompartments /all`: each compartment is its own view (1 = the host, others = pods).
    if (HEADER.test(cleanMarkdownLine(l)) || COMPARTMENT.test(l)) starts.push(i);
  });
  if (starts.length === 0) {
    const first = lines.findIndex((l) => ADAPTER.test(l));
    return first >= 0 ? [{ start: first, end: lines.length }] : [];
  }
  return starts.map((s, k) => ({ start: s, end: starts[k + 1] ?? lines.length }));
}

const CONTAINER_ADAPTER = /^vEthernet \((?:Container NIC [0-9a-f]+|[0-9a-f]{16,}_.+|.*_containerd-nat)\)$/i;
const EXEC_COMMAND = /\b(?:docker|kubectl|crictl|nerdctl|ctr)\b.*\bexec\b/i;

function decideView(lines: readonly string[], b: Block, data: Omit<IpconfigData, 'view' | 'viewReason'>): { view: IpconfigData['view']; reason: string } {
  const comp = COMPARTMENT.exec(lines[b.start] ?? '');
  if (comp) return comp[1] === '1' ? { view: 'host', reason: 'compartment 1 (the host)' } : { view: 'container', reason: `network compartment ${comp[1]} (a pod)` };
  for (let k = b.start - 1, seen = 0; k >= 0 && seen < 3; k--) {
    const t = (lines[k] ?? '').trim();
    if (t === '') continue;
    seen++;
    if (EXEC_COMMAND.test(t)) return { view: 'container', reason: `taken with \`${t.replace(/^.*?((?:docker|kubectl|crictl|nerdctl|ctr)\b)/i, '$1')}\`` };
  }
  const containerAdapter = data.adapters.find((a) => CONTAINER_ADAPTER.test(a.name) || /Container Adapter/i.test(a.description ?? ''));
  if (containerAdapter) return { view: 'container', reason: `adapter "${containerAdapter.name}" is a container endpoint` };
  if (data.hostName && /^[0-9a-f]{12}$/.test(data.hostName) && data.adapters.length <= 1) return { view: 'container', reason: `host name ${data.hostName} is a container id` };
  const connected = data.adapters.filter((a) => !a.mediaDisconnected);
  if (connected.length > 1) return { view: 'host', reason: `${connected.length} connected adapters` };
  if (connected.some((a) => !/^vEthernet /i.test(a.name) || /^vEthernet \((?:Ethernet[^)]*|nat|Default Switch)\)$/i.test(a.name))) return { view: 'host', reason: 'a host uplink adapter is listed' };
  return { view: 'unknown', reason: 'no container or host marker' };
}

/** Parse each `Windows IP Configuration` block into an `ipconfig` fact. */
export function parseIpconfig(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const facts: Fact[] = [];
  for (const b of blocks(lines)) {
    const adapters: IpAdapter[] = [];
    let hostName: string | null = null;
    const suffixSearchList: string[] = [];
    let adapter: IpAdapter | null = null;
    let lastKey: FieldKey | null = null;
    let suffixLine: number | null = null;
    let sawFieldLabel = false;
    for (let i = b.start + 1; i < b.end; i++) {
      const raw = cleanMarkdownLine(lines[i] ?? '');
      if (raw.trim() === '') continue;
      // The next command's prompt ends this output.
      if (promptCommand(raw) !== null && !/^\s/.test(raw)) break;
      const a = ADAPTER.exec(raw);
      if (a) {
        adapter = { name: a[1]!, description: null, ipv4: [], subnetMasks: [], gateways: [], dnsServers: [], connectionSuffix: null, suffixSearchList: [], mediaDisconnected: false };
        adapters.push(adapter);
        lastKey = null;
        continue;
      }
      const f = FIELD.exec(raw);
      const key = f ? labelKey(f[1]!) : null;
      if (f && (key !== null || /(?:\s\.){2,}|\s:\s?/.test(raw))) {
        sawFieldLabel = true;
        lastKey = key;
        const value = cleanValue(f[2] ?? '');
        const target = adapter;
        switch (key) {
          case 'hostName':
            hostName = value || null;
            break;
          case 'suffixSearchList':
            if (!target) {
              if (value) suffixSearchList.push(value);
              suffixLine = i + 1;
            }
            break;
          case 'adapterSuffixSearchList':
            if (target && value) target.suffixSearchList.push(value);
            break;
          case 'connectionSuffix':
            if (target) target.connectionSuffix = value || null;
            break;
          case 'description':
            if (target) target.description = value || null;
            break;
          case 'ipv4':
            if (target && value) target.ipv4.push(value);
            break;
          case 'mask':
            if (target && value) target.subnetMasks.push(value);
            break;
          case 'gateway':
            if (target && value) target.gateways.push(value);
            break;
          case 'dnsServers':
            if (target && value) target.dnsServers.push(value);
            break;
          case 'media':
            if (target) target.mediaDisconnected = /disconnected|getrennt|déconnecté|desconectado|disconnesso/i.test(value);
            break;
          default:
            break;
        }
        continue;
      }
      // Continuation of a multi-value field (deeply indented, no label).
      if (/^\s{10,}\S/.test(raw)) {
        const value = cleanValue(raw);
        if (lastKey === 'suffixSearchList' && !adapter) suffixSearchList.push(value);
        else if (lastKey === 'adapterSuffixSearchList' && adapter) adapter.suffixSearchList.push(value);
        else if (lastKey === 'dnsServers' && adapter) adapter.dnsServers.push(value);
        else if (lastKey === 'gateway' && adapter) adapter.gateways.push(value);
        continue;
      }
      if (sawFieldLabel && !/^\s/.test(raw)) break;
    }
    const all = hostName !== null || adapters.some((a) => a.description !== null);
    const base = { all, hostName, suffixSearchList, adapters };
    const { view, reason } = decideView(lines, b, base);
    const excerptLine = suffixLine ?? b.start + 1;
    const excerpt = suffixLine
      ? `${(lines[suffixLine - 1] ?? '').trim()}${suffixSearchList.length > 1 ? ` (${suffixSearchList.join(', ')})` : ''}`
      : `${(lines[b.start] ?? '').trim()}: ${adapters.map((x) => x.name).join(', ')}`;
    facts.push(makeFact('ipconfig', ctx, excerptLine, excerpt, { view, viewReason: reason, ...base }));
  }
  return { facts, warnings: facts.length ? [] : ['no ipconfig output found'] };
}
