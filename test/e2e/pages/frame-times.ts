import type { Page } from 'playwright-core';

export interface FrameTimes {
  count: number;
  p50: number;
  p95: number;
  max: number;
  totalMs: number;
}

/** Frame deltas (ms) from requestAnimationFrame while `action` (the body of an async function) runs in the page. */
export async function frameTimes(p: Page, action: string): Promise<FrameTimes> {
  return p.evaluate(async (body) => {
    const deltas: number[] = [];
    let last = performance.now();
    let running = true;
    const tick = (t: number) => {
      deltas.push(t - last);
      last = t;
      if (running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const t0 = performance.now();
    await (new Function(`return (async () => { ${body} })()`) as () => Promise<void>)();
    const totalMs = performance.now() - t0;
    running = false;
    const sorted = [...deltas].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { count: deltas.length, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] ?? 0, totalMs };
  }, action);
}
