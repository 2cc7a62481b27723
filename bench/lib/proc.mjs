// Run a child process to completion and measure it from outside: wall time and peak memory. Peak RSS is the
// larger of the child's own VmHWM (/proc/<pid>/status, kernel-tracked high-water mark) and the highest sampled
// sum of VmRSS over the child and its descendants (scp and parallel-ssh do their work in ssh subprocesses).
import { spawn } from 'node:child_process';
import fs from 'node:fs';

function readStatus(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+) kB/.exec(s);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(s);
    return { rssKB: rss ? Number(rss[1]) : 0, hwmKB: hwm ? Number(hwm[1]) : 0 };
  } catch {
    return null;
  }
}

function children(pid) {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Sum of VmRSS (kB) over pid and its descendants right now. */
export function treeRssKB(pid) {
  let total = 0;
  const stack = [pid];
  const seen = new Set();
  while (stack.length) {
    const p = stack.pop();
    if (seen.has(p)) continue;
    seen.add(p);
    const st = readStatus(p);
    if (st) total += st.rssKB;
    stack.push(...children(p));
  }
  return total;
}

/**
 * Spawn `cmd args`, sample memory every `sampleMs`, and resolve with
 * { code, signal, ms, peakRssMiB, stdout, stderr }. `input` (string/Buffer) goes to stdin. `timeoutMs` kills it.
 * `onStdoutLine(line, msSinceSpawn)` sees each stdout line as it arrives (for "time to first answer").
 */
export function runMeasured(cmd, args, { cwd, env, input, timeoutMs = 60 * 60_000, sampleMs = 25, discardStdout = false, onStdoutLine, inheritStderr = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['pipe', discardStdout ? 'ignore' : 'pipe', 'pipe'] });
    let peakKB = 0;
    let stdout = '';
    let stderr = '';
    let partial = '';
    const sample = () => {
      const st = readStatus(child.pid);
      if (st) peakKB = Math.max(peakKB, st.hwmKB, treeRssKB(child.pid));
    };
    const timer = setInterval(sample, sampleMs);
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout?.on('data', (d) => {
      stdout += d;
      if (onStdoutLine) {
        partial += d;
        let nl;
        while ((nl = partial.indexOf('\n')) >= 0) {
          onStdoutLine(partial.slice(0, nl), performance.now() - started);
          partial = partial.slice(nl + 1);
        }
      }
    });
    // inheritStderr: pass it through live and keep only the last 8 KB (for the reason of a failure).
    child.stderr?.on('data', (d) => {
      if (inheritStderr) {
        process.stderr.write(d);
        stderr = (stderr + d).slice(-8192);
      } else stderr += d;
    });
    child.once('error', (e) => {
      clearInterval(timer);
      clearTimeout(killer);
      reject(e);
    });
    // The kernel keeps /proc/<pid>/status until the parent reaps the child; 'exit' fires after reaping, so the
    // last sample is taken on a zombie-free race: sample once more as soon as stdout closes.
    child.stdout?.once('close', sample);
    child.once('close', (code, signal) => {
      const ms = performance.now() - started;
      clearInterval(timer);
      clearTimeout(killer);
      resolve({ code, signal, ms, peakRssMiB: peakKB ? Math.round((peakKB / 1024) * 10) / 10 : null, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** The last JSON object a benchmark printed on stdout: the last line starting with "{", else the last "{" block at column 0. */
export function lastJsonObject(stdout) {
  const lines = stdout.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if (!lines[i].startsWith('{')) continue;
    try {
      return JSON.parse(lines.slice(i).join('\n'));
    } catch {
      // not the start of a complete object; keep looking upwards
    }
  }
  return null;
}
