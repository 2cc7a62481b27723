/**
 * RC4 stream cipher. NTLM sealing (MS-NLMP 3.4.3) keeps one RC4 state per direction for the whole
 * connection, so this is a stateful handle: every `update` continues the key stream. Node's OpenSSL 3 build
 * refuses `rc4` without the legacy provider, hence this implementation (tested against RFC 6229 vectors and
 * the MS-NLMP 4.2.4 examples).
 */
export class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Uint8Array) {
    if (key.length === 0 || key.length > 256) throw new RangeError('RC4 key must be 1..256 bytes');
    for (let n = 0; n < 256; n += 1) this.s[n] = n;
    let j = 0;
    for (let n = 0; n < 256; n += 1) {
      const sn = this.s[n] as number;
      j = (j + sn + (key[n % key.length] as number)) & 0xff;
      this.s[n] = this.s[j] as number;
      this.s[j] = sn;
    }
  }

  /** Encrypts (or decrypts: the same operation) and advances the key stream. */
  update(data: Uint8Array): Buffer {
    const out = Buffer.allocUnsafe(data.length);
    const s = this.s;
    let i = this.i;
    let j = this.j;
    for (let n = 0; n < data.length; n += 1) {
      i = (i + 1) & 0xff;
      const si = s[i] as number;
      j = (j + si) & 0xff;
      const sj = s[j] as number;
      s[i] = sj;
      s[j] = si;
      out[n] = (data[n] as number) ^ (s[(si + sj) & 0xff] as number);
    }
    this.i = i;
    this.j = j;
    return out;
  }
}

/** One-shot RC4K(K, D) of MS-NLMP: a fresh key state for a single datum. */
export function rc4k(key: Uint8Array, data: Uint8Array): Buffer {
  return new Rc4(key).update(data);
}
