// Small statistics helpers for the benchmarks: nearest-rank percentiles over a list of samples.

/** The p-th percentile (0..100) by nearest rank; null for no samples. */
export function percentile(samples, p) {
  const xs = samples.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * xs.length));
  return xs[Math.min(xs.length, rank) - 1];
}

/** Median (mean of the two middle values for an even count); null for no samples. */
export function median(samples) {
  const xs = samples.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** { n, median, p95, min, max, samples } of a list of numbers (rounded to 0.1). */
export function summarize(samples) {
  const r = (x) => (x === null ? null : Math.round(x * 10) / 10);
  const xs = samples.filter((x) => typeof x === 'number' && Number.isFinite(x));
  return { n: xs.length, median: r(median(xs)), p95: r(percentile(xs, 95)), min: r(xs.length ? Math.min(...xs) : null), max: r(xs.length ? Math.max(...xs) : null), samples: xs.map(r) };
}

/** a / b rounded to 0.01, or null when either is missing or b is 0. */
export function ratio(a, b) {
  if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return Math.round((a / b) * 100) / 100;
}

/**
 * A target verdict: { name, target, measured, ratio?, met, note? }. `met` is true/false, or null when the
 * measurement is missing (then `note` says why). Never throws: benchmarks do not fail on time.
 */
export function verdict(name, target, measured, met, extra = {}) {
  return { name, target, measured, met: measured === null || measured === undefined ? null : Boolean(met), ...extra };
}
