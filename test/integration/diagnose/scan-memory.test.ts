/**
 * Facts kept across files must not keep the files' text alive: a fact's excerpt or data sliced from a whole file's
 * decoded text would otherwise hold all of that text (V8 keeps a substring as a view of its parent), and an offline
 * diagnosis over a big folder grew by about its input size (1 GiB of 2 MiB logs: 840 MiB RSS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { scanStream } from '../../../electron/services/diagnose/scan-entry';
import type { Fact } from '../../../shared/logic/facts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-scan-memory-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const FILES = 16;
const FILE_BYTES = 3 * 1024 * 1024; // parsed whole (under DIAGNOSE_FULL_PARSE_MAX_BYTES)
const sample = fs.readFileSync(path.join(__dirname, '../../fixtures/samples/logs/flannel-pod-invoke-hnsrequest-adapter-not-found.txt'));

describe('scanStream facts', () => {
  it('keep no reference to the text they came from (16 files x 3 MiB kept: heap grows by far less than the text)', async () => {
    const filler = Buffer.from('I0612 10:00:05.000000    2120 proxier.go:1011] "Syncing proxy rules" service="default/web-7" endpoints=3\n'.repeat(2048));
    const files: string[] = [];
    for (let i = 0; i < FILES; i++) {
      const file = path.join(root, `flannel-${i}.log`);
      const fd = fs.openSync(file, 'w');
      let written = fs.writeSync(fd, sample);
      while (written < FILE_BYTES) written += fs.writeSync(fd, filler);
      fs.closeSync(fd);
      files.push(file);
    }
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: Fact[][] = [];
    for (const file of files) {
      const scan = await scanStream(async () => fs.createReadStream(file), path.basename(file), { source: file, node: null, probeId: null, forcedKind: null });
      kept.push(scan.facts);
    }
    gc();
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // The sample's signatures are found in every file (the facts are real), and what they keep is small.
    expect(kept.every((f) => f.length > 0)).toBe(true);
    expect(kept.flat().some((f) => f.excerpt.length > 20)).toBe(true);
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});
