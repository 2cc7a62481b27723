/**
 * Text helpers every parser uses: decoding the bytes Windows writes (UTF-8 with or without BOM, UTF-16LE/BE
 * with or without BOM), CRLF line ends, CI timestamp prefixes, markdown fences kept in pastes.
 *
 * Pure: implemented without TextDecoder so that `shared/` needs no DOM or Node typings.
 */

export type TextEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16le-bom' | 'utf-16be' | 'utf-16be-bom' | 'binary';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
}

/** Guess the encoding of the first bytes of a file (BOM, else the NUL byte pattern of UTF-16). */
export function sniffEncoding(bytes: Uint8Array): TextEncoding {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8-bom';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le-bom';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be-bom';
  const n = Math.min(bytes.length, 4096);
  if (n >= 4) {
    let evenZero = 0;
    let oddZero = 0;
    let pairs = 0;
    for (let i = 0; i + 1 < n; i += 2) {
      pairs++;
      if (bytes[i] === 0) evenZero++;
      if (bytes[i + 1] === 0) oddZero++;
    }
    if (oddZero > pairs * 0.3 && evenZero < pairs * 0.05) return 'utf-16le';
    if (evenZero > pairs * 0.3 && oddZero < pairs * 0.05) return 'utf-16be';
  }
  let zeros = 0;
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (b === 0) zeros++;
    else if (b < 9 || (b > 13 && b < 32 && b !== 27)) controls++;
  }
  if (zeros > 0 || controls > n * 0.1) return 'binary';
  return 'utf-8';
}

/** Decode UTF-8 (invalid sequences become U+FFFD). */
export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const parts: string[] = [];
  let codes: number[] = [];
  let i = start;
  while (i < end) {
    const b0 = bytes[i] as number;
    let cp = 0xfffd;
    let len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if (b0 >= 0xc2 && b0 < 0xe0 && i + 1 < end && ((bytes[i + 1] as number) & 0xc0) === 0x80) {
      cp = ((b0 & 0x1f) << 6) | ((bytes[i + 1] as number) & 0x3f);
      len = 2;
    } else if (b0 >= 0xe0 && b0 < 0xf0 && i + 2 < end && ((bytes[i + 1] as number) & 0xc0) === 0x80 && ((bytes[i + 2] as number) & 0xc0) === 0x80) {
      cp = ((b0 & 0x0f) << 12) | (((bytes[i + 1] as number) & 0x3f) << 6) | ((bytes[i + 2] as number) & 0x3f);
      len = 3;
      if (cp < 0x800) cp = 0xfffd;
    } else if (
      b0 >= 0xf0 &&
      b0 < 0xf5 &&
      i + 3 < end &&
      ((bytes[i + 1] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 2] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 3] as number) & 0xc0) === 0x80
    ) {
      cp = ((b0 & 0x07) << 18) | (((bytes[i + 1] as number) & 0x3f) << 12) | (((bytes[i + 2] as number) & 0x3f) << 6) | ((bytes[i + 3] as number) & 0x3f);
      len = 4;
      if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
    }
    if (cp > 0xffff) {
      cp -= 0x10000;
      codes.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
      codes.push(cp);
    }
    i += len;
    if (codes.length >= 8192) {
      parts.push(String.fromCharCode(...codes));
      codes = [];
    }
  }
  if (codes.length) parts.push(String.fromCharCode(...codes));
  return parts.join('');
}

/** Decode UTF-16 (little or big endian); an odd trailing byte is dropped. */
export function decodeUtf16(bytes: Uint8Array, littleEndian: boolean, start = 0, end = bytes.length): string {
  const parts: string[] = [];
  let codes: number[] = [];
  for (let i = start; i + 1 < end; i += 2) {
    const a = bytes[i] as number;
    const b = bytes[i + 1] as number;
    codes.push(littleEndian ? a | (b << 8) : (a << 8) | b);
    if (codes.length >= 8192) {
      parts.push(String.fromCharCode(...codes));
      codes = [];
    }
  }
  if (codes.length) parts.push(String.fromCharCode(...codes));
  return parts.join('');
}

/** Decode a file's bytes to text, honouring BOMs and UTF-16. Binary content decodes as UTF-8 (best effort). */
export function decodeBytes(bytes: Uint8Array): DecodedText {
  const encoding = sniffEncoding(bytes);
  switch (encoding) {
    case 'utf-8-bom':
      return { text: decodeUtf8(bytes, 3), encoding };
    case 'utf-16le-bom':
      return { text: decodeUtf16(bytes, true, 2), encoding };
    case 'utf-16be-bom':
      return { text: decodeUtf16(bytes, false, 2), encoding };
    case 'utf-16le':
      return { text: decodeUtf16(bytes, true), encoding };
    case 'utf-16be':
      return { text: decodeUtf16(bytes, false), encoding };
    default:
      return { text: decodeUtf8(bytes), encoding };
  }
}

/** Remove a leading U+FEFF (a BOM that survived decoding elsewhere). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Split into lines on CRLF, LF or lone CR. */
export function splitLines(text: string): string[] {
  return stripBom(text).split(/\r\n|\n|\r/);
}

const CI_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?/;

/**
 * Strip per-line CI timestamps (`2020-07-11T04:17:22.2794021Z `, as GitHub Actions logs carry) when most lines
 * have one. Line count is kept, so line numbers stay right.
 */
export function stripCiTimestamps(lines: string[]): string[] {
  const nonEmpty = lines.filter((l) => l.trim() !== '');
  if (nonEmpty.length === 0) return lines;
  const stamped = nonEmpty.filter((l) => CI_TIMESTAMP.test(l)).length;
  if (stamped < nonEmpty.length * 0.6) return lines;
  return lines.map((l) => l.replace(CI_TIMESTAMP, ''));
}

/** Markdown emphasis/fence debris users keep in pastes: "```", "```powershell", "**Windows IP Configuration**". */
export function cleanMarkdownLine(line: string): string {
  let l = line;
  if (/^\s*```/.test(l)) l = l.replace(/^(\s*)```[A-Za-z0-9_-]*/, '$1');
  l = l.replace(/^(\s*)\*\*(.+?)\*\*\s*$/, '$1$2');
  return l.replace(/^(\s*)`+/, '$1').replace(/`+\s*$/, '');
}

/** Normalize a pasted text: decoded, BOM-free lines with CI timestamps stripped. */
export function toLines(text: string): string[] {
  return stripCiTimestamps(splitLines(text));
}

/** True when a line is a PowerShell/cmd prompt echo (`PS C:\> cmd`, `C:\k> cmd`, `> cmd`, `$ cmd`). */
export function promptCommand(line: string): string | null {
  const m = /^\s*(?:PS [A-Za-z]:\\[^>]*>|[A-Za-z]:\\[^>]*>|[\w@.-]+[:~][^$#]*[$#]|>|\$)\s*(.*)$/.exec(line);
  if (!m) return null;
  return (m[1] ?? '').trim();
}

/** Cut a long single string for messages. */
export function shorten(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX: Record<string, number> = Object.fromEntries([...B64].map((c, i) => [c, i]));

/** Decode standard base64 (whitespace ignored; invalid characters skipped). */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let o = 0;
  for (let i = 0; i + 1 < clean.length; i += 4) {
    const a = B64_INDEX[clean[i]!]!;
    const b = B64_INDEX[clean[i + 1]!]!;
    const c = i + 2 < clean.length ? B64_INDEX[clean[i + 2]!]! : -1;
    const d = i + 3 < clean.length ? B64_INDEX[clean[i + 3]!]! : -1;
    out[o++] = (a << 2) | (b >> 4);
    if (c >= 0) out[o++] = ((b & 15) << 4) | (c >> 2);
    if (d >= 0) out[o++] = ((c & 3) << 6) | d;
  }
  return out.subarray(0, o);
}
