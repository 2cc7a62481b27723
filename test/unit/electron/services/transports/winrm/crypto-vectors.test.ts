import { describe, expect, it } from 'vitest';
import { md4 } from '../../../../../../electron/services/transports/winrm/md4';
import { Rc4, rc4k } from '../../../../../../electron/services/transports/winrm/rc4';
import { hmacMd5 } from '../../../../../../electron/services/transports/winrm/ntlm';

const hex = (value: string): Buffer => Buffer.from(value.replace(/\s+/g, ''), 'hex');

describe('MD4 (RFC 1320 appendix A.5 test suite)', () => {
  const suite: Array<[string, string]> = [
    ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
    ['a', 'bde52cb31de33e46245e05fbdbd6fb24'],
    ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
    ['message digest', 'd9130a8164549fe818874806e1c7014b'],
    ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', '043f8582f241db351ce627e153e7f0e4'],
    ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', 'e33b4ddc9c38f2199c3e7b164fcc0536'],
  ];
  for (const [input, digest] of suite) {
    it(`MD4("${input.length > 20 ? `${input.slice(0, 20)}...` : input}")`, () => {
      expect(md4(Buffer.from(input, 'latin1')).toString('hex')).toBe(digest);
    });
  }

  it('matches OpenSSL (legacy provider) across the padding boundaries', () => {
    // Reference digests from OpenSSL 3.0 `md4` with the legacy provider, for 'a' repeated n times.
    const reference: Array<[number, string]> = [
      [55, 'c889c81dd86c4d2e025778944ea02881'],
      [56, 'd5f9a9e9257077a5f08b0b92f348b0ad'],
      [63, '7ea3da77432d44c323671097d1348fc8'],
      [64, '52f5076fabd22680234a3fa9f9dc5732'],
      [65, '330e377bf231f3cacfecc2c182fe7e5b'],
      [119, 'e65dd227ccef97fa1d34d70189120f76'],
      [120, 'b03ddbd470b47c013e0c7ab2ddd763db'],
      [1000, '5f1bf26a8067c9159b91f1440f7c9e8a'],
    ];
    for (const [length, digest] of reference) {
      expect(md4(Buffer.alloc(length, 0x61)).toString('hex'), `length ${length}`).toBe(digest);
    }
  });

  it('MD4(UNICODE("Password")) equals the MS-NLMP 4.2.2.1.2 NTOWFv1 example', () => {
    expect(md4(Buffer.from('Password', 'utf16le')).toString('hex')).toBe('a4f49c406510bdcab6824ee7c30fd852');
  });
});

describe('RC4', () => {
  it('matches RFC 6229 for a 40-bit key (offsets 0 and 16)', () => {
    const stream = new Rc4(hex('0102030405')).update(Buffer.alloc(32));
    expect(stream.subarray(0, 16).toString('hex')).toBe('b2396305f03dc027ccc3524a0a1118a8');
    expect(stream.subarray(16, 32).toString('hex')).toBe('6982944f18fc82d589c403a47a0d0919');
  });

  it('matches RFC 6229 for a 128-bit key (offsets 0 and 16)', () => {
    const stream = new Rc4(hex('0102030405060708090a0b0c0d0e0f10')).update(Buffer.alloc(32));
    expect(stream.subarray(0, 16).toString('hex')).toBe('9ac7cc9a609d1ef7b2932899cde41b97');
    expect(stream.subarray(16, 32).toString('hex')).toBe('5248c4959014126a6e8a84f11d1a9e1c');
  });

  it('matches the classic Key/Plaintext, Wiki/pedia, Secret/Attack at dawn vectors', () => {
    expect(rc4k(Buffer.from('Key'), Buffer.from('Plaintext')).toString('hex')).toBe('bbf316e8d940af0ad3');
    expect(rc4k(Buffer.from('Wiki'), Buffer.from('pedia')).toString('hex')).toBe('1021bf0420');
    expect(rc4k(Buffer.from('Secret'), Buffer.from('Attack at dawn')).toString('hex')).toBe('45a01f645fc35b383552544b9bf5');
  });

  it('keeps its key stream across updates (one handle per direction, as NTLM sealing needs)', () => {
    const whole = new Rc4(Buffer.from('stream-key')).update(Buffer.alloc(100, 7));
    const split = new Rc4(Buffer.from('stream-key'));
    const parts = Buffer.concat([split.update(Buffer.alloc(33, 7)), split.update(Buffer.alloc(0)), split.update(Buffer.alloc(67, 7))]);
    expect(parts.equals(whole)).toBe(true);
  });

  it('refuses an empty key', () => {
    expect(() => new Rc4(Buffer.alloc(0))).toThrow(RangeError);
  });
});

describe('HMAC-MD5 (RFC 2202 test cases)', () => {
  it('test case 1: key 0x0b*16, "Hi There"', () => {
    expect(hmacMd5(Buffer.alloc(16, 0x0b), Buffer.from('Hi There')).toString('hex')).toBe('9294727a3638bb1c13f48ef8158bfc9d');
  });
  it('test case 2: key "Jefe"', () => {
    expect(hmacMd5(Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?')).toString('hex')).toBe('750c783e6ab0b503eaa86e310a5db738');
  });
  it('test case 6: an 80-byte key longer than the block', () => {
    expect(hmacMd5(Buffer.alloc(80, 0xaa), Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First')).toString('hex')).toBe(
      '6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd',
    );
  });
  it('concatenates its message parts', () => {
    expect(hmacMd5(Buffer.from('k'), Buffer.from('ab'), Buffer.from('c')).equals(hmacMd5(Buffer.from('k'), Buffer.from('abc')))).toBe(true);
  });
});
