import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipWriter } from '../../electron/services/bundle/zip-writer';
import { tempDir } from '../helpers/temp-dir';

/**
 * Interop: bundles are written by Windeck's own zip writer (electron/services/bundle/zip-writer.ts), so Info-ZIP
 * (Debian `unzip`, the tool admins and GitHub reviewers use) must test and extract them byte for byte. If unzip
 * is missing, this fails and says how to install it.
 */

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function infoZip(args: string[]): string {
  try {
    return execFileSync('unzip', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('Info-ZIP unzip is not installed: apt-get install -y unzip');
    throw error;
  }
}

describe('zip writer vs Info-ZIP unzip', () => {
  it('writes archives that unzip -t passes and extracts to the same bytes: deflated, stored .gz, pre-deflated file, empty, UTF-8 names', async () => {
    const target = path.join(tmp.dir, 'bundle.zip');
    const mtime = new Date(2026, 10, 30, 8, 15, 42);
    const big = crypto.randomBytes(3 * 1024 * 1024).toString('base64'); // ~4 MiB of text
    const gz = zlib.gzipSync(Buffer.from('2026-11-30 kubelet started\r\n'.repeat(5000)));
    const logPlain = Buffer.from('E1130 08:15:42 kube-proxy: Policy creation failed: hcnCreateLoadBalancer failed\r\n'.repeat(20000));
    const logDeflated = path.join(tmp.dir, 'log.deflate');
    fs.writeFileSync(logDeflated, zlib.deflateRawSync(logPlain, { level: 1 }));

    const zip = await ZipWriter.create(target);
    await zip.addBuffer('manifest.json', Buffer.from(JSON.stringify({ files: 4 })), { mtime, mode: 0o644, compress: true });
    await zip.addBuffer('nodes/win-1/big.txt', Buffer.from(big), { mtime, mode: 0o644, compress: true });
    await zip.addBuffer('nodes/win-1/empty.log', Buffer.alloc(0), { mtime, mode: 0o644, compress: true });
    await zip.addBuffer('nodes/wïn-2/Ünïcode名前.txt', Buffer.from('utf-8 name\n'), { mtime, mode: 0o644, compress: false });
    await zip.addData(
      { name: 'nodes/win-1/logs/kubelet.log.gz', method: 0, crc32: zlib.crc32(gz), compressedSize: gz.length, uncompressedSize: gz.length, mtime, mode: 0o644 },
      gz,
    );
    await zip.addFile(
      {
        name: 'nodes/win-1/logs/kube-proxy.log',
        method: 8,
        crc32: zlib.crc32(logPlain),
        compressedSize: fs.statSync(logDeflated).size,
        uncompressedSize: logPlain.length,
        mtime,
        mode: 0o644,
      },
      logDeflated,
    );
    // Stored and several copy buffers long (addFile reuses one buffer per read): incompressible bytes.
    const random = crypto.randomBytes(2 * 1024 * 1024 + 12345);
    const randomFile = path.join(tmp.dir, 'random.bin');
    fs.writeFileSync(randomFile, random);
    await zip.addFile(
      {
        name: 'nodes/win-1/random.bin',
        method: 0,
        crc32: zlib.crc32(random),
        compressedSize: random.length,
        uncompressedSize: random.length,
        mtime,
        mode: 0o644,
      },
      randomFile,
    );
    const size = await zip.finish();
    expect(size).toBe(fs.statSync(target).size);

    expect(infoZip(['-t', target])).toMatch(/No errors detected/);
    const listing = infoZip(['-Z', '-v', target]);
    expect(listing).not.toMatch(/zip64/i); // small archives need no ZIP64 records
    expect(infoZip(['-p', target, 'nodes/win-1/big.txt'])).toBe(big);
    expect(infoZip(['-p', target, 'nodes/win-1/logs/kube-proxy.log'])).toBe(logPlain.toString());
    const out = path.join(tmp.dir, 'out');
    infoZip(['-q', target, '-d', out]);
    expect(fs.readFileSync(path.join(out, 'nodes/win-1/logs/kubelet.log.gz')).equals(gz)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'nodes/wïn-2/Ünïcode名前.txt'), 'utf8')).toBe('utf-8 name\n');
    expect(fs.statSync(path.join(out, 'nodes/win-1/empty.log')).size).toBe(0);
    expect(fs.readFileSync(path.join(out, 'nodes/win-1/random.bin')).equals(random)).toBe(true);
    // Local time in the DOS fields, as Info-ZIP writes it.
    expect(fs.statSync(path.join(out, 'manifest.json')).mtime.getMinutes()).toBe(15);
  });
});
