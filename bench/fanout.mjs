#!/usr/bin/env node
// Fan-out benchmark (not part of `npm test`): one command (the `services` script) on N simulated Windows nodes
// (default 200), each its own SSH endpoint (127.0.60.x) served by real OpenSSH sshd (ForceCommand -> the node
// simulator's command relay), run by Windeck's SSH transport (fan-out limit 32) and by `parallel-ssh -p 32`
// (Debian pssh) with the same key, known_hosts, command line and stdin. Cold = new connections; warm = Windeck's
// pooled connections / OpenSSH ControlMaster sockets from the cold run. Reports wall times and ratios, and the main
// event-loop delay inside the Windeck process during each run (perf_hooks monitorEventLoopDelay); never
// fails on timing. Both sides get the same 300 s budget per node (parallel-ssh -t 300).
//
//   node bench/fanout.mjs             200 nodes, limit 32
//   node bench/fanout.mjs --quick     48 nodes
//   node bench/fanout.mjs --nodes 100 --limit 16
//
// Needs: sshd (apt-get install -y openssh-server), parallel-ssh (apt-get install -y pssh), ssh, ssh-keygen.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { freePort, startSshd } from '../test/interop/sshd-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const quick = args.includes('--quick');
const NODES = Number(flag('--nodes', quick ? 48 : 200));
const LIMIT = Number(flag('--limit', 32));

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
async function cleanup() {
  for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

// Programs bundled from the TypeScript sources (bare imports resolve from node_modules).
const programs = {
  sim: `
    import { createCommandHost } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/command-host.ts'))};
    import { startCommandRelay } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/command-relay.ts'))};
    import { WindowsNodeModel } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/node-model.ts'))};
    import { resolveScenario } from ${JSON.stringify(path.join(root, 'electron/sim/windows-node/scenario.ts'))};
    const addresses = JSON.parse(process.argv[2]);
    const hosts = new Map(addresses.map((a, i) => [a, createCommandHost({ model: new WindowsNodeModel(resolveScenario('healthy', { nodeName: 'win-' + i, nodeIp: a }).spec) })]));
    const relay = await startCommandRelay((h) => hosts.get((h.connection ?? '').split(' ')[2] ?? '') ?? null);
    console.log(JSON.stringify({ port: relay.port }));
    process.on('SIGTERM', () => relay.close().then(() => process.exit(0)));
  `,
  windeck: `
    import fs from 'node:fs';
    import { monitorEventLoopDelay } from 'node:perf_hooks';
    import { runScript } from ${JSON.stringify(path.join(root, 'electron/services/powershell/invoke.ts'))};
    import { fanOut } from ${JSON.stringify(path.join(root, 'electron/services/transports/fan-out.ts'))};
    import { PinningVerifier } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/host-keys.ts'))};
    import { SshTransport } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/exec.ts'))};
    import { SshPool } from ${JSON.stringify(path.join(root, 'electron/services/transports/ssh/pool.ts'))};
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
      const started = performance.now();
      const results = await fanOut(endpoints, Number(limit), (e, signal) =>
        runScript(new SshTransport(e.host, { node: e.host, host: e.host, port: e.port, auth: { username: user, privateKey } }, pool), 'services', { names: ['kubelet', 'kube-proxy'] }, { signal, timeouts: { commandMs: 300000, idleMs: 300000, connectMs: 60000, channelMs: 60000 } }),
      );
      const ok = results.filter((r) => r.ok && r.value.exitCode === 0 && r.value.stdout.includes('kube-proxy')).length;
      const errors = [...new Set(results.filter((r) => !r.ok).map((r) => r.error.code + ': ' + r.error.message.slice(0, 100)))].slice(0, 3);
      // The histogram holds the time between samples (10 ms apart when idle): the delay is what exceeds 10 ms.
      const lag = (ns) => Math.max(0, ns / 1e6 - 10);
      const eventLoopDelayMs = { p50: lag(loop.percentile(50)), p99: lag(loop.percentile(99)), max: lag(loop.max) };
      return { ms: performance.now() - started, ok, errors, eventLoopDelayMs };
    };
    const cold = await once();
    const warm = await once();
    console.log(JSON.stringify({ cold, warm, dials: pool.dials }));
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
    packages: 'external',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  bundles[name] = outfile;
}

function runNode(file, argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...argv], {
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

try {
  const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  const addresses = Array.from({ length: NODES }, (_, i) => `127.0.60.${i + 1}`);
  if (NODES > 250) throw new Error('at most 250 nodes (127.0.60.1-250)');

  // The simulated nodes (one command host each) behind one relay, in their own process.
  const sim = spawn(process.execPath, [bundles.sim, JSON.stringify(addresses)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(sim);
  const relayPort = await new Promise((resolve, reject) => {
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
      relay: { host: '127.0.0.1', port: relayPort },
      authorizedKeys: [pub],
      helperPath: path.join(root, 'electron/sim/windows-node/forcecommand-helper.mjs'),
      listen: group,
      hostKey,
    });
    stops.push(() => sshd.stop());
    endpoints.push(...group);
  }
  const knownHosts = path.join(tmp, 'known_hosts');
  fs.writeFileSync(knownHosts, endpoints.map((e) => `[${e.host}]:${e.port} ${hostPub}`).join('\n') + '\n');
  console.error(`fanout: ${NODES} nodes on ${Math.ceil(NODES / 16)} sshd processes, limit ${LIMIT}, ${os.cpus().length} CPUs`);

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
    packages: 'external',
    logLevel: 'warning',
  });
  const invocation = JSON.parse(await runNode(prep, []));

  // Windeck: cold then warm in one process (the pool keeps the connections).
  const windeck = JSON.parse(await runNode(bundles.windeck, [JSON.stringify(endpoints), key, knownHosts, user, String(LIMIT)]));

  // parallel-ssh: same hosts, key, known_hosts, command and stdin. Warm = ControlMaster sockets left by the cold run.
  const hostsFile = path.join(tmp, 'hosts');
  fs.writeFileSync(hostsFile, endpoints.map((e) => `${user}@${e.host}:${e.port}`).join('\n') + '\n');
  const cm = path.join(tmp, 'cm');
  fs.mkdirSync(cm);
  const sshOpts = [
    '-o',
    `UserKnownHostsFile=${knownHosts}`,
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `IdentityFile=${key}`,
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${cm}/%C`,
    '-o',
    'ControlPersist=300',
  ];
  const psshArgs = [
    '-p',
    String(LIMIT),
    '-t',
    '300',
    '-h',
    hostsFile,
    '-I',
    '-o',
    path.join(tmp, 'pssh-out'),
    ...sshOpts.flatMap((o, i) => (i % 2 === 1 ? ['-O', o] : [])),
    invocation.commandLine,
  ];
  const countOk = (r) => (r.stdout.match(/\[SUCCESS\]/g) ?? []).length;
  const psshCold = time('parallel-ssh', psshArgs, invocation.stdin);
  const psshWarm = time('parallel-ssh', psshArgs, invocation.stdin);
  // Close the ControlMaster processes the cold run left (each exits on request).
  for (const e of endpoints) spawnSync('ssh', [...sshOpts, '-p', String(e.port), '-O', 'exit', `${user}@${e.host}`], { stdio: 'ignore' });

  const rows = [
    ['windeck cold', windeck.cold.ms, windeck.cold.ok],
    ['windeck warm', windeck.warm.ms, windeck.warm.ok],
    ['parallel-ssh cold', psshCold.ms, countOk(psshCold)],
    ['parallel-ssh warm', psshWarm.ms, countOk(psshWarm)],
  ];
  console.log(`\nfan-out of the services script to ${NODES} nodes through real sshd, ${LIMIT} at a time`);
  for (const [name, ms, ok] of rows) console.log(`  ${name.padEnd(18)} ${String(Math.round(ms)).padStart(7)} ms   ${ok}/${NODES} ok`);
  console.log(`  ratio cold (parallel-ssh / windeck): ${(psshCold.ms / windeck.cold.ms).toFixed(2)}`);
  console.log(`  ratio warm (parallel-ssh / windeck): ${(psshWarm.ms / windeck.warm.ms).toFixed(2)}`);
  console.log(
    `  windeck event-loop delay p99: cold ${windeck.cold.eventLoopDelayMs.p99.toFixed(1)} ms, warm ${windeck.warm.eventLoopDelayMs.p99.toFixed(1)} ms (max ${Math.max(windeck.cold.eventLoopDelayMs.max, windeck.warm.eventLoopDelayMs.max).toFixed(1)} ms)`,
  );
  console.log(`  windeck dials: ${windeck.dials} (${NODES} cold, ${windeck.dials - NODES} more in the warm run)`);
  if (windeck.cold.errors.length || windeck.warm.errors.length) console.log('  windeck errors:', [...windeck.cold.errors, ...windeck.warm.errors]);
  if (countOk(psshCold) < NODES)
    console.log(
      '  parallel-ssh cold stderr:',
      psshCold.stderr.slice(0, 400),
      psshCold.stdout
        .split('\n')
        .filter((l) => l.includes('FAILURE'))
        .slice(0, 3),
    );
  console.log(
    JSON.stringify({
      bench: 'fanout',
      nodes: NODES,
      limit: LIMIT,
      windeck,
      parallelSsh: { cold: { ms: psshCold.ms, ok: countOk(psshCold) }, warm: { ms: psshWarm.ms, ok: countOk(psshWarm) } },
    }),
  );
} finally {
  await cleanup();
}
