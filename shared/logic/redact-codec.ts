/**
 * Small byte/text codecs the redactor needs without node:* or DOM (no Buffer, no TextEncoder): UTF-8, UTF-16LE,
 * base64 (standard and URL alphabets) and percent-decoding. Lenient by design: bad input decodes to U+FFFD or
 * null, never throws.
 */

/** UTF-8 bytes of a string (lone surrogates become U+FFFD). */
export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** Decode UTF-8 bytes; invalid sequences become U+FFFD. */
export function utf8Decode(bytes: Uint8Array): string {
  let out = '';
  const parts: string[] = [];
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i] as number;
    let cp = 0xfffd;
    let n = 1;
    if (b < 0x80) cp = b;
    else if (b >= 0xc2 && b < 0xe0 && i + 1 < bytes.length && ((bytes[i + 1] as number) & 0xc0) === 0x80) {
      cp = ((b & 31) << 6) | ((bytes[i + 1] as number) & 63);
      n = 2;
    } else if (b >= 0xe0 && b < 0xf0 && i + 2 < bytes.length && ((bytes[i + 1] as number) & 0xc0) === 0x80 && ((bytes[i + 2] as number) & 0xc0) === 0x80) {
      cp = ((b & 15) << 12) | (((bytes[i + 1] as number) & 63) << 6) | ((bytes[i + 2] as number) & 63);
      n = 3;
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    } else if (
      b >= 0xf0 &&
      b < 0xf5 &&
      i + 3 < bytes.length &&
      ((bytes[i + 1] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 2] as number) & 0xc0) === 0x80 &&
      ((bytes[i + 3] as number) & 0xc0) === 0x80
    ) {
      cp = ((b & 7) << 18) | (((bytes[i + 1] as number) & 63) << 12) | (((bytes[i + 2] as number) & 63) << 6) | ((bytes[i + 3] as number) & 63);
      n = 4;
      if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
    }
    out += String.fromCodePoint(cp);
    if (out.length > 8192) {
      parts.push(out);
      out = '';
    }
    i += n;
  }
  parts.push(out);
  return parts.join('');
}

/** Decode UTF-16LE bytes (an odd trailing byte is dropped). */
export function utf16leDecode(bytes: Uint8Array, offset = 0): string {
  const parts: string[] = [];
  let chunk: number[] = [];
  for (let i = offset; i + 1 < bytes.length; i += 2) {
    chunk.push((bytes[i] as number) | ((bytes[i + 1] as number) << 8));
    if (chunk.length >= 4096) {
      parts.push(String.fromCharCode(...chunk));
      chunk = [];
    }
  }
  parts.push(String.fromCharCode(...chunk));
  return parts.join('');
}

/** UTF-16LE bytes of a string. */
export function utf16leEncode(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i * 2] = c & 0xff;
    out[i * 2 + 1] = c >> 8;
  }
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_LOOKUP = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) t[B64.charCodeAt(i)] = i;
  t['-'.charCodeAt(0)] = 62;
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

/** Base64 (standard alphabet, padded) of bytes. */
export function base64Encode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + '=';
  }
  return out;
}

/** Decode base64 or base64url (padding optional). Null when a character is outside both alphabets. */
export function base64Decode(text: string): Uint8Array | null {
  const s = text.replace(/=+$/, '');
  if (s.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? (B64_LOOKUP[c] as number) : -1;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

/** Percent-decode (UTF-8); malformed escapes stay as they are. `+` is kept (it is only a space in forms). */
export function percentDecode(text: string): string {
  const bytes: number[] = [];
  let out = '';
  const flush = () => {
    if (bytes.length) {
      out += utf8Decode(Uint8Array.from(bytes));
      bytes.length = 0;
    }
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '%' && i + 2 < text.length + 0 && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      flush();
      out += ch;
    }
  }
  flush();
  return out;
}

/** Percent-encode what is not safe inside a URL or query value; keeps `:/?&=@.,_~-` and `[REDACTED:...]` readable. */
export function percentEncode(text: string): string {
  // encodeURI throws on a lone surrogate (a UTF-16LE log may hold one): such a code unit becomes U+FFFD.
  const wellFormed = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return encodeURI(wellFormed).replace(/%5B/g, '[').replace(/%5D/g, ']').replace(/#/g, '%23');
}

/** Share of characters that are printable text (tabs and line breaks count). */
export function printableRatio(text: string): number {
  if (text.length === 0) return 0;
  let ok = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13 || (c >= 0xa0 && c !== 0xfffd)) ok++;
  }
  return ok / text.length;
}

/** True when bytes look like UTF-16LE text (ASCII-range text with a zero high byte on most characters). */
export function looksUtf16le(bytes: Uint8Array, offset = 0): boolean {
  const n = Math.min(bytes.length - offset, 4096);
  if (n < 4) return false;
  let zeroOdd = 0;
  let pairs = 0;
  for (let i = offset; i + 1 < offset + n; i += 2) {
    pairs++;
    if (bytes[i + 1] === 0 && (bytes[i] as number) !== 0) zeroOdd++;
  }
  return pairs > 0 && zeroOdd / pairs >= 0.7;
}
