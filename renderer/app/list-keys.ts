/**
 * Where a key moves the active row of a virtualized list: ArrowUp/Down, PageUp/Down (by `page` rows), Home, End.
 * `from` is -1 when no row is active. Null for any other key (the caller handles Enter and the rest). Callers
 * clamp the result to the list.
 */
export function listKeyTarget(key: string, from: number, page: number, count: number): number | null {
  switch (key) {
    case 'ArrowDown':
      return from + 1;
    case 'ArrowUp':
      return from < 0 ? 0 : from - 1;
    case 'PageDown':
      return from + page;
    case 'PageUp':
      return from - page;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}
