/**
 * A Windeck bundle carries each config file twice: inside the `files` probe output (probes/files.raw, with the
 * path on the node) and as a copy under files/. A re-imported bundle must report a finding once, not once per
 * copy.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnoseFiles } from '../../../electron/services/diagnose/diagnose-files';

const root = mkdtempSync(path.join(os.tmpdir(), 'windeck-dedupe-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function writeZip(file: string, members: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const out = createWriteStream(file);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

const sourceVip = '{"code":999,"msg":"no IP addresses available in range set"}';
const manifest = JSON.stringify({
  format: 'windeck-bundle',
  version: 1,
  created: '2026-01-01T00:00:00Z',
  tool: { name: 'windeck', version: '0.1.0' },
  nodes: ['win-3'],
  files: [],
  status: 'complete',
  errors: [],
});
const filesRaw = JSON.stringify([
  { Path: 'C:\\k\\sourcevip.json', Exists: true, Length: sourceVip.length, ContentBase64: Buffer.from(sourceVip).toString('base64') },
  { Path: 'C:\\run\\flannel\\subnet.env', Exists: false, Length: null, ContentBase64: null },
]);

describe('re-imported Windeck bundle', () => {
  it('reports a finding from a config file once, though the file is in probes/files.raw and in files/', async () => {
    const zip = path.join(root, 'bundle.zip');
    await writeZip(zip, {
      'manifest.json': manifest,
      'nodes/win-3/probes/files.raw': filesRaw,
      'nodes/win-3/files/sourcevip.json': sourceVip,
    });
    const r = await diagnoseFiles({ bundle: zip });
    // Both members are still listed as inputs.
    expect(r.inputs.map((i) => i.path).sort()).toEqual(['manifest.json', 'nodes/win-3/files/sourcevip.json', 'nodes/win-3/probes/files.raw']);
    const hits = r.findings.filter((f) => f.ruleId === 'sourcevip-invalid');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.node).toBe('win-3');
    expect(hits[0]!.evidence.map((e) => e.source)).toEqual(['nodes/win-3/probes/files.raw#C:\\k\\sourcevip.json']);
  });

  it('still reads files/ when the bundle has no files probe output for that node', async () => {
    const zip = path.join(root, 'bundle-no-raw.zip');
    await writeZip(zip, { 'manifest.json': manifest, 'nodes/win-3/files/sourcevip.json': sourceVip });
    const r = await diagnoseFiles({ bundle: zip });
    const hits = r.findings.filter((f) => f.ruleId === 'sourcevip-invalid');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.evidence[0]!.source).toBe('nodes/win-3/files/sourcevip.json');
  });

  it('a loose folder (not a bundle) is not deduplicated: two different files are two inputs', async () => {
    const zip = path.join(root, 'loose.zip');
    await writeZip(zip, { 'a/sourcevip.json': sourceVip, 'b/sourcevip.json': sourceVip });
    const r = await diagnoseFiles({ from: zip });
    const sources = r.findings.filter((f) => f.ruleId === 'sourcevip-invalid').flatMap((f) => f.evidence.map((e) => e.source));
    expect(sources.sort()).toEqual(['a/sourcevip.json', 'b/sourcevip.json']);
  });
});
