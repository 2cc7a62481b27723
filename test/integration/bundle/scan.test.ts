/**
 * The final scan (electron/services/bundle/scan.ts): secretlint's recommended preset as an independent second
 * detector catches shapes our own patterns do not know (npm and Slack tokens here), and never reports our own
 * markers; its profiler keeps no marks (the leak over thousands of chunks).
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { finalScan } from '../../../electron/services/bundle/scan';
import { redactText } from '../../../shared/logic/redact';

describe('finalScan', () => {
  it('redacts what only secretlint knows and counts it under secretlint:<rule>', async () => {
    const npm = `npm_${'aB3dE5fG7h'.repeat(3)}aB3dE5`;
    const slack = 'xoxb-123456789012-123456789012-' + 'AbCdEfGhIjKlMnOpQrStUvWx';
    const text = `npmrc //registry.npmjs.org/:_authToken=${npm}\nslack ${slack}\n`;
    // Our own patterns see the npm token through its key, not the Slack one: the scan must catch the rest.
    const first = redactText(text, { level: 'standard' });
    const scanned = await finalScan(first.text, 'x.log', { ownPatterns: false });
    expect(scanned.text).not.toContain(slack);
    expect(scanned.text).not.toContain(npm);
    expect(Object.keys(scanned.counts).some((k) => k.startsWith('secretlint:'))).toBe(true);
    expect(scanned.notes.join('\n')).not.toContain(slack);
  });

  it('leaves our markers and clean text alone', async () => {
    const clean = 'I0612 10:00:00 kubelet.go:1] token [REDACTED:bearer-token] and https://user:[REDACTED:url-password]@host/\n';
    const r = await finalScan(clean, 'a.log');
    expect(r.text).toBe(clean);
    expect(r.counts).toEqual({});
  });

  it('makes no performance marks (secretlint profiler)', async () => {
    performance.clearMarks();
    for (let i = 0; i < 20; i++) await finalScan('hello world\n', 'a.log', { ownPatterns: false });
    expect(performance.getEntriesByType('mark').length).toBe(0);
  });
});
