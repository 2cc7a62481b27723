/**
 * `sc.exe query`, `sc queryex` and `sc qc` output. Labels are matched in English and a few localized spellings;
 * the state and start type are read from their numbers, which Windows never localizes.
 */
import { makeFact, type Fact, type ParseContext, type ParseResult } from '../logic/facts';
import { executableName, splitCommandLine } from './command-line';
import { componentOf, normalizeServiceStatus, normalizeStartType } from './components';
import { toLines } from './text';

const DEFAULT_CTX: ParseContext = { source: 'input', node: null };

const NAME_LABEL = /^\s*(?:SERVICE_NAME|DIENSTNAME|NOM_SERVICE|NOMBRE_DE_SERVICIO|NOME_SERVIZIO)\s*:\s*(\S.*?)\s*$/i;
const STATE_LABEL = /^\s*(?:STATE|STATUS|ÉTAT|ETAT|ESTADO|STATO)\s*:\s*(\d+)\s*(\S*)/i;
const START_LABEL = /^\s*(?:START_TYPE|STARTTYP|TYPE_DÉMARRAGE|TYPE_DEMARRAGE|TIPO_INICIO)\s*:\s*(\d+)\s*(\S*)\s*(\(DELAYED\))?/i;
const BINARY_LABEL = /^\s*(?:BINARY_PATH_NAME|BINÄRPFADNAME|NOM_CHEMIN_BINAIRE|NOMBRE_RUTA_BINARIO)\s*:\s*(.*?)\s*$/i;
const DISPLAY_LABEL = /^\s*(?:DISPLAY_NAME|ANZEIGENAME|NOM_AFFICHAGE)\s*:\s*(.*?)\s*$/i;

interface ScBlock {
  name: string;
  nameLine: number;
  state: { code: number; word: string; line: number; raw: string } | null;
  start: { code: number; delayed: boolean; line: number; raw: string } | null;
  binary: { value: string; line: number } | null;
  display: string | null;
}

/** True when the text holds sc.exe service blocks. */
export function looksLikeSc(lines: readonly string[]): boolean {
  return lines.some((l) => NAME_LABEL.test(l)) && lines.some((l) => STATE_LABEL.test(l) || START_LABEL.test(l) || BINARY_LABEL.test(l));
}

/** Parse every `SERVICE_NAME:` block (query, queryex and qc alike). */
export function parseSc(text: string, ctx: ParseContext = DEFAULT_CTX): ParseResult {
  const lines = toLines(text);
  const blocks: ScBlock[] = [];
  let cur: ScBlock | null = null;
  lines.forEach((line, i) => {
    const n = NAME_LABEL.exec(line);
    if (n) {
      cur = { name: n[1]!, nameLine: i + 1, state: null, start: null, binary: null, display: null };
      blocks.push(cur);
      return;
    }
    if (!cur) return;
    const c: ScBlock = cur;
    const s = STATE_LABEL.exec(line);
    if (s) c.state = { code: Number(s[1]), word: s[2] ?? '', line: i + 1, raw: line.trim() };
    const st = START_LABEL.exec(line);
    if (st) c.start = { code: Number(st[1]), delayed: st[3] !== undefined, line: i + 1, raw: line.trim() };
    const b = BINARY_LABEL.exec(line);
    if (b) c.binary = { value: b[1]!, line: i + 1 };
    const d = DISPLAY_LABEL.exec(line);
    if (d) c.display = d[1]!;
  });
  const facts: Fact[] = [];
  for (const b of blocks) {
    const status = b.state ? normalizeServiceStatus(b.state.code) : null;
    const startType = b.start ? normalizeStartType(b.start.code) : null;
    if (b.state || b.start) {
      facts.push(
        makeFact('service', ctx, b.state?.line ?? b.start?.line ?? b.nameLine, `SERVICE_NAME: ${b.name}; ${b.state?.raw ?? b.start?.raw ?? ''}`, {
          name: b.name,
          displayName: b.display,
          status,
          startType,
          delayedAutoStart: b.start ? b.start.delayed : null,
          format: b.start ? 'sc-qc' : 'sc-query',
        }),
      );
    }
    if (b.binary) {
      const args = splitCommandLine(b.binary.value);
      const exe = executableName(args);
      const comp = componentOf(exe) ?? componentOf(b.name);
      if ((comp === 'kubelet' || comp === 'kube-proxy') && exe && !/^nssm(\.exe)?$/i.test(exe)) {
        facts.push(makeFact('component-args', ctx, b.binary.line, `BINARY_PATH_NAME: ${b.binary.value}`, { component: comp, args, origin: 'service-binary-path' }));
      }
    }
  }
  return { facts, warnings: blocks.length ? [] : ['no SERVICE_NAME blocks found'] };
}
