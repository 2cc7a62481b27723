/** A plain-text table for terminal output: columns padded to their widest cell, two spaces apart, no trailing spaces. */
export function textTable(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((x, i) => (i === r.length - 1 ? x : x.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}
