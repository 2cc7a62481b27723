import { useEffect, useState } from 'react';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection fallback (clipboard API refused, e.g. no focus or no permission)
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand('copy');
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

/**
 * Copy `text` to the clipboard and say so (or say it failed, so the user can select it by hand). The accessible
 * name is the visible word plus `what` ("Copy report Markdown"), so it always contains what is on screen.
 */
export function CopyButton({ text, what, className }: { text: string; what: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return undefined;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const word = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy';
  return (
    <button type="button" className={`secondary small ${className ?? ''}`} onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))}>
      {word}
      <span className="visually-hidden"> {what}</span>
      {state === 'failed' && <span>: select the text</span>}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? 'Copied to clipboard' : ''}
      </span>
    </button>
  );
}
