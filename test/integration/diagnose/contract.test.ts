import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiagnoseOutput } from '../../../shared/contract/methods/diagnose';
import { TERMINAL_STATES, type OperationRecord } from '../../../shared/domain/operation';
import { testServices } from '../../helpers/services';
import { tempDir, waitFor } from '../../helpers/temp-dir';

/** The diagnosis contract methods the UI uses for pasted text, imported folders and stored findings. */
const SAMPLES = path.resolve(__dirname, '../../fixtures/samples');
let t: ReturnType<typeof testServices>;
beforeAll(() => {
  t = testServices();
});
afterAll(async () => {
  await t?.cleanup();
});

async function unwrap<T>(p: Promise<{ ok: boolean; value?: unknown; error?: unknown }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as T;
}

describe('diagnose contract methods', () => {
  it('diagnose:text recognizes pasted output by content and fires its rules', async () => {
    const text = fs.readFileSync(path.join(SAMPLES, 'dns/nslookup-timeout-windows-pod-l2bridge-kops.txt'), 'utf8');
    const out = await unwrap<DiagnoseOutput>(t.services.dispatch('diagnose:text', { text, name: 'paste.txt' }));
    expect(out.inputs).toHaveLength(1);
    expect(out.inputs[0]!.path).toBe('paste.txt');
    expect(out.inputs[0]!.kind).not.toBe('unknown');
    expect(out.findings.map((f) => f.ruleId)).toContain('dns-cluster-lookup-failed');
    const bad = await t.services.dispatch('diagnose:text', { text: 'x', name: '../escape' });
    expect(bad.ok).toBe(false);
  });

  it('diagnose:files runs as an operation over a folder and returns {inputs, findings}', async () => {
    const dir = tempDir();
    try {
      fs.copyFileSync(path.join(SAMPLES, 'hns/get-hnsnetwork-list-external-overlay-kubecluster.txt'), path.join(dir.dir, 'hns.txt'));
      fs.writeFileSync(path.join(dir.dir, 'notes.txt'), 'nothing windows-related here\n');
      const { operationId } = await unwrap<{ operationId: string }>(t.services.dispatch('diagnose:files', { path: dir.dir }));
      const record = await waitFor(() => {
        const r = t.services.core.ops.get(operationId) as OperationRecord | null;
        return r && TERMINAL_STATES.has(r.state) ? r : null;
      }, 20_000);
      expect(record.state, JSON.stringify(record.error)).toBe('succeeded');
      const result = record.result as DiagnoseOutput;
      expect(result.inputs.map((i) => i.path).sort()).toEqual(['hns.txt', 'notes.txt']);
      expect(result.inputs.find((i) => i.path === 'notes.txt')!.kind).toBe('unknown');
      expect(result.findings.map((f) => f.ruleId)).toContain('hns-network-missing');
      const missing = await t.services.dispatch('diagnose:files', { path: path.join(dir.dir, 'nope') });
      expect(missing.ok).toBe(false);
    } finally {
      dir.cleanup();
    }
  });

  it('findings:list with no cluster in the store is empty; an unknown cluster is NOT_FOUND', async () => {
    expect(await unwrap<unknown[]>(t.services.dispatch('findings:list', {}))).toEqual([]);
    const r = await t.services.dispatch('findings:list', { cluster: 'nope' });
    expect(r.ok ? null : r.error.code).toBe('NOT_FOUND');
  });
});
