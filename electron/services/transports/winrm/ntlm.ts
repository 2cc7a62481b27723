import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { md4 } from './md4';
import { Rc4, rc4k } from './rc4';

/**
 * NTLM (MS-NLMP) for WS-Management: NTLMv2 only, with extended session security, 128-bit key exchange,
 * signing and sealing. Both sides live here: the client half authenticates Windeck, the server half lets the
 * Windows node simulator verify real clients (Windeck and pywinrm). Anything weaker (NTLMv1, LM, 40/56-bit
 * keys, no sealing) is refused on both sides, like a hardened Windows host.
 */

export const NTLMSSP_SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');

export const NtlmFlag = {
  UNICODE: 0x0000_0001,
  OEM: 0x0000_0002,
  REQUEST_TARGET: 0x0000_0004,
  SIGN: 0x0000_0010,
  SEAL: 0x0000_0020,
  LM_KEY: 0x0000_0080,
  NTLM: 0x0000_0200,
  ANONYMOUS: 0x0000_0800,
  OEM_DOMAIN_SUPPLIED: 0x0000_1000,
  OEM_WORKSTATION_SUPPLIED: 0x0000_2000,
  ALWAYS_SIGN: 0x0000_8000,
  TARGET_TYPE_DOMAIN: 0x0001_0000,
  TARGET_TYPE_SERVER: 0x0002_0000,
  EXTENDED_SESSIONSECURITY: 0x0008_0000,
  IDENTIFY: 0x0010_0000,
  REQUEST_NON_NT_SESSION_KEY: 0x0040_0000,
  TARGET_INFO: 0x0080_0000,
  VERSION: 0x0200_0000,
  NEGOTIATE_128: 0x2000_0000,
  KEY_EXCH: 0x4000_0000,
  NEGOTIATE_56: 0x8000_0000,
} as const;

/** Flags both sides insist on: NTLMv2 session security with 128-bit sealing. */
export const NTLM_REQUIRED_FLAGS = NtlmFlag.EXTENDED_SESSIONSECURITY | NtlmFlag.SIGN | NtlmFlag.SEAL | NtlmFlag.NEGOTIATE_128 | NtlmFlag.KEY_EXCH;

export const NTLM_CLIENT_FLAGS =
  NtlmFlag.UNICODE |
  NtlmFlag.OEM |
  NtlmFlag.REQUEST_TARGET |
  NtlmFlag.SIGN |
  NtlmFlag.SEAL |
  NtlmFlag.NTLM |
  NtlmFlag.ALWAYS_SIGN |
  NtlmFlag.EXTENDED_SESSIONSECURITY |
  NtlmFlag.VERSION |
  NtlmFlag.NEGOTIATE_128 |
  NtlmFlag.KEY_EXCH |
  NtlmFlag.NEGOTIATE_56;

export const AvId = {
  EOL: 0,
  NB_COMPUTER_NAME: 1,
  NB_DOMAIN_NAME: 2,
  DNS_COMPUTER_NAME: 3,
  DNS_DOMAIN_NAME: 4,
  DNS_TREE_NAME: 5,
  FLAGS: 6,
  TIMESTAMP: 7,
  SINGLE_HOST: 8,
  TARGET_NAME: 9,
  CHANNEL_BINDINGS: 10,
} as const;

const AV_FLAG_MIC_PROVIDED = 0x2;

const CLIENT_SIGNING = Buffer.from('session key to client-to-server signing key magic constant\0', 'latin1');
const SERVER_SIGNING = Buffer.from('session key to server-to-client signing key magic constant\0', 'latin1');
const CLIENT_SEALING = Buffer.from('session key to client-to-server sealing key magic constant\0', 'latin1');
const SERVER_SEALING = Buffer.from('session key to server-to-client sealing key magic constant\0', 'latin1');

/** Version structure (MS-NLMP 2.2.2.10): 10.0 build 17763 (Server 2019), NTLMSSP_REVISION_W2K3. */
export const NTLM_VERSION = Buffer.from([10, 0, 0x63, 0x45, 0, 0, 0, 0x0f]);

export class NtlmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NtlmError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Hash functions (MS-NLMP 3.3.2, 3.4.5)

export function hmacMd5(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const mac = createHmac('md5', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

function md5(...parts: Uint8Array[]): Buffer {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

export function utf16le(value: string): Buffer {
  return Buffer.from(value, 'utf16le');
}

/** NTOWFv1(Passwd) = MD4(UNICODE(Passwd)). */
export function ntowfv1(password: string): Buffer {
  return md4(utf16le(password));
}

/** NTOWFv2(Passwd, User, UserDom) = HMAC_MD5(MD4(UNICODE(Passwd)), UNICODE(ConcatenationOf(Uppercase(User), UserDom))). */
export function ntowfv2(password: string, user: string, domain: string): Buffer {
  return hmacMd5(ntowfv1(password), utf16le(user.toUpperCase() + domain));
}

export interface NtlmV2Response {
  ntChallengeResponse: Buffer;
  lmChallengeResponse: Buffer;
  ntProofStr: Buffer;
  sessionBaseKey: Buffer;
}

/** The NTLMv2_CLIENT_CHALLENGE ("temp") of MS-NLMP 3.3.2. */
export function ntlmV2Temp(timestamp: Uint8Array, clientChallenge: Uint8Array, avPairs: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]), timestamp, clientChallenge, Buffer.alloc(4), avPairs, Buffer.alloc(4)]);
}

/** ComputeResponse for NTLMv2 (MS-NLMP 3.3.2). */
export function computeNtlmV2Response(input: {
  responseKeyNt: Buffer;
  serverChallenge: Uint8Array;
  clientChallenge: Uint8Array;
  timestamp: Uint8Array;
  avPairs: Uint8Array;
}): NtlmV2Response {
  const temp = ntlmV2Temp(input.timestamp, input.clientChallenge, input.avPairs);
  const ntProofStr = hmacMd5(input.responseKeyNt, input.serverChallenge, temp);
  const lmProof = hmacMd5(input.responseKeyNt, input.serverChallenge, input.clientChallenge);
  return {
    ntChallengeResponse: Buffer.concat([ntProofStr, temp]),
    lmChallengeResponse: Buffer.concat([lmProof, input.clientChallenge]),
    ntProofStr,
    sessionBaseKey: hmacMd5(input.responseKeyNt, ntProofStr),
  };
}

export function signKey(exportedSessionKey: Uint8Array, role: 'client' | 'server'): Buffer {
  return md5(exportedSessionKey, role === 'client' ? CLIENT_SIGNING : SERVER_SIGNING);
}

/** SEALKEY with extended session security and NTLMSSP_NEGOTIATE_128 (the only mode allowed here). */
export function sealKey(exportedSessionKey: Uint8Array, role: 'client' | 'server'): Buffer {
  return md5(exportedSessionKey, role === 'client' ? CLIENT_SEALING : SERVER_SEALING);
}

/** Windows FILETIME: 100 ns ticks since 1601-01-01, 8 bytes little-endian. */
export function windowsTimestamp(nowMs: number): Buffer {
  const ticks = (BigInt(Math.floor(nowMs)) + 11_644_473_600_000n) * 10_000n;
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(ticks);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// AV pairs (MS-NLMP 2.2.2.1)

export type AvPairs = Array<{ id: number; value: Buffer }>;

export function encodeAvPairs(pairs: AvPairs): Buffer {
  const parts: Buffer[] = [];
  for (const pair of pairs) {
    if (pair.id === AvId.EOL) continue;
    const head = Buffer.alloc(4);
    head.writeUInt16LE(pair.id, 0);
    head.writeUInt16LE(pair.value.length, 2);
    parts.push(head, pair.value);
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

export function decodeAvPairs(data: Buffer): AvPairs {
  const pairs: AvPairs = [];
  let offset = 0;
  while (offset + 4 <= data.length) {
    const id = data.readUInt16LE(offset);
    const length = data.readUInt16LE(offset + 2);
    offset += 4;
    if (id === AvId.EOL) return pairs;
    if (offset + length > data.length) throw new NtlmError('truncated AV pair');
    pairs.push({ id, value: Buffer.from(data.subarray(offset, offset + length)) });
    offset += length;
  }
  throw new NtlmError('AV pair list has no terminator');
}

// ---------------------------------------------------------------------------------------------------------
// Messages (MS-NLMP 2.2.1)

function readField(message: Buffer, at: number): Buffer {
  if (at + 8 > message.length) throw new NtlmError('truncated NTLM message');
  const length = message.readUInt16LE(at);
  const offset = message.readUInt32LE(at + 4);
  if (length === 0) return Buffer.alloc(0);
  if (offset + length > message.length) throw new NtlmError('NTLM field points outside the message');
  return Buffer.from(message.subarray(offset, offset + length));
}

function checkHeader(message: Buffer, type: number): void {
  if (message.length < 12 || !message.subarray(0, 8).equals(NTLMSSP_SIGNATURE)) {
    throw new NtlmError('not an NTLMSSP message');
  }
  const actual = message.readUInt32LE(8);
  if (actual !== type) throw new NtlmError(`expected NTLM message type ${type}, got ${actual}`);
}

/** Lays out fixed header + (len, maxlen, offset) fields + payload, in the order given. */
function assemble(head: Buffer, fieldOffsets: number[], payloads: Buffer[], fixedLength: number): Buffer {
  let offset = fixedLength;
  fieldOffsets.forEach((at, index) => {
    const payload = payloads[index] as Buffer;
    head.writeUInt16LE(payload.length, at);
    head.writeUInt16LE(payload.length, at + 2);
    head.writeUInt32LE(offset, at + 4);
    offset += payload.length;
  });
  return Buffer.concat([head, ...payloads]);
}

export interface NegotiateMessage {
  flags: number;
  domain: string;
  workstation: string;
}

export function encodeNegotiate(flags: number): Buffer {
  const head = Buffer.alloc(40);
  NTLMSSP_SIGNATURE.copy(head, 0);
  head.writeUInt32LE(1, 8);
  head.writeUInt32LE(flags >>> 0, 12);
  NTLM_VERSION.copy(head, 32);
  return assemble(head, [16, 24], [Buffer.alloc(0), Buffer.alloc(0)], 40);
}

export function decodeNegotiate(message: Buffer): NegotiateMessage {
  checkHeader(message, 1);
  if (message.length < 16) throw new NtlmError('truncated NEGOTIATE_MESSAGE');
  const flags = message.readUInt32LE(12);
  const domain = message.length >= 24 ? readField(message, 16).toString('latin1') : '';
  const workstation = message.length >= 32 ? readField(message, 24).toString('latin1') : '';
  return { flags, domain, workstation };
}

export interface ChallengeMessage {
  flags: number;
  serverChallenge: Buffer;
  targetName: string;
  targetInfo: AvPairs;
  targetInfoRaw: Buffer;
}

export function encodeChallenge(input: { flags: number; serverChallenge: Buffer; targetName: string; targetInfo: AvPairs; version?: Buffer }): Buffer {
  const head = Buffer.alloc(56);
  NTLMSSP_SIGNATURE.copy(head, 0);
  head.writeUInt32LE(2, 8);
  head.writeUInt32LE(input.flags >>> 0, 20);
  input.serverChallenge.copy(head, 24);
  (input.version ?? NTLM_VERSION).copy(head, 48);
  const name = input.flags & NtlmFlag.UNICODE ? utf16le(input.targetName) : Buffer.from(input.targetName, 'latin1');
  return assemble(head, [12, 40], [name, encodeAvPairs(input.targetInfo)], 56);
}

export function decodeChallenge(message: Buffer): ChallengeMessage {
  checkHeader(message, 2);
  if (message.length < 48) throw new NtlmError('truncated CHALLENGE_MESSAGE');
  const flags = message.readUInt32LE(20);
  const nameBytes = readField(message, 12);
  const targetInfoRaw = flags & NtlmFlag.TARGET_INFO ? readField(message, 40) : Buffer.alloc(0);
  return {
    flags,
    serverChallenge: Buffer.from(message.subarray(24, 32)),
    targetName: flags & NtlmFlag.UNICODE ? nameBytes.toString('utf16le') : nameBytes.toString('latin1'),
    targetInfo: targetInfoRaw.length > 0 ? decodeAvPairs(targetInfoRaw) : [],
    targetInfoRaw,
  };
}

export interface AuthenticateMessage {
  flags: number;
  lmChallengeResponse: Buffer;
  ntChallengeResponse: Buffer;
  domain: string;
  user: string;
  workstation: string;
  encryptedRandomSessionKey: Buffer;
  /** 16 bytes when present (offset 72), else null. */
  mic: Buffer | null;
  micOffset: number | null;
}

const AUTH_FIXED_LENGTH = 72;
const AUTH_FIXED_LENGTH_WITH_MIC = 88;

export function encodeAuthenticate(input: {
  flags: number;
  lmChallengeResponse: Buffer;
  ntChallengeResponse: Buffer;
  domain: string;
  user: string;
  workstation: string;
  encryptedRandomSessionKey: Buffer;
  withMic: boolean;
  version?: Buffer;
}): Buffer {
  const fixed = input.withMic ? AUTH_FIXED_LENGTH_WITH_MIC : AUTH_FIXED_LENGTH;
  const head = Buffer.alloc(fixed);
  NTLMSSP_SIGNATURE.copy(head, 0);
  head.writeUInt32LE(3, 8);
  head.writeUInt32LE(input.flags >>> 0, 60);
  (input.version ?? NTLM_VERSION).copy(head, 64);
  const text = (value: string): Buffer => (input.flags & NtlmFlag.UNICODE ? utf16le(value) : Buffer.from(value, 'latin1'));
  // Field order in the payload follows Windows: domain, user, workstation, LM, NT, session key.
  const fields: Array<[number, Buffer]> = [
    [28, text(input.domain)],
    [36, text(input.user)],
    [44, text(input.workstation)],
    [12, input.lmChallengeResponse],
    [20, input.ntChallengeResponse],
    [52, input.encryptedRandomSessionKey],
  ];
  return assemble(
    head,
    fields.map(([at]) => at),
    fields.map(([, payload]) => payload),
    fixed,
  );
}

export function decodeAuthenticate(message: Buffer): AuthenticateMessage {
  checkHeader(message, 3);
  if (message.length < 64) throw new NtlmError('truncated AUTHENTICATE_MESSAGE');
  const flags = message.readUInt32LE(60);
  const text = (raw: Buffer): string => (flags & NtlmFlag.UNICODE ? raw.toString('utf16le') : raw.toString('latin1'));
  // The payload starts at the lowest field offset; a MIC sits at 72..88 when the payload starts at >= 88.
  const offsets = [12, 20, 28, 36, 44, 52]
    .map((at) => ({ length: message.readUInt16LE(at), offset: message.readUInt32LE(at + 4) }))
    .filter((field) => field.length > 0)
    .map((field) => field.offset);
  const payloadStart = offsets.length > 0 ? Math.min(...offsets) : message.length;
  const hasMic = payloadStart >= AUTH_FIXED_LENGTH_WITH_MIC && message.length >= AUTH_FIXED_LENGTH_WITH_MIC;
  return {
    flags,
    lmChallengeResponse: readField(message, 12),
    ntChallengeResponse: readField(message, 20),
    domain: text(readField(message, 28)),
    user: text(readField(message, 36)),
    workstation: text(readField(message, 44)),
    encryptedRandomSessionKey: readField(message, 52),
    mic: hasMic ? Buffer.from(message.subarray(72, 88)) : null,
    micOffset: hasMic ? 72 : null,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Session security (MS-NLMP 3.4): GSS_WrapEx / GSS_UnwrapEx with extended session security and key exchange.

export class NtlmSessionSecurity {
  private readonly outgoingSignKey: Buffer;
  private readonly incomingSignKey: Buffer;
  private readonly outgoingSeal: Rc4;
  private readonly incomingSeal: Rc4;
  private outgoingSeq = 0;
  private incomingSeq = 0;

  constructor(exportedSessionKey: Buffer, role: 'client' | 'server') {
    const peer = role === 'client' ? 'server' : 'client';
    this.outgoingSignKey = signKey(exportedSessionKey, role);
    this.incomingSignKey = signKey(exportedSessionKey, peer);
    this.outgoingSeal = new Rc4(sealKey(exportedSessionKey, role));
    this.incomingSeal = new Rc4(sealKey(exportedSessionKey, peer));
  }

  /** Seals `message`: returns the RC4 ciphertext and the 16-byte NTLMSSP_MESSAGE_SIGNATURE. */
  wrap(message: Uint8Array): { sealed: Buffer; signature: Buffer } {
    const sealed = this.outgoingSeal.update(message);
    const signature = this.sign(message, this.outgoingSignKey, this.outgoingSeal, this.outgoingSeq);
    this.outgoingSeq += 1;
    return { sealed, signature };
  }

  /** Unseals and verifies; throws NtlmError when the signature or sequence number does not match. */
  unwrap(sealed: Uint8Array, signature: Uint8Array): Buffer {
    if (signature.length !== 16) throw new NtlmError('NTLM signature must be 16 bytes');
    const message = this.incomingSeal.update(sealed);
    const expected = this.sign(message, this.incomingSignKey, this.incomingSeal, this.incomingSeq);
    if (!timingSafeEqual(expected, Buffer.from(signature))) {
      throw new NtlmError('NTLM message signature does not match: the message was altered or is out of sequence');
    }
    this.incomingSeq += 1;
    return message;
  }

  private sign(message: Uint8Array, key: Buffer, seal: Rc4, seq: number): Buffer {
    const seqBytes = Buffer.alloc(4);
    seqBytes.writeUInt32LE(seq >>> 0);
    const checksum = seal.update(hmacMd5(key, seqBytes, message).subarray(0, 8));
    return Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, seqBytes]);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Channel binding (RFC 5929 tls-server-end-point, wrapped in gss_channel_bindings_struct as NTLM wants it).

export function channelBindingHash(certificateHash: Buffer): Buffer {
  const appData = Buffer.concat([Buffer.from('tls-server-end-point:', 'latin1'), certificateHash]);
  const struct = Buffer.alloc(20);
  struct.writeUInt32LE(appData.length, 16);
  return md5(struct, appData);
}

// ---------------------------------------------------------------------------------------------------------
// Client

export interface NtlmIdentity {
  user: string;
  domain: string;
  password: string;
}

/** Splits `DOMAIN\user` (domain upper-cased, as Windows and requests-ntlm do); `user@realm` stays whole. */
export function parseNtlmUser(username: string, password: string): NtlmIdentity {
  const slash = username.indexOf('\\');
  if (slash >= 0) {
    return { domain: username.slice(0, slash).toUpperCase(), user: username.slice(slash + 1), password };
  }
  return { domain: '', user: username, password };
}

export interface NtlmClientOptions {
  identity: NtlmIdentity;
  workstation?: string;
  /** SHA-2 hash of the server certificate (RFC 5929) when NTLM runs inside TLS. */
  certificateHash?: Buffer;
  now?: () => number;
  random?: (size: number) => Buffer;
  /** VERSION field sent; defaults to NTLM_VERSION (tests use the MS-NLMP example value). */
  version?: Buffer;
}

export class NtlmClient {
  private negotiateMessage: Buffer | null = null;
  private readonly now: () => number;
  private readonly random: (size: number) => Buffer;

  constructor(private readonly options: NtlmClientOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? randomBytes;
  }

  negotiate(): Buffer {
    this.negotiateMessage = encodeNegotiate(NTLM_CLIENT_FLAGS);
    return this.negotiateMessage;
  }

  /** Answers the server's CHALLENGE_MESSAGE; returns the AUTHENTICATE_MESSAGE and the session security. */
  authenticate(challengeBytes: Buffer): { message: Buffer; security: NtlmSessionSecurity } {
    if (!this.negotiateMessage) throw new NtlmError('negotiate() must come first');
    const challenge = decodeChallenge(challengeBytes);
    const missing = NTLM_REQUIRED_FLAGS & ~challenge.flags;
    if (missing !== 0) {
      throw new NtlmError(`the server did not agree to NTLMv2 with 128-bit signing and sealing (missing flags 0x${(missing >>> 0).toString(16)})`);
    }
    if (!(challenge.flags & NtlmFlag.TARGET_INFO) || challenge.targetInfo.length === 0) {
      throw new NtlmError('the server sent no target information, so NTLMv2 is not possible');
    }
    // The client answers with the agreed flags: no target type, one character set, its own REQUEST_TARGET.
    let flags = challenge.flags & ~(NtlmFlag.TARGET_TYPE_DOMAIN | NtlmFlag.TARGET_TYPE_SERVER);
    if (flags & NtlmFlag.UNICODE) flags &= ~NtlmFlag.OEM;
    flags = (flags | (NTLM_CLIENT_FLAGS & NtlmFlag.REQUEST_TARGET)) >>> 0;
    const { identity } = this.options;
    const serverTimestamp = challenge.targetInfo.find((pair) => pair.id === AvId.TIMESTAMP)?.value;
    const withMic = serverTimestamp !== undefined;

    const pairs: AvPairs = challenge.targetInfo.filter((pair) => pair.id !== AvId.FLAGS && pair.id !== AvId.CHANNEL_BINDINGS);
    const existingFlags = challenge.targetInfo.find((pair) => pair.id === AvId.FLAGS)?.value;
    let avFlags = existingFlags && existingFlags.length === 4 ? existingFlags.readUInt32LE(0) : 0;
    if (withMic) avFlags |= AV_FLAG_MIC_PROVIDED;
    if (avFlags !== 0) {
      const value = Buffer.alloc(4);
      value.writeUInt32LE(avFlags >>> 0);
      pairs.push({ id: AvId.FLAGS, value });
    }
    if (this.options.certificateHash) {
      pairs.push({ id: AvId.CHANNEL_BINDINGS, value: channelBindingHash(this.options.certificateHash) });
    }

    const timestamp = serverTimestamp ?? windowsTimestamp(this.now());
    const clientChallenge = this.random(8);
    const responseKeyNt = ntowfv2(identity.password, identity.user, identity.domain);
    const response = computeNtlmV2Response({
      responseKeyNt,
      serverChallenge: challenge.serverChallenge,
      clientChallenge,
      timestamp,
      avPairs: encodeAvPairs(pairs),
    });
    // With a server timestamp the client sends Z(24) as LmChallengeResponse (MS-NLMP 3.1.5.1.2).
    const lmChallengeResponse = withMic ? Buffer.alloc(24) : response.lmChallengeResponse;
    const keyExchangeKey = response.sessionBaseKey;
    const exportedSessionKey = this.random(16);
    const encryptedRandomSessionKey = rc4k(keyExchangeKey, exportedSessionKey);

    const message = encodeAuthenticate({
      flags,
      lmChallengeResponse,
      ntChallengeResponse: response.ntChallengeResponse,
      domain: identity.domain,
      user: identity.user,
      workstation: this.options.workstation ?? '',
      encryptedRandomSessionKey,
      withMic,
      ...(this.options.version ? { version: this.options.version } : {}),
    });
    if (withMic) {
      const mic = hmacMd5(exportedSessionKey, this.negotiateMessage, challengeBytes, message);
      mic.copy(message, 72);
    }
    return { message, security: new NtlmSessionSecurity(exportedSessionKey, 'client') };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Server (used by the Windows node simulator)

export interface NtlmServerOptions {
  /** NetBIOS computer name, also used as the domain of local accounts. */
  computerName: string;
  dnsComputerName: string;
  /** Returns the password of a local account, or null. Names compare case-insensitively, like Windows. */
  lookupPassword: (user: string, domain: string) => string | null;
  /** SHA-2 certificate hash when the server runs TLS; a client that sends channel bindings must match it. */
  certificateHash?: Buffer;
  now?: () => number;
  random?: (size: number) => Buffer;
}

export type NtlmAcceptResult = { ok: true; user: string; domain: string; security: NtlmSessionSecurity } | { ok: false; reason: string };

/** One server-side NTLM exchange on one connection. */
export class NtlmServerContext {
  private negotiateMessage: Buffer | null = null;
  private challengeMessage: Buffer | null = null;
  private serverChallenge: Buffer | null = null;
  private readonly now: () => number;
  private readonly random: (size: number) => Buffer;

  constructor(private readonly options: NtlmServerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? randomBytes;
  }

  /** Answers a NEGOTIATE_MESSAGE with a CHALLENGE_MESSAGE, or refuses a client that cannot seal with NTLMv2. */
  challenge(negotiateBytes: Buffer): { ok: true; message: Buffer } | { ok: false; reason: string } {
    const negotiate = decodeNegotiate(negotiateBytes);
    const missing = NTLM_REQUIRED_FLAGS & ~negotiate.flags;
    if (missing !== 0) {
      return { ok: false, reason: `client did not offer NTLMv2 128-bit signing and sealing (missing 0x${(missing >>> 0).toString(16)})` };
    }
    let flags =
      NtlmFlag.TARGET_INFO |
      NtlmFlag.EXTENDED_SESSIONSECURITY |
      NtlmFlag.SIGN |
      NtlmFlag.SEAL |
      NtlmFlag.NEGOTIATE_128 |
      NtlmFlag.KEY_EXCH |
      NtlmFlag.NTLM |
      NtlmFlag.ALWAYS_SIGN |
      NtlmFlag.REQUEST_TARGET |
      NtlmFlag.TARGET_TYPE_SERVER;
    flags |= negotiate.flags & NtlmFlag.UNICODE ? NtlmFlag.UNICODE : NtlmFlag.OEM;
    flags |= negotiate.flags & (NtlmFlag.VERSION | NtlmFlag.NEGOTIATE_56);
    this.serverChallenge = this.random(8);
    const name = this.options.computerName.toUpperCase();
    this.negotiateMessage = negotiateBytes;
    this.challengeMessage = encodeChallenge({
      flags,
      serverChallenge: this.serverChallenge,
      targetName: name,
      targetInfo: [
        { id: AvId.NB_DOMAIN_NAME, value: utf16le(name) },
        { id: AvId.NB_COMPUTER_NAME, value: utf16le(name) },
        { id: AvId.DNS_DOMAIN_NAME, value: utf16le(this.options.dnsComputerName) },
        { id: AvId.DNS_COMPUTER_NAME, value: utf16le(this.options.dnsComputerName) },
        { id: AvId.TIMESTAMP, value: windowsTimestamp(this.now()) },
      ],
    });
    return { ok: true, message: this.challengeMessage };
  }

  /** Verifies an AUTHENTICATE_MESSAGE (NTLMv2 proof, MIC, channel binding) and derives the session keys. */
  accept(authenticateBytes: Buffer): NtlmAcceptResult {
    if (!this.negotiateMessage || !this.challengeMessage || !this.serverChallenge) {
      return { ok: false, reason: 'AUTHENTICATE_MESSAGE without a preceding challenge on this connection' };
    }
    const auth = decodeAuthenticate(authenticateBytes);
    if (auth.ntChallengeResponse.length < 48) {
      return { ok: false, reason: 'NTLMv1 responses are refused (LmCompatibilityLevel 5)' };
    }
    const missing = NTLM_REQUIRED_FLAGS & ~auth.flags;
    if (missing !== 0) return { ok: false, reason: `client did not accept sealing (missing 0x${(missing >>> 0).toString(16)})` };
    const password = this.options.lookupPassword(auth.user, auth.domain);
    if (password === null) return { ok: false, reason: 'unknown user' };

    const ntProofStr = auth.ntChallengeResponse.subarray(0, 16);
    const temp = auth.ntChallengeResponse.subarray(16);
    // Windows accepts the user's domain as sent, or the computer name, or empty, for a local account.
    const candidates = [...new Set([auth.domain, auth.domain.toUpperCase(), '', this.options.computerName.toUpperCase()])];
    let responseKeyNt: Buffer | null = null;
    for (const domain of candidates) {
      const key = ntowfv2(password, auth.user, domain);
      if (timingSafeEqual(hmacMd5(key, this.serverChallenge, temp), ntProofStr)) {
        responseKeyNt = key;
        break;
      }
    }
    if (!responseKeyNt) return { ok: false, reason: 'wrong password' };

    const clientPairs = temp.length > 28 ? decodeAvPairs(Buffer.from(temp.subarray(28))) : [];
    const sessionBaseKey = hmacMd5(responseKeyNt, ntProofStr);
    if (auth.encryptedRandomSessionKey.length !== 16) return { ok: false, reason: 'no key exchange' };
    const exportedSessionKey = rc4k(sessionBaseKey, auth.encryptedRandomSessionKey);

    const avFlagsValue = clientPairs.find((pair) => pair.id === AvId.FLAGS)?.value;
    const micProvided = avFlagsValue !== undefined && avFlagsValue.length === 4 && (avFlagsValue.readUInt32LE(0) & AV_FLAG_MIC_PROVIDED) !== 0;
    if (micProvided) {
      if (!auth.mic) return { ok: false, reason: 'MIC announced but missing' };
      const zeroed = Buffer.from(authenticateBytes);
      zeroed.fill(0, 72, 88);
      const expected = hmacMd5(exportedSessionKey, this.negotiateMessage, this.challengeMessage, zeroed);
      if (!timingSafeEqual(expected, auth.mic)) return { ok: false, reason: 'MIC does not match' };
    }

    const binding = clientPairs.find((pair) => pair.id === AvId.CHANNEL_BINDINGS)?.value;
    if (binding && !binding.equals(Buffer.alloc(16)) && this.options.certificateHash) {
      if (!binding.equals(channelBindingHash(this.options.certificateHash))) {
        return { ok: false, reason: 'channel binding does not match this TLS certificate' };
      }
    }

    return { ok: true, user: auth.user, domain: auth.domain, security: new NtlmSessionSecurity(exportedSessionKey, 'server') };
  }
}
