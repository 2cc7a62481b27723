import crypto from 'node:crypto';
import net from 'node:net';

/**
 * A minimal X.509 v3 certificate writer (DER by hand, ECDSA P-256 + SHA-256 via node:crypto), enough for the
 * simulator's CA, server and client certificates. Node can verify certificates but not create them, and the
 * demo must run where no `openssl` binary exists (Windows laptops), so the ~150 lines live here.
 */

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const octets = (b: Buffer) => tlv(0x04, b);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));

function integer(value: Buffer | number): Buffer {
  let b = typeof value === 'number' ? Buffer.from([value]) : value;
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && (b[i + 1]! & 0x80) === 0) i++;
  b = b.subarray(i);
  if ((b[0]! & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const stack: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) stack.unshift((v & 0x7f) | 0x80);
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const pad = (n: number) => String(n).padStart(2, '0');
  const y = d.getUTCFullYear();
  const body = `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
  return y < 2050 ? tlv(0x17, Buffer.from(`${pad(y % 100)}${body}`)) : tlv(0x18, Buffer.from(`${y}${body}`));
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

export interface DistinguishedName {
  commonName: string;
  organizations?: string[];
}

function name(dn: DistinguishedName): Buffer {
  const rdns = [...(dn.organizations ?? []).map((o) => set(seq(oid(OID.organization), utf8(o)))), set(seq(oid(OID.commonName), utf8(dn.commonName)))];
  return seq(...rdns);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function keyId(publicKey: crypto.KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return crypto.createHash('sha1').update(spki).digest();
}

export interface CertificateRequest {
  subject: DistinguishedName;
  publicKey: crypto.KeyObject;
  /** Signs the certificate; the subject's own key for a self-signed CA. */
  issuerKey: crypto.KeyObject;
  issuer: DistinguishedName;
  issuerPublicKey: crypto.KeyObject;
  isCa: boolean;
  serverAuth?: boolean;
  clientAuth?: boolean;
  dnsNames?: string[];
  ipAddresses?: string[];
  notBefore: Date;
  notAfter: Date;
}

/** Create a DER certificate and return it as PEM. */
export function createCertificate(req: CertificateRequest): string {
  const exts: Buffer[] = [];
  exts.push(extension(OID.basicConstraints, true, req.isCa ? seq(bool(true)) : seq()));
  // keyUsage bits: digitalSignature(0) keyEncipherment(2) keyCertSign(5) cRLSign(6).
  exts.push(extension(OID.keyUsage, true, req.isCa ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0xa0]), 5)));
  const eku = [...(req.serverAuth ? [oid(OID.serverAuth)] : []), ...(req.clientAuth ? [oid(OID.clientAuth)] : [])];
  if (eku.length > 0) exts.push(extension(OID.extKeyUsage, false, seq(...eku)));
  const san: Buffer[] = [];
  for (const dns of req.dnsNames ?? []) san.push(tlv(0x82, Buffer.from(dns, 'ascii')));
  for (const ip of req.ipAddresses ?? []) {
    if (net.isIPv4(ip)) san.push(tlv(0x87, Buffer.from(ip.split('.').map(Number))));
  }
  if (san.length > 0) exts.push(extension(OID.subjectAltName, false, seq(...san)));
  exts.push(extension(OID.subjectKeyId, false, octets(keyId(req.publicKey))));
  exts.push(extension(OID.authorityKeyId, false, seq(tlv(0x80, keyId(req.issuerPublicKey)))));

  const serial = crypto.randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const sigAlg = seq(oid(OID.ecdsaWithSha256));
  const tbs = seq(
    tlv(0xa0, integer(2)),
    integer(serial),
    sigAlg,
    name(req.issuer),
    seq(time(req.notBefore), time(req.notAfter)),
    name(req.subject),
    req.publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...exts)),
  );
  const signature = crypto.sign('sha256', tbs, { key: req.issuerKey, dsaEncoding: 'der' });
  const der = seq(tbs, sigAlg, bits(signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd();
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

export function generateKey(): { privateKey: crypto.KeyObject; publicKey: crypto.KeyObject } {
  return crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export function privateKeyPem(key: crypto.KeyObject): string {
  // SEC1 ("EC PRIVATE KEY") is what kubeadm writes and every client reads.
  return key.export({ type: 'sec1', format: 'pem' }).toString();
}
