// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FindingList } from '../../../../../renderer/features/diagnostics/finding-card';
import type { Finding } from '../../../../../shared/domain/finding';

afterEach(cleanup);

const finding = (over: Partial<Finding>): Finding => ({
  ruleId: 'kube-proxy-stopped',
  severity: 'error',
  node: 'win-1',
  title: 'kube-proxy is not running',
  evidence: [{ source: 'probes/services.raw', line: 12, excerpt: 'Stopped  kube-proxy  kube-proxy <script>x</script>' }],
  remediation: {
    summary: 'Start kube-proxy and check why it stopped.',
    steps: ['Look at the kube-proxy log.', 'Start the service.'],
    commands: ['Start-Service kube-proxy'],
    links: ['https://kubernetes.io/docs/setup/production-environment/windows/', 'javascript:alert(1)'],
  },
  ...over,
});

describe('FindingList', () => {
  it('shows severity, evidence excerpt with its source line, steps and copyable commands, worst first', () => {
    const { container } = render(<FindingList findings={[finding({ severity: 'info', title: 'just so you know', ruleId: 'i' }), finding({})]} empty="none" />);
    const cards = screen.getAllByRole('article');
    expect(cards[0]?.getAttribute('aria-label')).toBe('error: kube-proxy is not running');
    const first = cards[0] as HTMLElement;
    expect(within(first).getByText('probes/services.raw, line 12')).toBeTruthy();
    expect(within(first).getByText(/<script>x<\/script>/)).toBeTruthy();
    expect(container.querySelector('script')).toBeNull();
    expect(within(first).getByText('Start the service.')).toBeTruthy();
    expect(within(first).getByRole('button', { name: 'Copy command 1 of kube-proxy is not running' })).toBeTruthy();
    expect(within(first).getByText('Start-Service kube-proxy')).toBeTruthy();
  });

  it('links only http(s) URLs', () => {
    render(<FindingList findings={[finding({})]} empty="none" />);
    expect(screen.getByRole('link', { name: /kubernetes.io/ }).getAttribute('rel')).toContain('noopener');
    expect(screen.queryByRole('link', { name: /javascript/ })).toBeNull();
    expect(screen.getByText('javascript:alert(1)')).toBeTruthy();
  });

  it('says so when there is nothing', () => {
    render(<FindingList findings={[]} empty="No open findings." />);
    expect(screen.getByText('No open findings.')).toBeTruthy();
  });
});
