import type { ReactNode } from 'react';

/** A horizontally scrollable box for a wide table: focusable and named, so keyboard users can scroll it. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
