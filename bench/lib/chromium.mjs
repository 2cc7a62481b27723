// Debian's Chromium under Playwright for the browser benchmarks (the same flags as test/helpers/chromium.ts).
import fs from 'node:fs';

export const CHROMIUM = process.env.WINDECK_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Launch headless Chromium; throws with the install command when it is missing. `{ gpu: true }` leaves out
 * `--disable-gpu` so Chromium picks its own GPU path (the Electron window composites on the GPU); the default keeps
 * `--disable-gpu` (software raster in the renderer process).
 */
export async function launchChromium({ gpu = false } = {}) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      ...(gpu ? [] : ['--disable-gpu']),
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Every descendant process id of `pid` (from /proc/<pid>/task/<tid>/children of every thread). */
export function descendants(pid) {
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    let kids = [];
    try {
      for (const tid of fs.readdirSync(`/proc/${p}/task`))
        kids.push(...fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      kids = [];
    }
    out.push(...kids);
    stack.push(...kids);
  }
  return out;
}

/** Chromium renderer processes (--type=renderer, not WebUI or extensions) under `rootPid`. */
export function chromiumRenderers(rootPid = process.pid) {
  const out = [];
  for (const pid of descendants(rootPid)) {
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (/chrom/i.test(cmd) && cmd.includes('--type=renderer') && !cmd.includes('--top-chrome-webui') && !cmd.includes('--extension-process')) out.push(pid);
  }
  return out;
}

/** User + system CPU time of a process (all its threads) in ms, or 0 when it is gone. */
export function processCpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ = 100
  } catch {
    return 0;
  }
}

/** CPU time (ms) per thread name of a process (e.g. CrRendererMain, Compositor, ThreadPoolForegr). */
export function threadCpuMs(pid) {
  const out = {};
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100;
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone
  }
  return out;
}
