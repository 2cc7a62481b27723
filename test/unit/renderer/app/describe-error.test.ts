import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../../shared/contract/errors';
import { describeError } from '../../../../renderer/app/describe-error';

describe('describeError', () => {
  it('describes every error code with a title, a hint and an action', () => {
    const titles = new Set<string>();
    for (const code of ERROR_CODES) {
      const d = describeError({ code, message: 'x', retryable: false });
      expect(d.title.length, code).toBeGreaterThan(0);
      expect(d.hint.length, code).toBeGreaterThan(10);
      titles.add(d.title);
    }
    expect(titles.size).toBe(ERROR_CODES.length);
  });

  it('names where it happened from the context', () => {
    const d = describeError({ code: 'UNREACHABLE', message: 'x', retryable: true, context: { node: 'win-1', transport: 'ssh', step: 'connect' } });
    expect(d.hint).toContain('node win-1');
    expect(d.hint).toContain('via ssh');
    expect(d.action).toBe('retry');
  });

  it('routes key problems to host-key review and credential errors to re-entry', () => {
    expect(describeError({ code: 'HOST_KEY_CHANGED', message: '', retryable: false }).action).toBe('review-host-key');
    expect(describeError({ code: 'AUTH_FAILED', message: '', retryable: false }).action).toBe('credentials');
  });

  it('throws on a code outside the contract instead of showing nothing', () => {
    expect(() => describeError({ code: 'NEW_CODE' as never, message: '', retryable: false })).toThrow(/Unhandled error code/);
  });
});
