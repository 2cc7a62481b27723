#!/usr/bin/env node
// Diagnosis benchmark (not part of `npm test`): a folder of mixed Windows node logs (default 500 files, 1 GiB)
// through `windeck diagnose --from DIR --json` (the CLI bundled from the current sources, else dist/cli.js):
// throughput in MB/s and peak RSS. Reference in the same run, alternating order: `grep -E -c` of a few error
// patterns over the same files (reads and regex-scans every byte; a floor, not a competitor).
// The corpus is generated cheaply: the real sample logs in test/fixtures/samples/logs (one per file, so every
// file holds a real failure signature) padded with klog/containerd/kube-proxy template lines; no secrets.
// Prints one JSON object on the last line of stdout. Never fails on timing.
//
//   node bench/diagnose.mjs            500 files, 1024 MiB, 3 repetitions
//   node bench/diagnose.mjs --quick    50 files, 32 MiB, 2 repetitions
//   node bench/diagnose.mjs --files 200 --mib 256 --reps 3
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flag, root, windeckCli } from './lib/build.mjs';
import { runMeasured } from './lib/proc.mjs';
import { ratio, summarize } from './lib/stats.mjs';
import { helpAndExit } from './lib/usage.mjs';

const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const quick = args.includes('--quick');
const FILES = Number(flag(args, '--files', quick ? 50 : 500));
const MIB = Number(flag(args, '--mib', quick ? 32 : 1024));
const REPS = Number(flag(args, '--reps', quick ? 2 : 3));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-diagnose-bench-'));
process.on('SIGINT', () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(130);
});

try {
  const cli = await windeckCli();
  console.error(`diagnose: windeck from ${cli.from}`);

  // ---- corpus
  const samplesDir = path.join(root, 'test/fixtures/samples/logs');
  const samples = fs.readdirSync(samplesDir).map((f) => ({ name: f, data: fs.readFileSync(path.join(samplesDir, f)) }));
  const templates = [
    (n) => `I0612 10:${String(n % 60).padStart(2, '0')}:00.${String(n % 1e6).padStart(6, '0')}    4242 kubelet.go:2345] "SyncLoop (PLEG): event for pod" pod="kube-system/kube-proxy-windows-${(n % 97).toString(36)}x" event={"ID":"${(n * 7919).toString(16)}-8b4d","Type":"ContainerStarted"}`,
    (n) => `time="2026-06-12T10:00:02.${n % 1e9}Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web-${n % 50},Namespace:default,Attempt:0,} returns sandbox id \\"${(n * 31337).toString(16)}\\""`,
    (n) => `I0612 10:00:04.000000    3316 vxlan_network_windows.go:120] Subnet added: 10.244.${n % 250}.0/24 via 10.0.0.${n % 250}, VNI 4096`,
    (n) => `I0612 10:00:05.000000    2120 proxier.go:${1000 + (n % 90)}] "Syncing proxy rules" service="default/web-${n % 40}" endpoints=${n % 7}`,
  ];
  // One ~1 MiB filler block, reused (varied by a per-file header) so generation costs little CPU.
  const lines = [];
  let size = 0;
  for (let n = 0; size < 1024 * 1024; n += 1) {
    const l = templates[n % templates.length](n * 104729) + '\n';
    lines.push(l);
    size += l.length;
  }
  const filler = Buffer.from(lines.join(''));
  const perFile = Math.floor((MIB * 1024 * 1024) / FILES);
  const dir = path.join(tmp, 'logs');
  fs.mkdirSync(dir);
  const genStarted = performance.now();
  let total = 0;
  for (let i = 0; i < FILES; i += 1) {
    const s = samples[i % samples.length];
    const ext = path.extname(s.name);
    const file = path.join(dir, `${path.basename(s.name, ext)}-${String(i).padStart(4, '0')}${ext}`);
    const fd = fs.openSync(file, 'w');
    let written = fs.writeSync(fd, s.data);
    while (written < perFile) {
      const take = Math.min(filler.length, perFile - written);
      // cut at a line end so the file stays line-shaped
      const cut = take === filler.length ? take : filler.lastIndexOf(10, take) + 1 || take;
      written += fs.writeSync(fd, filler, 0, cut);
      if (cut < 1) break;
    }
    fs.closeSync(fd);
    total += written;
  }
  const genMs = performance.now() - genStarted;
  const mb = total / 1e6;
  console.error(`diagnose: generated ${FILES} files, ${(total / 1048576).toFixed(0)} MiB in ${(genMs / 1000).toFixed(1)} s`);

  const env = { ...process.env, WINDECK_HOME: path.join(tmp, 'home') };
  const runs = { windeck: [], grep: [] };
  let check = null;
  for (let rep = 0; rep < REPS; rep += 1) {
    const order = rep % 2 === 0 ? ['windeck', 'grep'] : ['grep', 'windeck'];
    for (const who of order) {
      if (who === 'windeck') {
        const r = await runMeasured(process.execPath, [cli.file, 'diagnose', '--from', dir, '--json', '--home', path.join(tmp, 'home')], { env });
        let out = null;
        try {
          out = JSON.parse(r.stdout);
        } catch {
          out = null;
        }
        const ok = (r.code === 0 || r.code === 4) && out !== null;
        if (ok) check = { inputs: out.inputs?.length ?? null, unknownInputs: out.inputs?.filter((x) => x.kind === 'unknown').length ?? null, findings: out.findings?.length ?? null, rules: [...new Set((out.findings ?? []).map((f) => f.ruleId))].sort() };
        runs.windeck.push({ ms: r.ms, peakRssMiB: r.peakRssMiB, ok, exit: r.code, error: ok ? undefined : r.stderr.slice(-500) });
        console.error(`  rep ${rep + 1} windeck ${(r.ms / 1000).toFixed(1)} s, ${(mb / (r.ms / 1000)).toFixed(1)} MB/s, peak ${r.peakRssMiB} MiB, exit ${r.code}`);
      } else {
        const names = fs.readdirSync(dir).map((f) => path.join(dir, f));
        const r = await runMeasured('grep', ['-E', '-c', 'error|failed|not found|0x[0-9a-f]{8}', ...names], { discardStdout: true });
        runs.grep.push({ ms: r.ms, peakRssMiB: r.peakRssMiB, ok: r.code === 0 || r.code === 1 });
        console.error(`  rep ${rep + 1} grep    ${(r.ms / 1000).toFixed(1)} s, ${(mb / (r.ms / 1000)).toFixed(1)} MB/s`);
      }
    }
  }
  const okW = runs.windeck.filter((r) => r.ok);
  const w = summarize(okW.map((r) => r.ms));
  const g = summarize(runs.grep.map((r) => r.ms));
  const result = {
    bench: 'diagnose',
    profile: quick ? 'quick' : 'full',
    windeckFrom: cli.from,
    input: { files: FILES, bytes: total, mib: Math.round(total / 1048576), generatedSeconds: Math.round(genMs / 100) / 10 },
    repetitions: REPS,
    order: 'alternating (windeck first on odd repetitions)',
    windeck: {
      ms: w,
      mbPerSecond: w.median ? Math.round((mb / (w.median / 1000)) * 10) / 10 : null,
      peakRssMiB: summarize(okW.map((r) => r.peakRssMiB)),
      failedRuns: runs.windeck.filter((r) => !r.ok).map((r) => ({ exit: r.exit, error: r.error })),
      output: check,
    },
    grep: { ms: g, mbPerSecond: g.median ? Math.round((mb / (g.median / 1000)) * 10) / 10 : null, peakRssMiB: summarize(runs.grep.map((r) => r.peakRssMiB)) },
    ratio: { timeVsGrep: ratio(w.median, g.median) },
  };
  console.log(JSON.stringify(result));
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
