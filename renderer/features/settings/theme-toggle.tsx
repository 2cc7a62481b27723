import type { ThemeChoice } from '../../app/theme';

/** System / light / dark, remembered in this browser or window. */
export function ThemeToggle({ choice, onChoice }: { choice: ThemeChoice; onChoice: (c: ThemeChoice) => void }) {
  return (
    <label className="theme-toggle">
      <span className="visually-hidden">Theme</span>
      <select value={choice} onChange={(e) => onChoice(e.target.value as ThemeChoice)} aria-label="Theme">
        <option value="system">Theme: system</option>
        <option value="light">Theme: light</option>
        <option value="dark">Theme: dark</option>
      </select>
    </label>
  );
}
