import { describe, expect, it } from 'vitest';
import { decodeBase64, decodeBytes, promptCommand, sniffEncoding, splitLines, stripCiTimestamps, toLines } from '../../../../shared/parse/text';
import { sampleBytes } from './samples';

describe('decodeBytes', () => {
  it('decodes UTF-16LE with BOM and CRLF (systeminfo sample)', () => {
    const d = decodeBytes(sampleBytes('encodings/systeminfo-utf16le-bom.txt'));
    expect(d.encoding).toBe('utf-16le-bom');
    expect(d.text).toContain('OS Version:                10.0.17763 N/A Build 17763');
    expect(d.text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('decodes UTF-8 with BOM (cni conf sample)', () => {
    const d = decodeBytes(sampleBytes('encodings/cni-conf-utf8-bom-crlf.conf'));
    expect(d.encoding).toBe('utf-8-bom');
    expect(d.text.startsWith('{')).toBe(true);
  });

  it('detects UTF-16LE without BOM and multi-byte UTF-8', () => {
    const utf16 = Buffer.from('Status   Name\r\n', 'utf16le');
    expect(sniffEncoding(utf16)).toBe('utf-16le');
    expect(decodeBytes(utf16).text).toBe('Status   Name\r\n');
    expect(decodeBytes(Buffer.from('Größe — 日本 🚀', 'utf8')).text).toBe('Größe — 日本 🚀');
  });

  it('marks binary and handles empty input', () => {
    expect(decodeBytes(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0x00, 0x10])).encoding).toBe('binary');
    expect(decodeBytes(new Uint8Array()).text).toBe('');
  });

  it('replaces invalid UTF-8 instead of throwing', () => {
    expect(decodeBytes(Buffer.from([0x61, 0xc3, 0x28, 0x62])).text).toBe('a\ufffd(b');
  });
});

describe('line helpers', () => {
  it('splits CRLF, LF and CR alike', () => {
    expect(splitLines('a\r\nb\nc\rd')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('strips CI timestamps only when most lines carry them', () => {
    expect(stripCiTimestamps(['2020-07-11T04:17:22.2794021Z Host Name: x', '2020-07-11T04:17:22.2794021Z OS Name: y'])).toEqual(['Host Name: x', 'OS Name: y']);
    expect(stripCiTimestamps(['2020-07-11T04:17:22Z only one', 'plain', 'plain'])).toEqual(['2020-07-11T04:17:22Z only one', 'plain', 'plain']);
    expect(toLines('')).toEqual(['']);
  });

  it('recognizes prompt echoes', () => {
    expect(promptCommand('PS C:\\Users\\x> ipconfig /all')).toBe('ipconfig /all');
    expect(promptCommand('> Get-DnsClientGlobalSetting')).toBe('Get-DnsClientGlobalSetting');
    expect(promptCommand('   Host Name . . . : x')).toBeNull();
  });

  it('decodes base64 like Node does', () => {
    const raw = Buffer.from('FLANNEL_NETWORK=10.244.0.0/16\r\nüñ', 'utf8');
    for (let cut = 0; cut < 4; cut++) {
      const b = raw.subarray(0, raw.length - cut);
      expect(Buffer.from(decodeBase64(b.toString('base64'))).equals(b)).toBe(true);
    }
  });
});
