#!/usr/bin/env node
// Fan-out benchmark (not part of `npm test`): one command (the `services` script) on N simulated Windows nodes
// (default 200), each its own SSH endpoint (127.0.60.x) served by real OpenSSH sshd, run by Windeck's SSH
// transport (fan-out limit 32) and by `parallel-ssh -p 32` (Debian pssh) with the same key, known_hosts, command
// line and stdin. Cold = new connections; warm = Windeck's pooled connections from the cold run. The peer for both
// targets is parallel-ssh as users run it (a new connection per host every run); parallel-ssh with OpenSSH
// ControlMaster sockets (cold run opens them, warm run reuses them) is reported next to it for information.
// Reports median wall times and ratios over --reps repetitions (alternating order), and the main event-loop
// delay inside the Windeck process during each run (perf_hooks monitorEventLoopDelay); never fails on timing.
//
// The node side must not be the bottleneck (issue 10: generate load cheaply): by default the simulator's answer
// to the exact invocation is recorded once per node (the node simulator's command host, not a hand-written
// text), and sshd's ForceCommand replays it with /bin/sh + cat (reads stdin to the end first, picks the node by
// the address sshd was dialled on). `--live-sim` runs the simulator per command instead (sshd ForceCommand ->
// a Node helper -> the command relay), as the interop tests do; that costs ~100 ms of CPU per command and
// dominates both sides on 2 cores.
//
//   node bench/fanout.mjs             200 nodes, limit 32, 3 repetitions
//   node bench/fanout.mjs --quick     48 nodes, 3 repetitions
//   node bench/fanout.mjs --nodes 100 --limit 16 --reps 1 --live-sim
//   node bench/fanout.mjs --quick --node-nice 0     (the node side at normal priority; default nice 10, see NODE_NICE)
//
// As root it logs in as its own system user `windeck-bench` (shell /bin/sh; created and removed by the run) so that
// root's ~/.bashrc is not run for every command; `--user NAME` logs in as NAME instead.
//
// Needs: sshd (apt-get install -y openssh-server), parallel-ssh (apt-get install -y pssh), ssh, ssh-keygen.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeExternals, withoutZodLocales } from '../build/node-externals.mjs';
import { freePort, startSshd } from '../test/interop/sshd-harness.mjs';
import { asPsshOptions, opensshClientOptions } from './lib/openssh.mjs';
import { helpAndExit } from './lib/usage.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const quick = args.includes('--quick');
const NODES = Number(flag('--nodes', quick ? 48 : 200));
const LIMIT = Number(flag('--limit', 32));
const REPS = Math.max(1, Number(flag('--reps', 3)));
const LIVE_SIM = args.includes('--live-sim');
const CPU_PROF = flag('--cpu-prof', null);
// The simulated nodes' sshd (and the commands it runs) at this niceness: in a cluster the nodes are other machines,
// so their CPU must not show up as the console's event-loop delay; on 2 cores, 200 sshd handshakes at normal
// priority also delay Windeck's timers. Both sides dial the same sshd, so the ratios are unaffected.
// `--node-nice 0` runs them as before. The kernel's autogroup scheduling makes nice meaningless across sessions, so
// the node side also goes into a CPU group with the same weight (nodeSideCpuGroup).
const NODE_NICE = Math.max(0, Math.min(19, Number(flag('--node-nice', 10))));
/** The node side's processes (each sshd, the live simulator): moved into a CPU group, see nodeSideCpuGroup. */
const nodePids = [];

/**
 * With the kernel's autogroup scheduling (kernel.sched_autogroup_enabled = 1, as on this machine) nice only ranks
 * processes of one session against each other, and sshd starts a session (setsid) for every login: 32 logins at
 * once were 32 groups with the Windeck process's weight each, nice 10 or not, and the Windeck process waited
 * 100-150 ms for a CPU in the middle of a warm fan-out. A CPU control group keeps what NODE_NICE means across
 * sessions: the node side's processes (and every process they start) share one group with the weight of one nice
 * NODE_NICE task (CFS: 1024 / 1.25^nice, 110 at nice 10) against Windeck's 1024. Uses cgroup v1's cpu controller at
 * /sys/fs/cgroup/cpu or cgroup v2 with the cpu controller enabled at /sys/fs/cgroup; neither (no root, a container):
 * nice only, and the result says so.
 */
function nodeSideCpuGroup(pids) {
  const weight = Math.round(1024 / 1.25 ** NODE_NICE);
  const name = `windeck-bench-nodes-${process.pid}`;
  const v1 = '/sys/fs/cgroup/cpu';
  const v2 = '/sys/fs/cgroup';
  const read = (f) => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  let group;
  let setting;
  try {
    if (fs.existsSync(path.join(v1, 'cpu.shares'))) {
      group = path.join(v1, name);
      fs.mkdirSync(group);
      setting = `cpu.shares ${weight}`;
      fs.writeFileSync(path.join(group, 'cpu.shares'), String(weight));
    } else if (/\bcpu\b/.test(read(path.join(v2, 'cgroup.subtree_control')))) {
      group = path.join(v2, name);
      fs.mkdirSync(group);
      // cgroup v2 weights are 1..10000 with 100 for a nice 0 task.
      const w2 = Math.max(1, Math.round((weight * 100) / 1024));
      setting = `cpu.weight ${w2}`;
      fs.writeFileSync(path.join(group, 'cpu.weight'), String(w2));
    } else return { group: null, why: 'no writable cpu cgroup controller' };
    for (const pid of pids) fs.writeFileSync(path.join(group, 'cgroup.procs'), String(pid));
    return { group, setting };
  } catch (error) {
    if (group) {
      // Back to the group they came from (the root group), then remove ours.
      for (const pid of pids) tryQuietly(() => fs.writeFileSync(path.join(path.dirname(group), 'cgroup.procs'), String(pid)));
      tryQuietly(() => fs.rmdirSync(group));
    }
    return { group: null, why: `cgroup: ${error.code ?? error.message}` };
  }
}

function tryQuietly(f) {
  try {
    f();
  } catch {
    // best effort
  }
}

/** Remove the node side's CPU group once its processes are gone (sshd's sessions may outlive sshd by a moment). */
async function removeCpuGroup(group) {
  for (let tries = 0; tries < 50; tries++) {
    try {
      fs.rmdirSync(group);
      return;
    } catch (error) {
      if (error.code === 'ENOENT') return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  console.error(`fanout: could not remove ${group} (processes still in it); remove it with: rmdir ${group}`);
}

for (const [bin, pkg] of [
  ['parallel-ssh', 'pssh'],
  ['ssh', 'openssh-client'],
  ['ssh-keygen', 'openssh-client'],
]) {
  if (spawnSync('which', [bin]).status !== 0) {
    console.error(`${bin} is missing: apt-get install -y ${pkg}`);
    process.exit(1);
  }
}

const work = path.join(root, 'node_modules', '.cache', 'windeck-bench');
fs.mkdirSync(work, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-fanout-'));
const children = [];
const stops = [];
/** The node side's CPU group (nodeSideCpuGroup), removed by cleanup. */
let cpuGroup = null;
async function cleanup() {
  for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  // Last: the node side's CPU group, once every process in it is gone.
  if (cpuGroup) await removeCpuGroup(cpuGroup);
  cpuGroup = null;
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

// Programs bundled from the TypeScript sources (bare imports resolve from node_modules).
const simImports = `
    import { createCommandHost } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/command-host.ts'))};
    import { WindowsNodeModel } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/node-model.ts'))};
    import { resolveScenario } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/scenario.ts'))};
    const hostFor = (a, i) => createCommandHost({ model: new WindowsNodeModel(resolveScenario('healthy', { nodeName: 'win-' + i, nodeIp: a }).spec) });
`;
const programs = {
  // --live-sim: every command runs in the simulator (sshd ForceCommand -> Node helper -> this relay).
  sim: `
    ${simImports}
    import { startCommandRelay } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/command-relay.ts'))};
    const addresses = JSON.parse(process.argv[2]);
    const hosts = new Map(addresses.map((a, i) => [a, hostFor(a, i)]));
    const relay = await startCommandRelay((h) => hosts.get((h.connection ?? '').split(' ')[2] ?? '') ?? null);
    console.log(JSON.stringify({ port: relay.port }));
    process.on('SIGTERM', () => relay.close().then(() => process.exit(0)));
  `,
  // Default: the simulator answers the exact invocation once per node; sshd replays the recording.
  record: `
    ${simImports}
    import fs from 'node:fs';
    import path from 'node:path';
    const [addressesJson, invocationFile, dir] = process.argv.slice(2);
    const { commandLine, stdin } = JSON.parse(fs.readFileSync(invocationFile, 'utf8'));
    const drain = (stream) => new Promise((resolve) => { const parts = []; stream.on('data', (c) => parts.push(c)); stream.on('end', () => resolve(Buffer.concat(parts))); });
    for (const [i, a] of JSON.parse(addressesJson).entries()) {
      const exec = hostFor(a, i).execute(commandLine, stdin);
      const [out, err, exit] = await Promise.all([drain(exec.stdout), drain(exec.stderr), exec.exit]);
      fs.writeFileSync(path.join(dir, a + '.out'), out);
      fs.writeFileSync(path.join(dir, a + '.err'), err);
      fs.writeFileSync(path.join(dir, a + '.code'), String(exit.code) + '\\n');
    }
    console.log(JSON.stringify({ recorded: JSON.parse(addressesJson).length }));
  `,
  windeck: `
    import fs from 'node:fs';
    import { monitorEventLoopDelay } from 'node:perf_hooks';
    import { runScript } from ${JSON.stringify(path.join(root, 'electron/services/powershell/invoke.ts'))};
    import { fanOut } from ${JSON.stringify(path.join(root, 'electron/services/transports/fan-out.ts'))};
    import { PinningVerifier } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/host-keys.ts'))};
    import { SshTransport } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/exec.ts'))};
    import { SshPool } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/pool.ts'))};
    import { loadSsh2 } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/connect.ts'))};
    import { parseKnownHosts } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/known-hosts.ts'))};
    const [endpointsJson, keyFile, knownHostsFile, user, limit] = process.argv.slice(2);
    const endpoints = JSON.parse(endpointsJson);
    const privateKey = fs.readFileSync(keyFile);
    // Idle close after 10 min: a slow cold run must not let the first connections expire before the warm run.
    const pool = new SshPool({ idleMs: 600000, verifier: new PinningVerifier({ knownHosts: parseKnownHosts(fs.readFileSync(knownHostsFile, 'utf8')) }) });
    // Main event-loop delay inside this (Windeck) process during each fan-out (issue 10 item 4: p99 <= 50 ms).
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const once = async () => {
      loop.reset();
      const cpu0 = process.cpuUsage();
      const started = performance.now();
      const results = await fanOut(endpoints, Number(limit), (e, signal) =>
        runScript(new SshTransport(e.host, { node: e.host, host: e.host, port: e.port, auth: { username: user, privateKey } }, pool), 'services', { names: ['kubelet', 'kube-proxy'] }, { signal, timeouts: { commandMs: 300000, idleMs: 300000, connectMs: 60000, channelMs: 60000 } }),
      );
      const ok = results.filter((r) => r.ok && r.value.exitCode === 0 && r.value.stdout.includes('kube-proxy')).length;
      const errors = [...new Set(results.filter((r) => !r.ok).map((r) => r.error.code + ': ' + r.error.message.slice(0, 100)))].slice(0, 3);
      // The histogram holds the time between samples (10 ms apart when idle): the delay is what exceeds 10 ms.
      const lag = (ns) => Math.max(0, ns / 1e6 - 10);
      const eventLoopDelayMs = { p50: lag(loop.percentile(50)), p99: lag(loop.percentile(99)), max: lag(loop.max) };
      const cpu = process.cpuUsage(cpu0);
      return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, ok, errors, eventLoopDelayMs };
    };
    // The console hosts load ssh2 a few seconds after start-up (electron/services/transports/preload.ts), so a
    // user's first fan-out finds it loaded; this process does the same before the measured runs and reports the
    // load's own cost (synchronous, event-loop blocking) separately.
    const loadStarted = performance.now();
    await loadSsh2();
    const ssh2LoadMs = performance.now() - loadStarted;
    const cold = await once();
    const warm = await once();
    console.log(JSON.stringify({ cold, warm, ssh2LoadMs, dials: pool.dials, peakHandshakes: pool.peakHandshakes }));
    await pool.dispose();
  `,
};
const bundles = {};
for (const [name, contents] of Object.entries(programs)) {
  const outfile = path.join(work, `fanout-${name}.mjs`);
  await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: nodeExternals(),
    plugins: [withoutZodLocales],
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  bundles[name] = outfile;
}

function runNode(file, argv, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, file, ...argv], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, WINDECK_SCRIPTS_DIR: path.join(root, 'electron/services/powershell/scripts') },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${path.basename(file)} exited ${code}`))));
  });
}

function time(cmd, argv, input) {
  const started = performance.now();
  const r = spawnSync(cmd, argv, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { ms: performance.now() - started, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  // The login the nodes are reached as. sshd runs every command through the user's login shell, and bash run by
  // sshd reads ~/.bashrc: on this kind of machine root's ~/.bashrc starts `pyenv init`, about 100 ms of process
  // spawning per command, on both sides, which is not what a fan-out measures. As root, the benchmark uses its own
  // system user with /bin/sh (created here, removed at the end; `--user NAME` picks another login).
  let user = flag('--user', null);
  if (!user && process.getuid?.() === 0 && !LIVE_SIM) {
    user = 'windeck-bench';
    if (spawnSync('id', [user]).status !== 0) {
      // Password field '*': no password login, but not a locked account (sshd without PAM refuses locked ones).
      execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/bin/sh', '--password', '*', user]);
      stops.push(async () => {
        spawnSync('userdel', [user]);
      });
    }
    // The bench user reads the replay script and the recorded answers.
    fs.chmodSync(tmp, 0o755);
  }
  user ??= execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  const addresses = Array.from({ length: NODES }, (_, i) => `127.0.60.${i + 1}`);
  if (NODES > 250) throw new Error('at most 250 nodes (127.0.60.1-250)');

  // The exact invocation Windeck sends: command line + stdin bootstrap of the services script.
  const prep = path.join(work, 'fanout-prep.mjs');
  await build({
    stdin: {
      contents: `
        import { bootstrapFor, POWERSHELL_COMMAND_LINE, validateScriptArgs } from ${JSON.stringify(path.join(root, 'electron/services/powershell/invoke.ts'))};
        import { loadScript } from ${JSON.stringify(path.join(root, 'electron/services/powershell/script-loader.ts'))};
        const s = await loadScript('services', [${JSON.stringify(path.join(root, 'electron/services/powershell/scripts'))}]);
        console.log(JSON.stringify({ commandLine: POWERSHELL_COMMAND_LINE, stdin: bootstrapFor(s.text, validateScriptArgs('services', { names: ['kubelet', 'kube-proxy'] })) }));
      `,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: prep,
    external: nodeExternals(),
    plugins: [withoutZodLocales],
    logLevel: 'warning',
  });
  const invocationText = await runNode(prep, []);
  const invocation = JSON.parse(invocationText);
  const invocationFile = path.join(tmp, 'invocation.json');
  fs.writeFileSync(invocationFile, invocationText);

  // The node side: recorded answers replayed by /bin/sh, or the live simulator behind a relay.
  let relay = { host: '127.0.0.1', port: 1 };
  let forceCommand = null;
  if (LIVE_SIM) {
    const simArgs = [process.execPath, bundles.sim, JSON.stringify(addresses)];
    const sim =
      NODE_NICE > 0
        ? spawn('nice', ['-n', String(NODE_NICE), ...simArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
        : spawn(simArgs[0], simArgs.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(sim);
    nodePids.push(sim.pid);
    relay.port = await new Promise((resolve, reject) => {
      let out = '';
      sim.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n')[0];
        if (out.includes('\n')) resolve(JSON.parse(line).port);
      });
      sim.once('exit', (c) => reject(new Error(`simulator exited ${c}`)));
    });
    stops.push(async () => {
      sim.kill('SIGTERM');
    });
  } else {
    const answers = path.join(tmp, 'answers');
    fs.mkdirSync(answers, { mode: 0o755 });
    await runNode(bundles.record, [JSON.stringify(addresses), invocationFile, answers]);
    const replay = path.join(tmp, 'replay.sh');
    fs.writeFileSync(
      replay,
      [
        '#!/bin/sh',
        "# Replays the node simulator's recorded answer (see bench/fanout.mjs). Reads stdin to the end first, as the",
        '# simulated PowerShell does; the node is the address sshd was dialled on ($SSH_CONNECTION field 3).',
        'cat >/dev/null',
        'set -- $SSH_CONNECTION',
        `d=${answers}/$3`,
        'cat "$d.out"',
        'cat "$d.err" >&2',
        'read code < "$d.code"',
        'exit "$code"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    forceCommand = `/bin/sh ${replay}`;
  }

  // Client key and one host key for every sshd.
  const key = path.join(tmp, 'client_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-bench', '-f', key]);
  const hostKey = path.join(tmp, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'windeck-bench-host', '-f', hostKey]);
  const pub = fs.readFileSync(`${key}.pub`, 'utf8').trim();
  const hostPub = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

  // sshd listens on at most 16 sockets per process: ceil(N / 16) sshd instances, each on its own port.
  const endpoints = [];
  for (let i = 0; i < addresses.length; i += 16) {
    const port = await freePort('127.0.0.1');
    const group = addresses.slice(i, i + 16).map((host) => ({ host, port }));
    const dir = path.join(tmp, `sshd-${i / 16}`);
    const sshd = await startSshd({
      dir,
      relay,
      authorizedKeys: [pub],
      helperPath: path.join(root, 'electron/sim/windows-node/forcecommand-helper.mjs'),
      listen: group,
      hostKey,
      forceCommand,
      logLevel: 'ERROR',
      nice: NODE_NICE,
    });
    stops.push(() => sshd.stop());
    nodePids.push(sshd.pid);
    // sshd reads authorized_keys as the login user.
    fs.chmodSync(path.join(dir, 'authorized_keys'), 0o644);
    endpoints.push(...group);
  }
  const nodeCpuGroup = NODE_NICE > 0 ? nodeSideCpuGroup(nodePids) : { group: null, why: '--node-nice 0' };
  cpuGroup = nodeCpuGroup.group;
  console.error(
    `fanout: node side in ${nodeCpuGroup.group ? `CPU group ${nodeCpuGroup.group} (${nodeCpuGroup.setting})` : `no CPU group (${nodeCpuGroup.why}): nice only`}`,
  );
  const knownHosts = path.join(tmp, 'known_hosts');
  fs.writeFileSync(knownHosts, endpoints.map((e) => `[${e.host}]:${e.port} ${hostPub}`).join('\n') + '\n');
  console.error(
    `fanout: ${NODES} nodes on ${Math.ceil(NODES / 16)} sshd processes, limit ${LIMIT}, ${REPS} repetitions, ${os.cpus().length} CPUs, node side: ${LIVE_SIM ? 'live simulator' : 'recorded simulator answers'}`,
  );

  // parallel-ssh: same hosts, key, known_hosts, command and stdin.
  const hostsFile = path.join(tmp, 'hosts');
  fs.writeFileSync(hostsFile, endpoints.map((e) => `${user}@${e.host}:${e.port}`).join('\n') + '\n');
  const cm = path.join(tmp, 'cm');
  fs.mkdirSync(cm);
  const baseOpts = opensshClientOptions({ knownHosts, key });
  const cmOpts = [...baseOpts, '-o', 'ControlMaster=auto', '-o', `ControlPath=${cm}/%C`, '-o', 'ControlPersist=300'];
  const psshArgs = (opts, outDir) => [
    '-p',
    String(LIMIT),
    '-t',
    '300',
    '-h',
    hostsFile,
    '-I',
    '-o',
    path.join(tmp, outDir),
    ...asPsshOptions(opts),
    invocation.commandLine,
  ];
  const countOk = (r) => (r.stdout.match(/\[SUCCESS\]/g) ?? []).length;
  const closeMasters = () => {
    for (const e of endpoints) spawnSync('ssh', [...cmOpts, '-p', String(e.port), '-O', 'exit', `${user}@${e.host}`], { stdio: 'ignore' });
  };

  const samples = { windeck: [], pssh: [], psshCmCold: [], psshCmWarm: [] };
  const runWindeck = async (rep) => {
    const nodeArgs = CPU_PROF && rep === 0 ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : [];
    samples.windeck.push(JSON.parse(await runNode(bundles.windeck, [JSON.stringify(endpoints), key, knownHosts, user, String(LIMIT)], nodeArgs)));
  };
  const runPeers = () => {
    const plain = time('parallel-ssh', psshArgs(baseOpts, 'pssh-out'), invocation.stdin);
    samples.pssh.push({ ms: plain.ms, ok: countOk(plain), stderr: plain.stderr, stdout: plain.stdout });
    const cmCold = time('parallel-ssh', psshArgs(cmOpts, 'pssh-cm-out'), invocation.stdin);
    const cmWarm = time('parallel-ssh', psshArgs(cmOpts, 'pssh-cm-out'), invocation.stdin);
    closeMasters();
    samples.psshCmCold.push({ ms: cmCold.ms, ok: countOk(cmCold) });
    samples.psshCmWarm.push({ ms: cmWarm.ms, ok: countOk(cmWarm) });
  };
  for (let rep = 0; rep < REPS; rep += 1) {
    // Alternate which side goes first.
    if (rep % 2 === 0) {
      await runWindeck(rep);
      runPeers();
    } else {
      runPeers();
      await runWindeck(rep);
    }
    console.error(`fanout: repetition ${rep + 1}/${REPS} done`);
  }

  const side = (list, pick) => {
    const runs = list.map(pick);
    return { ms: median(runs.map((r) => r.ms)), samplesMs: runs.map((r) => Math.round(r.ms)), ok: Math.min(...runs.map((r) => r.ok)) };
  };
  const windeckSide = (phase) => {
    const runs = samples.windeck.map((w) => w[phase]);
    const worst = runs.reduce((a, b) => (b.eventLoopDelayMs.p99 > a.eventLoopDelayMs.p99 ? b : a));
    return {
      ...side(samples.windeck, (w) => w[phase]),
      // CPU time of the Windeck process (user + system) per run: what the fan-out costs Windeck itself.
      cpuMs: median(runs.map((r) => r.cpuMs)),
      errors: [...new Set(runs.flatMap((r) => r.errors))].slice(0, 3),
      // The worst repetition's delay (p99 per run; max over all runs).
      eventLoopDelayMs: {
        p50: worst.eventLoopDelayMs.p50,
        p99: worst.eventLoopDelayMs.p99,
        max: Math.max(...runs.map((r) => r.eventLoopDelayMs.max)),
        p99PerRun: runs.map((r) => Number(r.eventLoopDelayMs.p99.toFixed(1))),
      },
    };
  };
  const windeck = {
    cold: windeckSide('cold'),
    warm: windeckSide('warm'),
    dials: samples.windeck.map((w) => w.dials),
    peakHandshakes: Math.max(...samples.windeck.map((w) => w.peakHandshakes ?? 0)),
    // ssh2's load before the measured runs (the console preloads it when idle), per process: not in the lag above.
    ssh2LoadMs: samples.windeck.map((w) => Math.round(w.ssh2LoadMs ?? 0)),
  };
  const parallelSsh = side(samples.pssh, (r) => r);
  const controlMaster = { cold: side(samples.psshCmCold, (r) => r), warm: side(samples.psshCmWarm, (r) => r) };

  console.log(`\nfan-out of the services script to ${NODES} nodes through real sshd, ${LIMIT} at a time, median of ${REPS}`);
  const rows = [
    ['windeck cold', windeck.cold],
    ['windeck warm', windeck.warm],
    ['parallel-ssh', parallelSsh],
    ['p-ssh CM cold', controlMaster.cold],
    ['p-ssh CM warm', controlMaster.warm],
  ];
  for (const [name, r] of rows)
    console.log(`  ${name.padEnd(16)} ${String(Math.round(r.ms)).padStart(7)} ms   ${r.ok}/${NODES} ok   (${r.samplesMs.join(', ')})`);
  console.log(
    `  windeck cold / parallel-ssh: ${(windeck.cold.ms / parallelSsh.ms).toFixed(2)}x; warm / parallel-ssh: ${(windeck.warm.ms / parallelSsh.ms).toFixed(2)}x; warm / ControlMaster warm: ${(windeck.warm.ms / controlMaster.warm.ms).toFixed(2)}x`,
  );
  console.log(
    `  windeck event-loop delay p99 (worst run): cold ${windeck.cold.eventLoopDelayMs.p99.toFixed(1)} ms, warm ${windeck.warm.eventLoopDelayMs.p99.toFixed(1)} ms (max ${Math.max(windeck.cold.eventLoopDelayMs.max, windeck.warm.eventLoopDelayMs.max).toFixed(1)} ms)`,
  );
  console.log(`  windeck process CPU (median): cold ${Math.round(windeck.cold.cpuMs)} ms, warm ${Math.round(windeck.warm.cpuMs)} ms`);
  console.log(
    `  windeck dials per run: ${windeck.dials.join(', ')} (${NODES} expected: the warm run reuses every connection); SSH handshakes in flight at most ${windeck.peakHandshakes}; ssh2 loaded before the measured runs in ${windeck.ssh2LoadMs.join(', ')} ms (the console preloads it a few seconds after start)`,
  );
  if (windeck.cold.errors.length || windeck.warm.errors.length) console.log('  windeck errors:', [...windeck.cold.errors, ...windeck.warm.errors]);
  const failed = samples.pssh.find((r) => r.ok < NODES);
  if (failed)
    console.log(
      '  parallel-ssh stderr:',
      failed.stderr.slice(0, 400),
      failed.stdout
        .split('\n')
        .filter((l) => l.includes('FAILURE'))
        .slice(0, 3),
    );
  console.log(
    JSON.stringify({
      bench: 'fanout',
      nodes: NODES,
      limit: LIMIT,
      reps: REPS,
      nodeSideNice: NODE_NICE,
      nodeSideCpuGroup: nodeCpuGroup.group ? { path: nodeCpuGroup.group, setting: nodeCpuGroup.setting } : { none: nodeCpuGroup.why },
      nodeSide: LIVE_SIM
        ? 'live simulator per command (sshd ForceCommand -> Node helper -> command relay)'
        : "the node simulator's answer to the same invocation, recorded once per node and replayed by sshd ForceCommand (/bin/sh + cat)",
      windeck,
      // Peer for both targets: parallel-ssh as users run it (new connections every run).
      parallelSsh: { cold: parallelSsh, warm: parallelSsh },
      parallelSshControlMaster: controlMaster,
    }),
  );
} finally {
  await cleanup();
}
