// Debian's Chromium under Playwright for the browser benchmarks (the same flags as test/helpers/chromium.ts).
import fs from 'node:fs';

export const CHROMIUM = process.env.WINDECK_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The switches the Electron window applies to its renderer (electron/main/chromium-flags.ts: `--js-flags` with
 * `--max-semi-space-size`), so the browser benchmarks measure the renderer the product runs. The value is read from
 * shared/domain/limits.ts (DESKTOP_RENDERER_MAX_SEMI_SPACE_MB), the one place both take it from.
 */
export function productRendererArgs() {
  const limits = fs.readFileSync(new URL('../../shared/domain/limits.ts', import.meta.url), 'utf8');
  const mb = /export const DESKTOP_RENDERER_MAX_SEMI_SPACE_MB = (\d+);/.exec(limits)?.[1];
  if (!mb) throw new Error('shared/domain/limits.ts has no DESKTOP_RENDERER_MAX_SEMI_SPACE_MB');
  return [`--js-flags=--max-semi-space-size=${mb}`];
}

/**
 * Launch headless Chromium (with the product's renderer flags, productRendererArgs); throws with the install command when it is missing. `{ gpu: true }` leaves out
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
      ...productRendererArgs(),
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

/**
 * One Chromium memory-infra dump ("detailed", after Chromium's own GC) through the browser's CDP Tracing domain:
 * the allocators of process `pid` as `{ name: MiB }`, top level (v8, blink_gc, partition_alloc, malloc, cc, skia,
 * font_caches, ...) and one level below for the big ones. Null when the dump has no entry for `pid`.
 */
export async function memoryInfraDump(browser, pid) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', {
      transferMode: 'ReturnAsStream',
      traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], excludedCategories: ['*'], memoryDumpConfig: { triggers: [] } },
    });
    await cdp.send('Tracing.requestMemoryDump', { deterministic: true, levelOfDetail: 'detailed' });
    await cdp.send('Tracing.end');
    const { stream } = await done;
    let text = '';
    for (;;) {
      const chunk = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
      text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data;
      if (chunk.eof) break;
    }
    await cdp.send('IO.close', { handle: stream });
    const parsed = JSON.parse(text);
    const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
    const dump = events.filter((e) => e.ph === 'v' && e.pid === pid && e.args?.dumps?.allocators).at(-1);
    if (!dump) return null;
    const mib = (attr) => Math.round((Number.parseInt(attr?.value ?? '0', 16) / 1048576) * 10) / 10;
    const out = {};
    for (const [name, entry] of Object.entries(dump.args.dumps.allocators)) {
      const depth = name.split('/').length;
      const big = /^(v8\/main\/heap|partition_alloc\/partitions|blink_gc\/main\/heap|cc|malloc|skia|gpu|font_caches|web_cache)/.test(name);
      if (depth === 1 || (big && depth <= (name.startsWith('v8/') || name.startsWith('partition_alloc/') || name.startsWith('blink_gc/') ? 4 : 2))) {
        const size = mib(entry.attrs?.size);
        if (size >= 0.1) out[name] = size;
      }
    }
    return out;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * Resident memory of process `pid` by mapping (/proc/<pid>/smaps), as `{ name: { rss, anon } }` in MiB,
 * biggest first, entries under 0.5 MiB dropped. Mappings are grouped by path (files: Chromium's code, fonts, ICU
 * data), by the kernel's or Chromium's label for anonymous memory ([anon:partition_alloc], [heap], [stack]), and
 * shared memory (/memfd:, /dev/shm: raster tiles handed to the compositor) by its name without the unique suffix.
 */
export function smapsByMapping(pid) {
  let text = '';
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const groups = new Map();
  let current = null;
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const name = (head[1] || '[anon]').replace(/\s+\(deleted\)$/, '').replace(/^(\/memfd:|\/dev\/shm\/)([^\d]*).*$/, '$1$2*');
      current = groups.get(name) ?? { rss: 0, anon: 0 };
      groups.set(name, current);
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (!field || !current) continue;
    const kb = Number(field[2]);
    if (field[1] === 'Rss') current.rss += kb;
    else current.anon += kb;
  }
  const out = {};
  for (const [name, g] of [...groups].sort((a, b) => b[1].rss - a[1].rss)) {
    if (g.rss < 512) continue;
    const r = (kb) => Math.round((kb / 1024) * 10) / 10;
    out[name] = { rss: r(g.rss), anon: r(g.anon) };
  }
  return out;
}
