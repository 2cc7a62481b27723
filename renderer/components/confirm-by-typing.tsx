import { useId, useState } from 'react';

/**
 * The guard in front of a destructive step: the user types the exact name (a node) before the button enables.
 * `disabledReason` keeps the button off with a visible reason (e.g. not live).
 */
export function ConfirmByTyping({
  expected,
  what,
  actionLabel,
  onConfirm,
  disabledReason,
  busy = false,
}: {
  expected: string;
  what: string;
  actionLabel: string;
  onConfirm: () => void;
  disabledReason?: string | null;
  busy?: boolean;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const matches = typed === expected;
  const blocked = disabledReason ?? null;
  return (
    <form
      className="confirm-typed"
      onSubmit={(e) => {
        e.preventDefault();
        if (matches && !blocked && !busy) onConfirm();
      }}
    >
      <label htmlFor={id}>
        Type the {what} <code>{expected}</code> to confirm
      </label>
      <input id={id} value={typed} autoComplete="off" spellCheck={false} onChange={(e) => setTyped(e.target.value)} aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} className="muted">
        {blocked
          ? blocked
          : matches
            ? 'Confirmed.'
            : typed.length > 0
              ? `That is not the ${what}.`
              : `This cannot be undone once it starts; you get a short countdown to cancel.`}
      </p>
      <button type="submit" className="danger" disabled={!matches || blocked !== null || busy}>
        {actionLabel}
      </button>
    </form>
  );
}
