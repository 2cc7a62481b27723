import { useCallback, useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_STORAGE_KEY = 'windeck.theme';

function readChoice(storage: Storage | null): ThemeChoice {
  try {
    const v = storage?.getItem(THEME_STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system'; // storage can be blocked; fall back to the OS preference
  }
}

function systemPrefersDark(win: Window): boolean {
  return typeof win.matchMedia === 'function' && win.matchMedia('(prefers-color-scheme: dark)').matches;
}

/** The theme in effect for a choice: `system` follows prefers-color-scheme. */
export function resolveTheme(choice: ThemeChoice, prefersDark: boolean): 'light' | 'dark' {
  return choice === 'system' ? (prefersDark ? 'dark' : 'light') : choice;
}

/** Theme choice persisted in localStorage and applied as `data-theme` on <html>. */
export function useTheme(): { choice: ThemeChoice; theme: 'light' | 'dark'; setChoice: (c: ThemeChoice) => void } {
  const [choice, setChoiceState] = useState<ThemeChoice>(() => readChoice(safeStorage()));
  const [prefersDark, setPrefersDark] = useState(() => systemPrefersDark(window));

  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return undefined;
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => setPrefersDark(mq.matches);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);

  const theme = resolveTheme(choice, prefersDark);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);

  const setChoice = useCallback((c: ThemeChoice) => {
    setChoiceState(c);
    try {
      if (c === 'system') safeStorage()?.removeItem(THEME_STORAGE_KEY);
      else safeStorage()?.setItem(THEME_STORAGE_KEY, c);
    } catch {
      // not persisted; the choice still applies to this window
    }
  }, []);

  return { choice, theme, setChoice };
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
