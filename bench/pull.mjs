#!/usr/bin/env node
// Pull benchmark (not part of `npm test`): one large log (default 200 MB) fetched over SSH from a loopback node by
// Windeck's SFTP download (SshTransport.download, ssh2) versus OpenSSH `scp` (SFTP mode, the default since
// OpenSSH 9) against the same endpoint: a real OpenSSH sshd on 127.0.0.1 serving `internal-sftp` from a chroot
// that holds `C:/bench/pull.log` (the Windows OpenSSH layout Windeck expects: `C:\bench\pull.log` ->
// `/C:/bench/pull.log`). The server allows exactly one cipher (default aes128-gcm@openssh.com), so both sides
// run the same cipher and key exchange. Each run is a fresh process and connection (connect + auth + transfer),
// written to a file on the same disk. Alternating order, several repetitions; median and p95; throughput ratio.
// Why not the ssh2 node simulator: its SFTP server is JavaScript too and would be the bottleneck for both.
// Prints one JSON object on the last line of stdout. Never fails on timing. Needs root (sshd chroot) and sshd.
//
//   node bench/pull.mjs            200 MB, 5 repetitions
//   node bench/pull.mjs --quick    200 MB (the issue's size: at 64 MB Node's start-up is a third of the run), 3 repetitions
//   node bench/pull.mjs --mb 100 --reps 3 --cipher chacha20-poly1305@openssh.com
//   node bench/pull.mjs --reps 1 --cpu-prof /tmp/prof    (a V8 CPU profile of each Windeck run)
//   node bench/pull.mjs --only windeck --reps 3           (one side only, for profiling; no ratio)
//   node bench/pull.mjs --only windeck --node-flags=--no-concurrent-marking   (an experiment: V8 flags the product does
//                                                          not set; the result records them)
// Besides wall time, each run's CPU time (user + sys of the client and its children, from /usr/bin/time when
// present) is reported: on a loaded machine CPU ms per MB is steadier than MB/s. `windeck.outsidePullMedianMs` splits
// the Windeck run's time outside the pull (Node's start + program evaluation, loading ssh2, exit); with
// NODE_EXTRA_CA_CERTS set, `nodeExtraCaCerts` says what it adds to every Node start (Node 20 loads the CA store then).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleProgram, flag, root } from './lib/build.mjs';
import { opensshClientOptions } from './lib/openssh.mjs';
import { sshdConfigText } from '../test/interop/sshd-harness.mjs';
import { runMeasured } from './lib/proc.mjs';
import { ratio, summarize } from './lib/stats.mjs';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    [
      'usage: node bench/pull.mjs [--quick] [--mb N] [--reps N] [--cipher NAME] [--cpu-prof DIR] [--only windeck|scp]',
      '  --quick        3 repetitions (default 5); the file stays 200 MB (the issue size)',
      '  --mb N         file size in MB (default 200)',
      '  --reps N       measured repetitions after one unmeasured warm-up round',
      '  --cipher NAME  the one cipher sshd allows (default aes128-gcm@openssh.com)',
      '  --cpu-prof DIR a V8 CPU profile of every Windeck run into DIR',
      '  --only SIDE    run only windeck or only scp (profiling; no ratio)',
      '  --node-flags=F extra node/V8 flags for the Windeck process (space-separated; an experiment, not the product)',
      'Needs root, sshd and scp. Prints one JSON object on the last line of stdout.',
    ].join('\n'),
  );
  process.exit(0);
}
const quick = args.includes('--quick');
const MB = Number(flag(args, '--mb', 200));
const REPS = Number(flag(args, '--reps', quick ? 3 : 5));
// --cpu-prof DIR: a V8 CPU profile of every Windeck run (where the time goes).
const CPU_PROF = flag(args, '--cpu-prof', null);
const CIPHER = flag(args, '--cipher', 'aes128-gcm@openssh.com');
const ONLY = flag(args, '--only', null);
if (ONLY !== null && ONLY !== 'windeck' && ONLY !== 'scp') throw new Error(`--only takes windeck or scp, not ${ONLY}`);
// --node-flags=F (the = form, since F starts with --): node/V8 flags for the Windeck process only. The product sets
// none of these; a result with them says so (`windeckNodeFlags`).
const NODE_FLAGS = (args.find((a) => a.startsWith('--node-flags=')) ?? '--node-flags=').slice('--node-flags='.length).split(/\s+/).filter(Boolean);
// CPU time of a run (user + sys of the process and its waited-for children: scp's ssh) via GNU time, if present.
// Both sides run under it, so both peak RSS figures include GNU time's own ~1-2 MiB.
const TIME_BIN = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const imp = (p) => JSON.stringify(path.join(root, p));

const sshdBin = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => fs.existsSync(p));
const missing = [];
if (!sshdBin) missing.push('sshd (apt-get install -y openssh-server)');
if (spawnSync('which', ['scp']).status !== 0) missing.push('scp (apt-get install -y openssh-client)');
if (process.getuid?.() !== 0) missing.push('root (sshd must chroot into the fake C: drive)');
if (missing.length) {
  console.log(JSON.stringify({ bench: 'pull', notMeasured: `missing: ${missing.join(', ')}` }));
  process.exit(0);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-pull-bench-'));
// ChrootDirectory: every path component must be root-owned and not group/world-writable (so not under /tmp).
const chroot = fs.mkdtempSync('/run/windeck-pull-bench-');
fs.chmodSync(chroot, 0o755);
let sshd = null;
const cleanup = () => {
  if (sshd && sshd.exitCode === null) sshd.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(chroot, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

try {
  // ---- the file: log-shaped lines, generated from a 1 MiB block
  const remoteDir = path.join(chroot, 'C:', 'bench');
  fs.mkdirSync(remoteDir, { recursive: true });
  const source = path.join(remoteDir, 'pull.log');
  const lines = [];
  for (let n = 0, size = 0; size < 1024 * 1024; n += 1) {
    const l = `I0612 10:${String(n % 60).padStart(2, '0')}:00.${String((n * 7919) % 1e6).padStart(6, '0')}    4242 kubelet.go:${2000 + (n % 500)}] "SyncLoop (PLEG): event for pod" pod="kube-system/kube-proxy-windows-${(n * 31337).toString(36)}" event={"Type":"ContainerStarted"}\n`;
    lines.push(l);
    size += l.length;
  }
  const block = Buffer.from(lines.join(''));
  const want = MB * 1e6;
  const fd = fs.openSync(source, 'w');
  for (let written = 0; written < want;) written += fs.writeSync(fd, block, 0, Math.min(block.length, want - written));
  fs.closeSync(fd);
  const sourceHash = sha256(source);

  // ---- keys, sshd
  const key = path.join(tmp, 'client_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-bench', '-f', key]);
  const hostKey = path.join(tmp, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-bench-host', '-f', hostKey]);
  const authorized = path.join(tmp, 'authorized_keys');
  fs.writeFileSync(authorized, fs.readFileSync(`${key}.pub`), { mode: 0o600 });
  const port = await freePort();
  const config = path.join(tmp, 'sshd_config');
  fs.writeFileSync(
    config,
    sshdConfigText({
      listen: [{ host: '127.0.0.1', port }],
      hostKey,
      pidFile: path.join(tmp, 'sshd.pid'),
      authorizedKeysFile: authorized,
      extra: [`Ciphers ${CIPHER}`, 'Subsystem sftp internal-sftp', 'ForceCommand internal-sftp', `ChrootDirectory ${chroot}`],
    }),
  );
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  execFileSync(sshdBin, ['-t', '-f', config]);
  const sshdLog = path.join(tmp, 'sshd.log');
  const logFd = fs.openSync(sshdLog, 'a');
  sshd = spawn(sshdBin, ['-D', '-e', '-f', config], { stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise((r) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (up) break;
    if (Date.now() > deadline || sshd.exitCode !== null) throw new Error(`sshd did not start: ${fs.readFileSync(sshdLog, 'utf8').slice(-1500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const hostPub = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  const knownHosts = path.join(tmp, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();

  const windeckProgram = await bundleProgram(
    'pull-windeck',
    `import fs from 'node:fs';
    import { PerformanceObserver } from 'node:perf_hooks';
    import { PinningVerifier } from ${imp('electron/services/transports/ssh/host-keys.ts')};
    import { parseKnownHosts } from ${imp('electron/services/transports/ssh/known-hosts.ts')};
    import { SshTransport } from ${imp('electron/services/transports/ssh/exec.ts')};
    import { SshPool } from ${imp('electron/services/transports/ssh/pool.ts')};
    import { loadSsh2 } from ${imp('electron/services/transports/ssh/connect.ts')};
    // performance.now() counts from the process's start: here, Node has started and this bundle is evaluated.
    const mainAt = performance.now();
    const [port, keyFile, knownHostsFile, user, dest] = process.argv.slice(2);
    const pool = new SshPool({ verifier: new PinningVerifier({ knownHosts: parseKnownHosts(fs.readFileSync(knownHostsFile, 'utf8')) }) });
    const t = new SshTransport('bench-node', { node: 'bench-node', host: '127.0.0.1', port: Number(port), auth: { username: user, privateKey: fs.readFileSync(keyFile) } }, pool);
    // The console has Node and ssh2 loaded when a user pulls a log (ssh2 is preloaded when idle): time from here
    // (connect + auth + SFTP open + transfer + file closed) is the pull as the console runs it; the process's
    // whole run (what the verdict uses, like scp's) adds Node's start and module loading.
    await loadSsh2();
    const ssh2At = performance.now();
    // Garbage collections during the pull (major = mark-compact): what ssh2's per-packet buffers cost.
    const gc = { major: 0, minor: 0, ms: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.detail?.kind === 4) gc.major += 1;
        else gc.minor += 1;
        gc.ms += e.duration;
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const started = performance.now();
    const sink = fs.createWriteStream(dest);
    const bytes = await t.download('C:\\\\bench\\\\pull.log', sink, { signal: new AbortController().signal, timeouts: { connectMs: 60000, channelMs: 60000, idleMs: 60000 } });
    await new Promise((resolve, reject) => sink.end((e) => (e ? reject(e) : resolve())));
    const inProcessMs = performance.now() - started;
    await pool.dispose();
    gcObserver.disconnect();
    const r1 = (v) => Math.round(v * 10) / 10;
    // Where the run's time outside the pull goes (the harness adds the exit: its wall time minus endMs).
    const phases = { startMs: r1(mainAt), ssh2LoadMs: r1(ssh2At - mainAt), setupMs: r1(started - ssh2At), endMs: r1(performance.now()) };
    console.log(JSON.stringify({ bytes, inProcessMs, gc: { ...gc, ms: r1(gc.ms) }, phases }));`,
  );

  const dest = path.join(tmp, 'dest');
  fs.mkdirSync(dest);
  const cpuFile = path.join(tmp, 'cpu.txt');
  /** runMeasured, with the CPU seconds (user + sys) of the run when GNU time is there. */
  const measured = async (cmd, cmdArgs) => {
    fs.rmSync(cpuFile, { force: true });
    const r = await runMeasured(TIME_BIN ?? cmd, TIME_BIN ? ['-q', '-f', '%U %S', '-o', cpuFile, cmd, ...cmdArgs] : cmdArgs);
    const t = TIME_BIN && fs.existsSync(cpuFile) ? fs.readFileSync(cpuFile, 'utf8').trim().split(/\s+/).map(Number) : null;
    return { ...r, cpuMs: t && t.length === 2 && t.every(Number.isFinite) ? Math.round((t[0] + t[1]) * 1000) : null };
  };
  const contenders = {
    windeck: async (out) => {
      const r = await measured(process.execPath, [
        ...(CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []),
        ...NODE_FLAGS,
        windeckProgram,
        String(port),
        key,
        knownHosts,
        user,
        out,
      ]);
      if (r.code !== 0) return { ok: false, error: r.stderr.slice(-600) };
      const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
      const phases = last.phases ? { ...last.phases, exitMs: Math.round((r.ms - last.phases.endMs) * 10) / 10 } : null;
      return { ok: true, ms: r.ms, cpuMs: r.cpuMs, peakRssMiB: r.peakRssMiB, inProcessMs: last.inProcessMs ?? null, gc: last.gc ?? null, phases };
    },
    scp: async (out) => {
      const r = await measured('scp', [
        '-q',
        '-P',
        String(port),
        '-c',
        CIPHER,
        ...opensshClientOptions({ knownHosts, key }),
        `${user}@127.0.0.1:/C:/bench/pull.log`,
        out,
      ]);
      if (r.code !== 0) return { ok: false, error: r.stderr.slice(-600) };
      return { ok: true, ms: r.ms, cpuMs: r.cpuMs, peakRssMiB: r.peakRssMiB };
    },
  };
  // NODE_EXTRA_CA_CERTS in the environment (set on the CI machine): Node 20 reads the CA store and that file when
  // any Node process starts, so every Windeck run pays it and scp does not. Measured here (an empty Node process
  // with and without it, alternating) so the result says how much of the gap it is; the runs keep the environment.
  let nodeExtraCaCerts = null;
  if (process.env.NODE_EXTRA_CA_CERTS) {
    const withIt = [];
    const without = [];
    const bare = { ...process.env };
    delete bare.NODE_EXTRA_CA_CERTS;
    for (let i = 0; i < 5; i += 1) {
      withIt.push((await runMeasured(process.execPath, ['-e', '0'])).ms);
      without.push((await runMeasured(process.execPath, ['-e', '0'], { env: bare })).ms);
    }
    const a = summarize(withIt).median;
    const b = summarize(without).median;
    nodeExtraCaCerts = { emptyNodeStartMs: { with: a, without: b }, costPerNodeStartMs: Math.round((a - b) * 10) / 10 };
  }
  const runs = { windeck: [], scp: [] };
  const integrity = {};
  for (let rep = -1; rep < REPS; rep += 1) {
    // rep -1: one unmeasured warm-up round (page cache, sshd), which also checks the bytes arrive intact.
    const order = ONLY ? [ONLY] : rep % 2 === 0 ? ['windeck', 'scp'] : ['scp', 'windeck'];
    for (const who of order) {
      const out = path.join(dest, `${who}.log`);
      fs.rmSync(out, { force: true });
      const r = await contenders[who](out);
      if (rep === -1) {
        integrity[who] = r.ok ? (sha256(out) === sourceHash ? 'sha256 matches' : 'sha256 MISMATCH') : `failed: ${r.error}`;
        console.error(`  warm-up ${who}: ${integrity[who]}`);
        continue;
      }
      runs[who].push(r);
      console.error(
        `  rep ${rep + 1} ${who.padEnd(7)} ${r.ok ? `${(r.ms / 1000).toFixed(2)} s, ${(want / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s, cpu ${r.cpuMs === null ? '?' : `${(r.cpuMs / 1000).toFixed(2)} s`}, load ${os.loadavg()[0].toFixed(1)}, peak ${r.peakRssMiB} MiB${r.gc ? `, in-process ${(r.inProcessMs / 1000).toFixed(2)} s, major GCs ${r.gc.major}` : ''}` : `FAILED ${r.error}`}`,
      );
    }
  }
  const side = (who) => {
    const ok = runs[who].filter((r) => r.ok);
    const ms = summarize(ok.map((r) => r.ms));
    return {
      ms,
      mbPerSecond: ms.median ? Math.round((want / 1e6 / (ms.median / 1000)) * 10) / 10 : null,
      mbPerSecondAtP95Time: ms.p95 ? Math.round((want / 1e6 / (ms.p95 / 1000)) * 10) / 10 : null,
      // Client CPU (user + sys, children included) per MB moved: steadier than MB/s on a busy machine.
      cpuMs: summarize(ok.map((r) => r.cpuMs)),
      cpuMsPerMB: (() => {
        const c = summarize(ok.map((r) => r.cpuMs)).median;
        return c === null ? null : Math.round((c / (want / 1e6)) * 100) / 100;
      })(),
      peakRssMiB: summarize(ok.map((r) => r.peakRssMiB)),
      ...(who === 'windeck'
        ? (() => {
            const inProcess = summarize(ok.map((r) => r.inProcessMs).filter((v) => typeof v === 'number'));
            return {
              inProcessMs: inProcess,
              inProcessMbPerSecond: inProcess.median ? Math.round((want / 1e6 / (inProcess.median / 1000)) * 10) / 10 : null,
              // Garbage collections during the pull, per run (major = mark-compact).
              majorGcs: summarize(ok.map((r) => r.gc?.major).filter((v) => typeof v === 'number')),
              gcMs: summarize(ok.map((r) => r.gc?.ms).filter((v) => typeof v === 'number')),
              // Medians of the time outside the pull: Node's start + the program's evaluation (startMs), loading
              // ssh2, the pool/transport set-up, and from the program's last line to the process's exit as the
              // harness saw it (exitMs, includes spawning the process under GNU time).
              outsidePullMedianMs: Object.fromEntries(
                ['startMs', 'ssh2LoadMs', 'setupMs', 'exitMs'].map((k) => [
                  k,
                  summarize(ok.map((r) => r.phases?.[k]).filter((v) => typeof v === 'number')).median,
                ]),
              ),
            };
          })()
        : {}),
      failedRuns: runs[who].filter((r) => !r.ok).map((r) => r.error),
    };
  };
  const windeck = side('windeck');
  const scp = side('scp');
  console.log(
    JSON.stringify({
      bench: 'pull',
      profile: quick ? 'quick' : 'full',
      file: { mb: MB, bytes: want },
      endpoint: `OpenSSH sshd ${spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'openssh-server'], { encoding: 'utf8' }).stdout || ''} on 127.0.0.1, internal-sftp, chroot with C:/bench/pull.log`,
      cipher: CIPHER,
      ...(nodeExtraCaCerts ? { nodeExtraCaCerts: { ...nodeExtraCaCerts, note: 'set in the environment; every Windeck run pays it, scp does not' } } : {}),
      ...(NODE_FLAGS.length
        ? { windeckNodeFlags: NODE_FLAGS.join(' '), note: 'experiment: the Windeck process ran with node/V8 flags the product does not set' }
        : {}),
      repetitions: REPS,
      order: 'alternating (scp first on odd repetitions), one unmeasured warm-up round; each run = new process + connection',
      integrity,
      loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
      windeck,
      scp,
      ratio: {
        throughputVsScp: ratio(windeck.mbPerSecond, scp.mbPerSecond),
        cpuPerMBVsScp: ratio(windeck.cpuMsPerMB, scp.cpuMsPerMB),
        inProcessThroughputVsScp: ratio(windeck.inProcessMbPerSecond, scp.mbPerSecond),
      },
    }),
  );
} finally {
  cleanup();
}
