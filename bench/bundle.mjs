#!/usr/bin/env node
// Bundle benchmark (not part of `npm test`): about 1 GiB of Windows node logs (~400 files, one in ten rotated and
// gzipped, generated cheaply from realistic klog/containerd/flannel lines with a few secrets sprinkled in) turned
// into a redacted bundle by Windeck's own pipeline (BundleStage: redaction + final secret scan, streamed to disk;
// writeBundleZip: yazl, parts of ~25 MB, gzip entries stored) versus `zip -r -6` on the same files. Reports
// wall time, CPU seconds and peak RSS (VmHWM) of each, checks every archive with `unzip -t`, and writes the numbers to
// bench/results/bundle.json. Never fails on timing; fails when an archive does not test clean or a seeded
// secret survives.
//
//   node bench/bundle.mjs            1 GiB, 400 files
//   node bench/bundle.mjs --quick    128 MiB, 50 files
//   node bench/bundle.mjs --mib 512 --files 200
//   --keep                           keep the generated logs and outputs (prints the folder)
//   --record                         also write bench/results/bundle.json for a --quick run
//   --help                           this text
//
// Needs: zip and unzip (apt-get install -y zip unzip), /usr/bin/time (Debian `time`).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeExternals, withoutZodLocales } from '../build/node-externals.mjs';
import { helpAndExit } from './lib/usage.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const quick = args.includes('--quick');
const MIB = Number(flag('--mib', quick ? 128 : 1024));
const FILES = Number(flag('--files', quick ? 50 : 400));

for (const bin of ['zip', 'unzip']) {
  if (spawnSync('which', [bin]).status !== 0) {
    console.error(`${bin} is missing: apt-get install -y zip unzip`);
    process.exit(1);
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-bundle-bench-'));
process.on('SIGINT', () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(130);
});
const logsDir = path.join(tmp, 'logs');
fs.mkdirSync(logsDir);

// ---- 1. Generate the logs (cheap: a few thousand template lines, numbers varied per line).
const SECRETS = ['ghp_' + 'Zq7Xw2Lk9Pm4Rt6Yv8Bn1Cd3Fg5Hj0Kl2Mn4', 'AKIAQWERTYUIOPASDFGH', 'Pw-Bench-Secret-77x'];
const templates = [
  (n, _ip) =>
    `I0612 10:${String(n % 60).padStart(2, '0')}:00.${String(n % 1e6).padStart(6, '0')}    4242 kubelet.go:2345] "SyncLoop (PLEG): event for pod" pod="kube-system/kube-proxy-windows-${(n % 97).toString(36)}x" event={"ID":"${(n * 7919).toString(16)}-8b4d","Type":"ContainerStarted"}`,
  (n, ip) =>
    `E0612 10:00:01.000000    4242 cni.go:387] "Error adding pod to network" err="failed to find HNSEndpoint for ${ip}: The endpoint was not found." podSandboxID="${(n * 104729).toString(16)}"`,
  (n, _ip) =>
    `time="2026-06-12T10:00:02.${n % 1e9}Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web-${n % 50},Namespace:default,Attempt:0,} returns sandbox id \\"${(n * 31337).toString(16)}\\""`,
  (n, ip) =>
    `W0612 10:00:03.000000    2120 proxier.go:1081] Policy creation failed: hcnCreateLoadBalancer failed in Win32: The specified port already exists. (0x803b0013) for service default/web-${n % 40}:http ${ip}:53`,
  (n, ip) =>
    `I0612 10:00:04.000000    3316 vxlan_network_windows.go:120] Subnet added: 10.244.${n % 250}.0/24 via ${ip}, VNI 4096, mac 00-15-5D-${(n % 256).toString(16).padStart(2, '0').toUpperCase()}-AA-01`,
];
const secretLines = [
  `I0612 10:00:05.000000 1 creds.go:9] using token ${SECRETS[0]}`,
  `I0612 10:00:06.000000 1 s3.go:4] access key ${SECRETS[1]}`,
  `I0612 10:00:07.000000 1 login.go:1] net.exe --password=${SECRETS[2]} started`,
];

function block(seed, bytes) {
  const lines = [];
  let size = 0;
  let n = seed * 1_000_003;
  while (size < bytes) {
    n++;
    const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    const line = n % 1500 === 0 ? secretLines[(n / 1500) % 3] : templates[n % templates.length](n, ip);
    lines.push(line);
    size += line.length + 2;
  }
  return lines.join('\r\n') + '\r\n';
}

const genStart = Date.now();
const perFile = Math.floor((MIB * 1024 * 1024) / FILES);
const chunk = Buffer.from(block(1, 1024 * 1024), 'latin1');
let total = 0;
for (let i = 0; i < FILES; i++) {
  const gz = i % 10 === 9;
  const name = gz ? `component-${i}.log.1.gz` : `component-${i}.log`;
  // Each file: a few fresh blocks (so files differ) + repeats of the shared chunk, as a rotated log looks.
  const parts = [];
  let size = 0;
  parts.push(Buffer.from(block(i + 2, 64 * 1024), 'latin1'));
  size += parts[0].length;
  while (size < perFile) {
    const take = Math.min(chunk.length, perFile - size);
    parts.push(chunk.subarray(0, take));
    size += take;
  }
  const data = Buffer.concat(parts);
  fs.writeFileSync(path.join(logsDir, name), gz ? zlib.gzipSync(data, { level: 1 }) : data);
  total += data.length;
}
const genMs = Date.now() - genStart;
console.error(`generated ${FILES} files, ${(total / 1048576).toFixed(0)} MiB of log text (one in ten gzipped) in ${(genMs / 1000).toFixed(1)} s`);

// ---- 2. Windeck's pipeline, bundled from the TypeScript sources and run as its own process.
const work = path.join(root, 'node_modules', '.cache', 'windeck-bench');
fs.mkdirSync(work, { recursive: true });
const entry = path.join(work, 'bundle-pipeline.mjs');
await build({
  stdin: {
    contents: `
      import fs from 'node:fs';
      import path from 'node:path';
      import { BundleStage } from ${JSON.stringify(path.join(root, 'electron/services/bundle/stage.ts'))};
      import { writeBundleZip } from ${JSON.stringify(path.join(root, 'electron/services/bundle/zip.ts'))};
      import { buildManifest } from ${JSON.stringify(path.join(root, 'electron/services/bundle/manifest.ts'))};
      const [logs, output] = process.argv.slice(2);
      const started = Date.now();
      // zipOnly: as bundles:export makes it for a .zip output (streamed logs keep only their deflated copy).
      const stage = await BundleStage.create(path.dirname(output), { level: 'standard', pseudonyms: null, zipOnly: true });
      try {
        // All entries handed over at once: the stage's worker pool (one per core) redacts them in parallel.
        await Promise.all(fs.readdirSync(logs).sort().map((name) => stage.writeStream('nodes/bench-node/logs/' + name, { file: path.join(logs, name) }, { gzipped: name.endsWith('.gz') })));
        const staged = Date.now();
        const redactPeakRssBytes = process.resourceUsage().maxRSS * 1024;
        const factory = (files, part) => buildManifest({ created: new Date(), toolVersion: 'bench', cluster: { context: null, server: null, kubernetesVersion: null }, nodes: ['bench-node'], files, level: 'standard', counts: stage.counts, errors: [], ...(part ? { part } : {}) });
        const { paths } = await writeBundleZip(stage, output, factory);
        const done = Date.now();
        const cpu = process.cpuUsage();
        process.stdout.write(JSON.stringify({ paths, counts: stage.counts, redactMs: staged - started, zipMs: done - staged, redactPeakRssBytes, maxRssBytes: process.resourceUsage().maxRSS * 1024, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');
      } finally {
        await stage.remove();
      }
    `,
    resolveDir: root,
    loader: 'ts',
    sourcefile: 'bundle-pipeline.ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: nodeExternals(),
  plugins: [withoutZodLocales],
  outfile: entry,
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});

// The worker program of the stage's redaction pool, next to the pipeline (worker-pool.ts looks there).
await build({
  entryPoints: [path.join(root, 'electron/services/bundle/redact-worker.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: nodeExternals(),
  plugins: [withoutZodLocales],
  outfile: path.join(work, 'redact-worker.mjs'),
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});

/** Run a command; sample its VmHWM (peak RSS) from /proc while it runs. */
function measure(cmd, argv, options = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    let out = '';
    let peak = 0;
    child.stdout.on('data', (d) => (out += d));
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      } catch {
        // gone
      }
    };
    const timer = setInterval(sample, 50);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, ms: Date.now() - started, peakRssBytes: peak, stdout: out });
    });
  });
}

const windeckOut = path.join(tmp, 'out', 'bundle.zip');
fs.mkdirSync(path.dirname(windeckOut), { recursive: true });
console.error('running Windeck (redaction + final scan + zip) ...');
const w = await measure(process.execPath, [entry, logsDir, windeckOut]);
if (w.code !== 0) throw new Error(`the Windeck pipeline failed (exit ${w.code})`);
const wr = JSON.parse(w.stdout.trim().split('\n').pop());
const windeckBytes = wr.paths.reduce((n, p) => n + fs.statSync(p).size, 0);

console.error('running zip -r -6 ...');
const zipOut = path.join(tmp, 'zip-r-6.zip');
// CPU seconds (user + system) of zip from /usr/bin/time: unlike wall time they do not depend on what else runs.
const zipTimes = path.join(tmp, 'zip-time.txt');
const z = await measure('/usr/bin/time', ['-f', '%U %S', '-o', zipTimes, 'zip', '-q', '-r', '-6', zipOut, 'logs'], { cwd: tmp });
if (z.code !== 0) throw new Error(`zip failed (exit ${z.code})`);
const zipCpuMs = fs
  .readFileSync(zipTimes, 'utf8')
  .trim()
  .split('\n')
  .pop()
  .split(' ')
  .reduce((n, v) => n + Number(v) * 1000, 0);

// ---- 3. Checks: every archive tests clean; no seeded secret survives in Windeck's parts.
const tests = [];
for (const p of [...wr.paths, zipOut]) {
  const t = spawnSync('unzip', ['-tq', p], { encoding: 'utf8' });
  tests.push({ file: path.basename(p), ok: t.status === 0, output: (t.stdout + t.stderr).trim().split('\n').pop() });
}
const leaks = [];
const scanDir = path.join(tmp, 'unpacked');
for (const p of wr.paths) {
  fs.rmSync(scanDir, { recursive: true, force: true });
  spawnSync('unzip', ['-q', p, '-d', scanDir]);
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(scanDir)) {
    let data = fs.readFileSync(f);
    if (f.endsWith('.gz')) data = zlib.gunzipSync(data);
    for (const s of SECRETS) if (data.includes(Buffer.from(s))) leaks.push(`${path.basename(p)}:${path.relative(scanDir, f)}: ${s.slice(0, 6)}…`);
  }
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  input: {
    files: FILES,
    gzippedFiles: Math.floor(FILES / 10),
    logMiB: Math.round(total / 1048576),
    onDiskMiB: Math.round(fs.readdirSync(logsDir).reduce((n, f) => n + fs.statSync(path.join(logsDir, f)).size, 0) / 1048576),
  },
  windeck: {
    seconds: +(w.ms / 1000).toFixed(1),
    redactSeconds: +(wr.redactMs / 1000).toFixed(1),
    zipSeconds: +(wr.zipMs / 1000).toFixed(1),
    cpuSeconds: +(wr.cpuMs / 1000).toFixed(1),
    peakRssMiB: +(Math.max(w.peakRssBytes, wr.maxRssBytes) / 1048576).toFixed(1),
    peakRssDuringRedactionMiB: +(wr.redactPeakRssBytes / 1048576).toFixed(1),
    parts: wr.paths.length,
    outputMiB: +(windeckBytes / 1048576).toFixed(1),
    redacted: wr.counts,
  },
  zip6: {
    seconds: +(z.ms / 1000).toFixed(1),
    cpuSeconds: +(zipCpuMs / 1000).toFixed(1),
    peakRssMiB: +(z.peakRssBytes / 1048576).toFixed(1),
    outputMiB: +(fs.statSync(zipOut).size / 1048576).toFixed(1),
  },
  // time: measured wall times (noisy on a shared machine); cpu: Windeck's CPU seconds (all threads) / zip's;
  // cpuOn2Cores: Windeck's CPU seconds spread over 2 cores / zip's, the wall ratio 2 idle cores would give at best.
  ratio: { time: +(w.ms / z.ms).toFixed(2), cpu: +(wr.cpuMs / zipCpuMs).toFixed(2), cpuOn2Cores: +(wr.cpuMs / 2 / zipCpuMs).toFixed(2) },
  loadAverage: os.loadavg().map((x) => +x.toFixed(2)),
  unzipTest: tests,
  leaks,
};
console.log(JSON.stringify(result, null, 2));
if (!quick || args.includes('--record')) {
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench', 'results', 'bundle.json'), JSON.stringify(result, null, 2) + '\n');
}
if (!args.includes('--keep')) fs.rmSync(tmp, { recursive: true, force: true });
else console.error(`kept ${tmp}`);
if (tests.some((t) => !t.ok) || leaks.length) {
  console.error('FAILED: an archive did not test clean or a seeded secret survived');
  process.exit(1);
}
