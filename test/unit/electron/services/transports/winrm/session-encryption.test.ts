import { describe, expect, it } from 'vitest';
import { NtlmSessionSecurity } from '../../../../../../electron/services/transports/winrm/ntlm';
import {
  ENCRYPTED_CONTENT_TYPE,
  decryptBody,
  encryptBody,
  isEncryptedContentType,
} from '../../../../../../electron/services/transports/winrm/session-encryption';

// Produced by pywinrm 0.3.0 (winrm/encryption.py `_encrypt_message`) with ntlm-auth 1.4.0 SessionSecurity,
// flags 0xe2888235, exported session key 0x55 * 16: an independent implementation of the same framing and
// sealing. The client sealed two requests in sequence; the server sealed one reply.
const PYWINRM_CLIENT_BODIES = [
  '2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f485454502d53504e45474f2d73657373696f6e2d656e637279707465640d0a094f726967696e616c436f6e74656e743a20747970653d6170706c69636174696f6e2f736f61702b786d6c3b636861727365743d5554462d383b4c656e6774683d33380d0a2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f6f637465742d73747265616d0d0a100000000100000097684e4c7a47b3b40000000038965720b06f3ab0981031ff82720575fb7f7de3d7e152787e431bb05ea591d43a8bf553346d2d2d456e6372797074656420426f756e646172792d2d0d0a',
  '2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f485454502d53504e45474f2d73657373696f6e2d656e637279707465640d0a094f726967696e616c436f6e74656e743a20747970653d6170706c69636174696f6e2f736f61702b786d6c3b636861727365743d5554462d383b4c656e6774683d36330d0a2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f6f637465742d73747265616d0d0a10000000010000007f5dbbbf4e81d55b0100000064bebd55f26427c00b65636ed0b1db2d91acdcab4c421fd7d3885f3930caa89d74c11edf845cd5952cd026acee09631d3137a6846bc92cd9c034c14808bc5c2d2d456e6372797074656420426f756e646172792d2d0d0a',
];
const PYWINRM_SERVER_BODY =
  '2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f485454502d53504e45474f2d73657373696f6e2d656e637279707465640d0a094f726967696e616c436f6e74656e743a20747970653d6170706c69636174696f6e2f736f61702b786d6c3b636861727365743d5554462d383b4c656e6774683d33340d0a2d2d456e6372797074656420426f756e646172790d0a09436f6e74656e742d547970653a206170706c69636174696f6e2f6f637465742d73747265616d0d0a10000000010000009085d0f676212f88000000007a7b27f23fcc788547b442e9513e5c4b80f07be5443f4b6b2f9703cea7740646d0d02d2d456e6372797074656420426f756e646172792d2d0d0a';
const MESSAGES = ['<s:Envelope>first request</s:Envelope>', '<s:Envelope>second, longer request with more bytes</s:Envelope>'];
const KEY = Buffer.alloc(16, 0x55);

describe('WinRM message encryption framing (MS-WSMV 2.2.9.1.1)', () => {
  it('seals requests byte-for-byte like pywinrm', () => {
    const client = new NtlmSessionSecurity(KEY, 'client');
    MESSAGES.forEach((message, index) => {
      expect(encryptBody(Buffer.from(message), client).toString('hex')).toBe(PYWINRM_CLIENT_BODIES[index]);
    });
  });

  it('a server-role context opens pywinrm-sealed requests in order; a client opens a server reply', () => {
    const server = new NtlmSessionSecurity(KEY, 'server');
    MESSAGES.forEach((message, index) => {
      const { message: plain, charset } = decryptBody(Buffer.from(PYWINRM_CLIENT_BODIES[index] as string, 'hex'), server);
      expect(plain.toString()).toBe(message);
      expect(charset).toBe('UTF-8');
    });
    const client = new NtlmSessionSecurity(KEY, 'client');
    expect(decryptBody(Buffer.from(PYWINRM_SERVER_BODY, 'hex'), client).message.toString()).toBe('<s:Envelope>reply one</s:Envelope>');
  });

  it('refuses a body whose sealed bytes were changed, or that was replayed', () => {
    const tampered = Buffer.from(PYWINRM_CLIENT_BODIES[0] as string, 'hex');
    const at = tampered.indexOf(Buffer.from('--Encrypted Boundary--')) - 5;
    tampered[at] = (tampered[at] as number) ^ 0x20;
    expect(() => decryptBody(tampered, new NtlmSessionSecurity(KEY, 'server'))).toThrow(/signature does not match/);

    const server = new NtlmSessionSecurity(KEY, 'server');
    decryptBody(Buffer.from(PYWINRM_CLIENT_BODIES[0] as string, 'hex'), server);
    expect(() => decryptBody(Buffer.from(PYWINRM_CLIENT_BODIES[0] as string, 'hex'), server)).toThrow(/signature/);
  });

  it('reads the declared length, so boundary-like bytes inside the ciphertext do not confuse it', () => {
    const client = new NtlmSessionSecurity(KEY, 'client');
    const server = new NtlmSessionSecurity(KEY, 'server');
    for (let i = 0; i < 50; i += 1) {
      const message = Buffer.from(`--Encrypted Boundary\r\n<x>${'y'.repeat(i * 37)}</x>--Encrypted Boundary--\r\n`);
      expect(decryptBody(encryptBody(message, client), server).message.equals(message)).toBe(true);
    }
  });

  it('rejects truncated or malformed bodies', () => {
    const body = Buffer.from(PYWINRM_CLIENT_BODIES[0] as string, 'hex');
    expect(() => decryptBody(body.subarray(0, body.length - 40), new NtlmSessionSecurity(KEY, 'server'))).toThrow();
    expect(() => decryptBody(Buffer.from('hello\r\n'), new NtlmSessionSecurity(KEY, 'server'))).toThrow(/boundary/);
  });

  it('recognizes the Content-Type Windows and pywinrm send', () => {
    expect(isEncryptedContentType(ENCRYPTED_CONTENT_TYPE)).toBe(true);
    expect(isEncryptedContentType('multipart/encrypted;protocol="application/HTTP-SPNEGO-session-encrypted";boundary="Encrypted Boundary"')).toBe(true);
    expect(isEncryptedContentType('application/soap+xml;charset=UTF-8')).toBe(false);
    expect(isEncryptedContentType(undefined)).toBe(false);
  });
});
