/**
 * EXPECTATIONS.md: every sample alone in a folder, `windeck diagnose --from <folder> --json` (in-process CLI),
 * exit 0, JSON on stdout, mustFire fire, mustNotFire do not, maxErrors holds, and the file is recognized.
 * Also `--from` each whole category folder.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { expectations, SAMPLES_DIR } from '../../unit/shared/parse/samples';

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], home: string): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, stdinIsTTY: false, env: { WINDECK_HOME: home } },
    new AbortController().signal,
  );
  return { code, stdout, stderr };
}

const root = mkdtempSync(path.join(os.tmpdir(), 'windeck-expect-'));
const home = path.join(root, 'home');
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Json {
  inputs: { path: string; kind: string }[];
  findings: { ruleId: string; severity: string; node: string | null; title: string; evidence: unknown[]; remediation: unknown }[];
}

describe('EXPECTATIONS.json, each sample alone', () => {
  const list = expectations();
  it('covers every sample file in the fixture copy', () => {
    const files: string[] = [];
    for (const cat of readdirSync(SAMPLES_DIR)) {
      if (!statSync(SAMPLES_DIR + cat).isDirectory()) continue;
      for (const f of readdirSync(SAMPLES_DIR + cat)) if (f !== 'README.md') files.push(`${cat}/${f}`);
    }
    expect(list.map((e) => e.file).sort()).toEqual(files.sort());
    expect(list.length).toBe(77);
  });

  for (const e of list) {
    it(e.file, async () => {
      const dir = mkdtempSync(path.join(root, 'one-'));
      copyFileSync(SAMPLES_DIR + e.file, path.join(dir, path.basename(e.file)));
      const out = await cli(['diagnose', '--from', dir, '--json'], home);
      expect(out.code, out.stderr).toBe(0);
      const result = JSON.parse(out.stdout) as Json;
      expect(result.inputs).toEqual([{ path: path.basename(e.file), kind: expect.any(String) }]);
      expect(result.inputs[0]!.kind).not.toBe('unknown');
      const ids = result.findings.map((f) => f.ruleId);
      for (const id of e.mustFire) expect(ids, `${id} must fire: ${e.why}`).toContain(id);
      for (const id of e.mustNotFire) expect(ids, `${id} must not fire: ${e.why}`).not.toContain(id);
      if (e.maxErrors !== null) expect(result.findings.filter((f) => f.severity === 'error').map((f) => f.title)).toHaveLength(e.maxErrors);
      for (const f of result.findings) {
        expect(Object.keys(f).sort()).toEqual(['evidence', 'node', 'remediation', 'ruleId', 'severity', 'title']);
        expect(f.evidence.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('diagnose --from each category folder', () => {
  for (const cat of ['cni-config', 'dns', 'encodings', 'hns', 'logs', 'netinfo', 'nodes', 'services', 'version-os']) {
    it(cat, async () => {
      const out = await cli(['diagnose', '--from', SAMPLES_DIR + cat, '--json'], home);
      expect(out.code, out.stderr).toBe(0);
      const result = JSON.parse(out.stdout) as Json;
      const files = readdirSync(SAMPLES_DIR + cat).sort();
      expect(result.inputs.map((i) => i.path).sort()).toEqual(files);
      // Only the encodings README is not a sample.
      expect(result.inputs.filter((i) => i.kind === 'unknown').map((i) => i.path)).toEqual(cat === 'encodings' ? ['README.md'] : []);
      expect(out.stderr).toMatch(/diagnose: \d+ inputs/);
    });
  }

  it('human output and --fail-on exit codes', async () => {
    const human = await cli(['diagnose', '--from', SAMPLES_DIR + 'logs'], home);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/ERROR\s+hns-adapter-not-found/);
    expect(human.stdout).toMatch(/see https:\/\/kubernetes\.io\//);
    expect((await cli(['diagnose', '--from', SAMPLES_DIR + 'logs', '--fail-on', 'error', '--json'], home)).code).toBe(4);
    expect((await cli(['diagnose', '--from', SAMPLES_DIR + 'netinfo', '--fail-on', 'error', '--json'], home)).code).toBe(0);
    const bad = await cli(['diagnose', '--from', SAMPLES_DIR + 'logs', '--fail-on', 'sometimes', '--json'], home);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error.code).toBe('VALIDATION');
  });

  it('usage and input errors', async () => {
    const none = await cli(['diagnose', '--json'], home);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout).error.code).toBe('VALIDATION');
    const missing = await cli(['diagnose', '--from', path.join(root, 'nope'), '--json'], home);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe('NOT_FOUND');
    const live = await cli(['diagnose', 'win-1', '--json'], home);
    expect(live.code).toBe(1);
    // Live diagnosis needs a cluster that knows the node (test/integration/diagnose/live-demo.test.ts covers the live run).
    expect(JSON.parse(live.stdout).error).toMatchObject({ code: 'NOT_FOUND' });
  });
});
