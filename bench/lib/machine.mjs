// What the results were measured on: cores, memory, load average, versions of Node and of the peer tools.
import { spawnSync } from 'node:child_process';
import os from 'node:os';

function version(cmd, args, pick = (s) => s.split('\n')[0]) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 15_000 });
  if (r.error || (r.status !== 0 && !r.stdout && !r.stderr)) return null;
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return text ? pick(text).trim() : null;
}

export function loadAverage() {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

export function machineInfo(root) {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memTotalGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    memFreeGiB: Math.round((os.freemem() / 2 ** 30) * 10) / 10,
    loadAverage: loadAverage(),
    versions: {
      node: process.version,
      windeck: version('node', ['-p', `require(${JSON.stringify(root + '/package.json')}).version`]),
      gitCommit: version('git', ['-C', root, 'rev-parse', '--short', 'HEAD']),
      gitDirty: (spawnSync('git', ['-C', root, 'status', '--porcelain'], { encoding: 'utf8' }).stdout ?? '').trim().length > 0,
      kubectl: version('kubectl', ['version', '--client'], (s) => s.split('\n').find((l) => /Client Version/.test(l)) ?? s.split('\n')[0]),
      openssh: version('ssh', ['-V']),
      sshd: version('dpkg-query', ['-W', '-f', '${Version}', 'openssh-server']),
      parallelSsh: version('dpkg-query', ['-W', '-f', '${Version}', 'pssh']),
      zip: version('zip', ['-v'], (s) => s.split('\n').find((l) => /This is Zip/.test(l)) ?? s.split('\n')[0]),
    },
  };
}
