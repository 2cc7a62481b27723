import { describe, expect, it } from 'vitest';
import {
  AvId,
  NtlmClient,
  NtlmServerContext,
  NtlmSessionSecurity,
  computeNtlmV2Response,
  decodeAuthenticate,
  decodeChallenge,
  encodeAvPairs,
  encodeChallenge,
  ntowfv1,
  ntowfv2,
  parseNtlmUser,
  sealKey,
  signKey,
  utf16le,
} from '../../../../../../electron/services/transports/winrm/ntlm';
import { rc4k } from '../../../../../../electron/services/transports/winrm/rc4';

const hex = (value: string): Buffer => Buffer.from(value.replace(/\s+/g, ''), 'hex');

// MS-NLMP 4.2.1 common values and 4.2.4 NTLMv2 examples.
const USER = 'User';
const DOMAIN = 'Domain';
const PASSWORD = 'Password';
const RANDOM_SESSION_KEY = Buffer.alloc(16, 0x55);
const TIME = Buffer.alloc(8);
const CLIENT_CHALLENGE = Buffer.alloc(8, 0xaa);
const SERVER_CHALLENGE = hex('0123456789abcdef');
const SPEC_AV_PAIRS = [
  { id: AvId.NB_DOMAIN_NAME, value: utf16le('Domain') },
  { id: AvId.NB_COMPUTER_NAME, value: utf16le('Server') },
];

const SPEC_CHALLENGE_MESSAGE = hex(`
  4e544c4d53535000 02000000 0c000c00 38000000 33828ae2 0123456789abcdef
  0000000000000000 24002400 44000000 060070170000000f 530065007200760065007200
  02000c0044006f006d00610069006e00 01000c00530065007200760065007200 00000000`);

const SPEC_AUTHENTICATE_MESSAGE = hex(`
  4e544c4d53535000 03000000 18001800 6c000000 54005400 84000000 0c000c00
  48000000 08000800 54000000 10001000 5c000000 10001000 d8000000 358288e2
  0501280a0000000f 44006f006d00610069006e00 550073006500720043004f004d00500055005400450052008
  6c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa 68cd0ab851e51c96aabc927bebef6a1c 0101000000000000
  0000000000000000 aaaaaaaaaaaaaaaa 00000000 02000c0044006f006d00610069006e00
  01000c00530065007200760065007200 0000000000000000 c5dad2544fc9799094ce1ce90bc9d03e`);

describe('NTLMv2 calculations (MS-NLMP 4.2.4.1)', () => {
  it('NTOWFv2("Password", "User", "Domain")', () => {
    expect(ntowfv2(PASSWORD, USER, DOMAIN).toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
  });

  it('NTOWFv1("Password") is the MD4 of its UTF-16LE form', () => {
    expect(ntowfv1(PASSWORD).toString('hex')).toBe('a4f49c406510bdcab6824ee7c30fd852');
  });

  it('LMv2 response, NTProofStr, session base key and encrypted session key', () => {
    const response = computeNtlmV2Response({
      responseKeyNt: ntowfv2(PASSWORD, USER, DOMAIN),
      serverChallenge: SERVER_CHALLENGE,
      clientChallenge: CLIENT_CHALLENGE,
      timestamp: TIME,
      avPairs: encodeAvPairs(SPEC_AV_PAIRS),
    });
    expect(response.lmChallengeResponse.toString('hex')).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
    expect(response.ntProofStr.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(response.sessionBaseKey.toString('hex')).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
    expect(rc4k(response.sessionBaseKey, RANDOM_SESSION_KEY).toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
  });

  it('SEALKEY and SIGNKEY (client-to-server) of 4.2.4.4', () => {
    expect(sealKey(RANDOM_SESSION_KEY, 'client').toString('hex')).toBe('59f600973cc4960a25480a7c196e4c58');
    expect(signKey(RANDOM_SESSION_KEY, 'client').toString('hex')).toBe('4788dc861b4782f35d43fd98fe1a2d39');
  });
});

describe('NTLM messages (MS-NLMP 4.2.4.3)', () => {
  it('encodes the CHALLENGE_MESSAGE byte for byte', () => {
    const message = encodeChallenge({
      flags: 0xe28a8233,
      serverChallenge: SERVER_CHALLENGE,
      targetName: 'Server',
      targetInfo: SPEC_AV_PAIRS,
      version: hex('060070170000000f'),
    });
    expect(message.toString('hex')).toBe(SPEC_CHALLENGE_MESSAGE.toString('hex'));
    const decoded = decodeChallenge(message);
    expect(decoded.flags >>> 0).toBe(0xe28a8233);
    expect(decoded.targetName).toBe('Server');
    expect(decoded.serverChallenge.equals(SERVER_CHALLENGE)).toBe(true);
    expect(decoded.targetInfo.map((pair) => pair.id)).toEqual([AvId.NB_DOMAIN_NAME, AvId.NB_COMPUTER_NAME]);
  });

  it('the client produces the AUTHENTICATE_MESSAGE of the spec from its CHALLENGE_MESSAGE', () => {
    const randoms = [CLIENT_CHALLENGE, RANDOM_SESSION_KEY];
    const client = new NtlmClient({
      identity: { user: USER, domain: DOMAIN, password: PASSWORD },
      workstation: 'COMPUTER',
      now: () => -11_644_473_600_000, // FILETIME 0, the spec's Time
      random: (size) => {
        const next = randoms.shift();
        if (!next || next.length !== size) throw new Error('unexpected random request');
        return next;
      },
      version: hex('0501280a0000000f'),
    });
    client.negotiate();
    const { message } = client.authenticate(SPEC_CHALLENGE_MESSAGE);
    expect(message.toString('hex')).toBe(SPEC_AUTHENTICATE_MESSAGE.toString('hex'));

    const decoded = decodeAuthenticate(message);
    expect(decoded.user).toBe('User');
    expect(decoded.domain).toBe('Domain');
    expect(decoded.workstation).toBe('COMPUTER');
    expect(decoded.mic).toBeNull();
  });
});

describe('GSS_WrapEx (MS-NLMP 4.2.4.4)', () => {
  it('seals "Plaintext" and signs it with sequence number 0', () => {
    const security = new NtlmSessionSecurity(RANDOM_SESSION_KEY, 'client');
    const { sealed, signature } = security.wrap(utf16le('Plaintext'));
    expect(sealed.toString('hex')).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(signature.toString('hex')).toBe('010000007fb38ec5c55d497600000000');
  });

  it('a server-role context unwraps what the client wrapped, in sequence, and rejects tampering and replay', () => {
    const client = new NtlmSessionSecurity(RANDOM_SESSION_KEY, 'client');
    const server = new NtlmSessionSecurity(RANDOM_SESSION_KEY, 'server');
    for (const text of ['first message', 'second, longer message with more bytes', '']) {
      const { sealed, signature } = client.wrap(Buffer.from(text));
      expect(server.unwrap(sealed, signature).toString()).toBe(text);
    }
    const reply = server.wrap(Buffer.from('reply'));
    expect(client.unwrap(reply.sealed, reply.signature).toString()).toBe('reply');

    const tampered = client.wrap(Buffer.from('pay 10'));
    tampered.sealed[4] = (tampered.sealed[4] as number) ^ 0x01;
    expect(() => server.unwrap(tampered.sealed, tampered.signature)).toThrow(/signature does not match/);
  });

  it('rejects a message signed for another sequence number', () => {
    const client = new NtlmSessionSecurity(RANDOM_SESSION_KEY, 'client');
    const server = new NtlmSessionSecurity(RANDOM_SESSION_KEY, 'server');
    client.wrap(Buffer.from('skipped'));
    const second = client.wrap(Buffer.from('second'));
    expect(() => server.unwrap(second.sealed, second.signature)).toThrow(/signature/);
  });
});

describe('client and server NTLM exchange', () => {
  function server(password = 'S3cret!', certificateHash?: Buffer): NtlmServerContext {
    return new NtlmServerContext({
      computerName: 'WIN-NODE-1',
      dnsComputerName: 'win-node-1.example.internal',
      lookupPassword: (user) => (user.toLowerCase() === 'administrator' ? password : null),
      ...(certificateHash ? { certificateHash } : {}),
    });
  }

  it('authenticates, adds a MIC when the server sends a timestamp, and agrees on session keys', () => {
    const client = new NtlmClient({ identity: parseNtlmUser('WIN-NODE-1\\Administrator', 'S3cret!') });
    const ctx = server();
    const challenge = ctx.challenge(client.negotiate());
    if (!challenge.ok) throw new Error(challenge.reason);
    const { message, security } = client.authenticate(challenge.message);
    expect(decodeAuthenticate(message).mic).not.toBeNull();
    const accepted = ctx.accept(message);
    if (!accepted.ok) throw new Error(accepted.reason);
    expect(accepted.user).toBe('Administrator');
    const wrapped = security.wrap(Buffer.from('<s:Envelope/>'));
    expect(accepted.security.unwrap(wrapped.sealed, wrapped.signature).toString()).toBe('<s:Envelope/>');
  });

  it('refuses a wrong password, an unknown user and a modified MIC', () => {
    const wrong = new NtlmClient({ identity: parseNtlmUser('Administrator', 'nope') });
    const ctx1 = server();
    const c1 = ctx1.challenge(wrong.negotiate());
    if (!c1.ok) throw new Error(c1.reason);
    expect(ctx1.accept(wrong.authenticate(c1.message).message)).toEqual({ ok: false, reason: 'wrong password' });

    const stranger = new NtlmClient({ identity: parseNtlmUser('mallory', 'S3cret!') });
    const ctx2 = server();
    const c2 = ctx2.challenge(stranger.negotiate());
    if (!c2.ok) throw new Error(c2.reason);
    expect(ctx2.accept(stranger.authenticate(c2.message).message)).toEqual({ ok: false, reason: 'unknown user' });

    const good = new NtlmClient({ identity: parseNtlmUser('Administrator', 'S3cret!') });
    const ctx3 = server();
    const c3 = ctx3.challenge(good.negotiate());
    if (!c3.ok) throw new Error(c3.reason);
    const message = good.authenticate(c3.message).message;
    message[80] = (message[80] as number) ^ 0xff;
    expect(ctx3.accept(message)).toEqual({ ok: false, reason: 'MIC does not match' });
  });

  it('checks channel bindings against the TLS certificate hash', () => {
    const certHash = Buffer.alloc(32, 0x11);
    const ok = new NtlmClient({ identity: parseNtlmUser('Administrator', 'S3cret!'), certificateHash: certHash });
    const ctx = server('S3cret!', certHash);
    const c = ctx.challenge(ok.negotiate());
    if (!c.ok) throw new Error(c.reason);
    expect(ctx.accept(ok.authenticate(c.message).message).ok).toBe(true);

    const other = new NtlmClient({ identity: parseNtlmUser('Administrator', 'S3cret!'), certificateHash: Buffer.alloc(32, 0x22) });
    const ctx2 = server('S3cret!', certHash);
    const c2 = ctx2.challenge(other.negotiate());
    if (!c2.ok) throw new Error(c2.reason);
    expect(ctx2.accept(other.authenticate(c2.message).message)).toEqual({
      ok: false,
      reason: 'channel binding does not match this TLS certificate',
    });
  });

  it('the client refuses a server that will not seal', () => {
    const client = new NtlmClient({ identity: parseNtlmUser('Administrator', 'x') });
    client.negotiate();
    const weak = encodeChallenge({
      flags: 0x00028233 | 0x00800000, // no 128-bit, no key exchange, no extended session security
      serverChallenge: SERVER_CHALLENGE,
      targetName: 'Server',
      targetInfo: SPEC_AV_PAIRS,
    });
    expect(() => client.authenticate(weak)).toThrow(/did not agree to NTLMv2/);
  });

  it('parses DOMAIN\\user and user@realm like requests-ntlm', () => {
    expect(parseNtlmUser('corp\\alice', 'p')).toEqual({ domain: 'CORP', user: 'alice', password: 'p' });
    expect(parseNtlmUser('alice@corp.example', 'p')).toEqual({ domain: '', user: 'alice@corp.example', password: 'p' });
  });
});
