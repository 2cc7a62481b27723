/**
 * MD4 message digest (RFC 1320). NTLM's NTOWF needs it and Node's OpenSSL 3 build refuses `md4` unless the
 * legacy provider is loaded, so it is implemented here. Tested against the RFC 1320 appendix A.5 suite and the
 * MS-NLMP 4.2.2.1.2 NTOWFv1 example. Only for NTLM compatibility: MD4 is broken as a general hash.
 */

function rotl(x: number, s: number): number {
  return ((x << s) | (x >>> (32 - s))) >>> 0;
}

export function md4(input: Uint8Array): Buffer {
  const bitLength = input.length * 8;
  // Pad: 0x80, zeros to 56 mod 64, then the 64-bit little-endian bit length.
  const paddedLength = (((input.length + 8) >> 6) + 1) << 6;
  const block = Buffer.alloc(paddedLength);
  block.set(input, 0);
  block[input.length] = 0x80;
  block.writeUInt32LE(bitLength >>> 0, paddedLength - 8);
  block.writeUInt32LE(Math.floor(bitLength / 0x1_0000_0000) >>> 0, paddedLength - 4);

  let a = 0x67452301;
  let b = 0xefcdab89;
  let c = 0x98badcfe;
  let d = 0x10325476;
  const x = new Uint32Array(16);

  for (let offset = 0; offset < paddedLength; offset += 64) {
    for (let i = 0; i < 16; i += 1) x[i] = block.readUInt32LE(offset + i * 4);
    const aa = a;
    const bb = b;
    const cc = c;
    const dd = d;

    const f = (p: number, q: number, r: number): number => (p & q) | (~p & r);
    const g = (p: number, q: number, r: number): number => (p & q) | (p & r) | (q & r);
    const h = (p: number, q: number, r: number): number => p ^ q ^ r;
    const xi = (i: number): number => x[i] as number;

    // Round 1: [abcd k s] a = (a + F(b,c,d) + X[k]) <<< s
    for (const k of [0, 4, 8, 12]) {
      a = rotl((a + f(b, c, d) + xi(k)) >>> 0, 3);
      d = rotl((d + f(a, b, c) + xi(k + 1)) >>> 0, 7);
      c = rotl((c + f(d, a, b) + xi(k + 2)) >>> 0, 11);
      b = rotl((b + f(c, d, a) + xi(k + 3)) >>> 0, 19);
    }
    // Round 2: a = (a + G(b,c,d) + X[k] + 5A827999) <<< s
    for (const k of [0, 1, 2, 3]) {
      a = rotl((a + g(b, c, d) + xi(k) + 0x5a827999) >>> 0, 3);
      d = rotl((d + g(a, b, c) + xi(k + 4) + 0x5a827999) >>> 0, 5);
      c = rotl((c + g(d, a, b) + xi(k + 8) + 0x5a827999) >>> 0, 9);
      b = rotl((b + g(c, d, a) + xi(k + 12) + 0x5a827999) >>> 0, 13);
    }
    // Round 3: a = (a + H(b,c,d) + X[k] + 6ED9EBA1) <<< s
    for (const k of [0, 2, 1, 3]) {
      a = rotl((a + h(b, c, d) + xi(k) + 0x6ed9eba1) >>> 0, 3);
      d = rotl((d + h(a, b, c) + xi(k + 8) + 0x6ed9eba1) >>> 0, 9);
      c = rotl((c + h(d, a, b) + xi(k + 4) + 0x6ed9eba1) >>> 0, 11);
      b = rotl((b + h(c, d, a) + xi(k + 12) + 0x6ed9eba1) >>> 0, 15);
    }

    a = (a + aa) >>> 0;
    b = (b + bb) >>> 0;
    c = (c + cc) >>> 0;
    d = (d + dd) >>> 0;
  }

  const out = Buffer.alloc(16);
  out.writeUInt32LE(a, 0);
  out.writeUInt32LE(b, 4);
  out.writeUInt32LE(c, 8);
  out.writeUInt32LE(d, 12);
  return out;
}
