import { describe, expect, it } from 'vitest';
import { formatAge, formatDuration } from '../../../../renderer/app/format';

describe('format', () => {
  const now = 1_700_000_000_000;
  it('says how old something is', () => {
    expect(formatAge(null, now)).toBe('never');
    expect(formatAge(now - 2_000, now)).toBe('just now');
    expect(formatAge(now - 42_000, now)).toBe('42 s ago');
    expect(formatAge(now - 3 * 60_000, now)).toBe('3 min ago');
    expect(formatAge(now - 5 * 3_600_000, now)).toBe('5 h ago');
    expect(formatAge(now - 3 * 86_400_000, now)).toBe('3 d ago');
    expect(formatAge(now + 60_000, now)).toBe('just now');
  });
  it('formats durations', () => {
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });
});
