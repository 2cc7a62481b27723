import { useCallback, useState } from 'react';

/** A string remembered in localStorage (null when unset or when storage is blocked). */
export function useStoredString(key: string): [string | null, (value: string | null) => void] {
  const [value, setValue] = useState<string | null>(() => {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  });
  const set = useCallback(
    (next: string | null) => {
      setValue(next);
      try {
        if (next === null) window.localStorage.removeItem(key);
        else window.localStorage.setItem(key, next);
      } catch {
        // not remembered; still applies to this window
      }
    },
    [key],
  );
  return [value, set];
}
