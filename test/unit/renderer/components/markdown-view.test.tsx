// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MarkdownView } from '../../../../renderer/components/markdown-view';

afterEach(cleanup);

describe('MarkdownView', () => {
  it('renders headings, lists, code and links as elements, and HTML in the input as text', () => {
    const md = [
      '### What happened?',
      '',
      'kube-proxy stopped on `win-1` <script>alert(1)</script> **badly**.',
      '',
      '- one',
      '- two [docs](https://kubernetes.io/docs/)',
      '',
      '```',
      'Get-Service kube-proxy <b>x</b>',
      '```',
      '<!-- hidden -->',
      '> quoted',
      '[bad](javascript:alert(1))',
    ].join('\n');
    const { container } = render(<MarkdownView source={md} label="Preview" />);
    expect(screen.getByRole('heading', { name: 'What happened?' })).toBeTruthy();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('<script>alert(1)</script>');
    expect(container.querySelector('strong')?.textContent).toBe('badly');
    expect(container.querySelector('p code')?.textContent).toBe('win-1');
    expect(screen.getAllByRole('listitem').map((l) => l.textContent)).toEqual(['one', 'two docs']);
    expect(screen.getByRole('link', { name: 'docs' }).getAttribute('href')).toBe('https://kubernetes.io/docs/');
    expect(container.querySelector('pre code')?.textContent).toBe('Get-Service kube-proxy <b>x</b>');
    expect(container.textContent).not.toContain('hidden');
    expect(container.querySelector('blockquote')?.textContent).toBe('quoted');
    expect(screen.queryByRole('link', { name: 'bad' })).toBeNull();
  });
});

describe('MarkdownView details', () => {
  it('rebuilds <details>/<summary> (multi-line, single-line, nested) as elements and nothing else', () => {
    const md = [
      '<details><summary>Relevant log excerpts</summary>',
      '',
      '```',
      'E1130 failed <b>x</b>',
      '```',
      '',
      '<details>',
      'inner',
      '</details>',
      '</details>',
      '<details> None: a simulated cluster. </details>',
      'after',
    ].join('\n');
    const { container } = render(<MarkdownView source={md} label="Preview" />);
    const outer = container.querySelectorAll('.markdown > details');
    expect(outer.length).toBe(2);
    expect(outer[0]?.querySelector('summary')?.textContent).toBe('Relevant log excerpts');
    expect(outer[0]?.querySelector('pre code')?.textContent).toBe('E1130 failed <b>x</b>');
    expect(outer[0]?.querySelector('details')?.textContent).toContain('inner');
    expect(outer[1]?.textContent).toContain('None: a simulated cluster.');
    expect(container.querySelector('b')).toBeNull();
    expect(container.querySelector('.markdown > p:last-child')?.textContent).toBe('after');
  });
});
