/** A labelled progress bar; `fraction` null means the amount of work is unknown (indeterminate). */
export function ProgressBar({ fraction, label }: { fraction: number | null; label: string }) {
  const pct = fraction === null ? null : Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div
      className={`progress${pct === null ? ' indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct ?? undefined}
      aria-valuetext={pct === null ? 'in progress' : `${pct} %`}
    >
      <div className="progress-fill" style={{ width: pct === null ? undefined : `${pct}%` }} />
    </div>
  );
}
