import { describe, expect, it } from 'vitest';
import { APP_CSP, APP_ENTRY_URL, isAllowedExternalUrl, isAllowedNavigation, isTrustedSender } from '../../../../electron/main/policies';

/** URLs no policy may accept: schemes that run or read things, and every trick to look like us or GitHub. */
const HOSTILE = [
  // schemes that execute, read local files, or reach the network share
  'file:///etc/passwd',
  'file://C:/Windows/System32/calc.exe',
  'file:///C:/Windows/System32/calc.exe',
  'FILE:///etc/passwd',
  'smb://attacker.example/share/payload.exe',
  '\\\\attacker.example\\share\\payload.exe',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  'ms-msdt:/id PCWDiagnostic /skip force',
  'search-ms:query=calc&crumb=location:\\\\attacker\\share',
  'ms-officecmd:{"id":1}',
  'mailto:someone@example.com',
  'about:blank',
  'chrome://settings',
  'devtools://devtools/bundled/inspector.html',
  'blob:https://github.com/uuid',
  'view-source:https://github.com/a/b/issues/new',
  'ftp://github.com/a/b/issues/new',
  'ws://github.com/a/b/issues/new',
  // plain http and other hosts
  'http://github.com/kubernetes/kubernetes/issues/new',
  'https://example.com/kubernetes/kubernetes/issues/new',
  'https://gist.github.com/kubernetes/kubernetes/issues/new',
  'https://api.github.com/repos/kubernetes/kubernetes/issues',
  'https://raw.githubusercontent.com/kubernetes/kubernetes/master/README.md',
  // lookalike hosts
  'https://github.com.evil.io/kubernetes/kubernetes/issues/new',
  'https://github.com.evil.io./kubernetes/kubernetes/issues/new',
  'https://evilgithub.com/kubernetes/kubernetes/issues/new',
  'https://github.co/kubernetes/kubernetes/issues/new',
  'https://github.com./kubernetes/kubernetes/issues/new',
  'https://xn--gthub-2ta.com/kubernetes/kubernetes/issues/new',
  'https://gíthub.com/kubernetes/kubernetes/issues/new',
  'https://githսb.com/kubernetes/kubernetes/issues/new',
  'https://ｇｉｔｈｕｂ.com/kubernetes/kubernetes/issues/new',
  'https://GITHUB.COM/kubernetes/kubernetes/issues/new',
  'https://github.com%2eevil.io/kubernetes/kubernetes/issues/new',
  'https://140.82.112.3/kubernetes/kubernetes/issues/new',
  // credentials, ports and authority tricks
  'https://github.com@evil.io/kubernetes/kubernetes/issues/new',
  'https://user@github.com/kubernetes/kubernetes/issues/new',
  'https://user:pass@github.com/kubernetes/kubernetes/issues/new',
  'https://evil.io\\@github.com/kubernetes/kubernetes/issues/new',
  'https://evil.io%40github.com/kubernetes/kubernetes/issues/new',
  'https://github.com:443/kubernetes/kubernetes/issues/new',
  'https://github.com:8443/kubernetes/kubernetes/issues/new',
  'https:github.com/kubernetes/kubernetes/issues/new',
  'https:/github.com/kubernetes/kubernetes/issues/new',
  '//github.com/kubernetes/kubernetes/issues/new',
  // backslashes, encoded slashes, dot segments, whitespace and control characters
  'https://github.com\\kubernetes\\kubernetes\\issues\\new',
  'https://github.com/kubernetes\\kubernetes/issues/new',
  'https://github.com/kubernetes%2Fkubernetes/issues/new',
  'https://github.com/kubernetes/kubernetes%2Fissues%2Fnew',
  'https://github.com/kubernetes/kubernetes/issues%2fnew',
  'https://github.com/kubernetes/../evil/issues/new',
  'https://github.com/kubernetes/%2e%2e/issues/new',
  'https://github.com/kubernetes/kubernetes/issues/new/../../../../evil/login',
  'https://github.com/./kubernetes/issues/new',
  'https://github.com/kubernetes/kubernetes/issues/new\n.evil.io',
  'https://github.com/kubernetes/kubernetes/issues/new\u0000',
  'https://github.com/kubernetes/kubernetes/issues/new ',
  '\thttps://github.com/kubernetes/kubernetes/issues/new',
  'https://github.com/kubernetes/kubernetes/issues/new\u202e',
  // wrong paths on the right host
  'https://github.com/',
  'https://github.com/login',
  'https://github.com/kubernetes/kubernetes',
  'https://github.com/kubernetes/kubernetes/issues',
  'https://github.com/kubernetes/kubernetes/issues/1',
  'https://github.com/kubernetes/kubernetes/pulls/new',
  'https://github.com/kubernetes/kubernetes/settings/issues/new',
  'https://github.com/kubernetes/kubernetes/issues/newsletter',
  'https://github.com/-kubernetes/kubernetes/issues/new',
  'https://github.com/kubernetes/kubernetes/issues/new?redirect_to=https://evil.io',
  'https://github.com/kubernetes/kubernetes/issues/new?title=x#fragment',
  'https://github.com/kubernetes/kubernetes/issues/new#',
  // not strings / empty / huge
  '',
  'not a url',
  `https://github.com/kubernetes/kubernetes/issues/new?body=${'a'.repeat(9000)}`,
  // our own scheme is not external
  'windeck://app/index.html',
];

describe('isAllowedExternalUrl', () => {
  it.each([
    'https://github.com/kubernetes/kubernetes/issues/new',
    'https://github.com/kubernetes/kubernetes/issues/new/',
    'https://github.com/kubernetes/kubernetes/issues/new/choose',
    'https://github.com/kubernetes-sigs/sig-windows-tools/issues/new?title=kube-proxy+stopped&labels=sig%2Fwindows',
    'https://github.com/my-org/win.deck_tools/issues/new?template=bug-report.yaml&title=x&body=%23%23+What+happened%0A',
  ])('allows the GitHub issue form %s', (url) => {
    expect(isAllowedExternalUrl(url)).toBe(true);
  });

  it('allows what a report builder produces with URL/URLSearchParams', () => {
    const url = new URL('https://github.com/kubernetes/kubernetes/issues/new');
    url.searchParams.set('title', 'Windows node "win-1": kube-proxy stopped <script>');
    url.searchParams.set('body', '## What happened?\n/sig windows\n`kubectl version`: 1.31 & more');
    url.searchParams.set('labels', 'sig/windows,kind/bug');
    expect(isAllowedExternalUrl(url.href)).toBe(true);
  });

  it.each(HOSTILE)('refuses %j', (url) => {
    expect(isAllowedExternalUrl(url)).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['https://github.com/a/b/issues/new'], new URL('https://github.com/a/b/issues/new')])(
    'refuses the non-string %j',
    (value) => {
      expect(isAllowedExternalUrl(value)).toBe(false);
    },
  );
});

describe('isAllowedNavigation', () => {
  it.each([APP_ENTRY_URL, 'windeck://app/', 'windeck://app', 'windeck://app/nodes/win-1?tab=probes#top'])('allows our page %s', (url) => {
    expect(isAllowedNavigation(url)).toBe(true);
  });

  it.each([
    ...HOSTILE.filter((u) => !u.startsWith('windeck://app/')),
    'https://github.com/kubernetes/kubernetes/issues/new',
    'windeck://evil/index.html',
    'windeck://app.evil.io/index.html',
    'windeck://APP/index.html',
    'windeck://user@app/index.html',
    'windeck://app:80/index.html',
    'windeck://app\\..\\index.html',
    'windeck:app/index.html',
    'windeck:///app/index.html',
    'http://127.0.0.1:5173/',
    'http://localhost/',
  ])('refuses %j', (url) => {
    expect(isAllowedNavigation(url)).toBe(false);
  });
});

describe('isTrustedSender', () => {
  it('trusts only the top frame URL of our app', () => {
    expect(isTrustedSender('windeck://app/index.html')).toBe(true);
    expect(isTrustedSender('windeck://app/nodes')).toBe(true);
  });

  it.each([
    'file:///home/user/Downloads/evil.html',
    'https://github.com/kubernetes/kubernetes/issues/new',
    'http://127.0.0.1:41234/?token=abc',
    'about:blank',
    'about:srcdoc',
    'data:text/html,hi',
    'blob:windeck://app/123',
    'devtools://devtools/bundled/inspector.html',
    'chrome-error://chromewebdata/',
    'windeck://app.evil.io/',
    'windeck://evil/',
    'windeck://app@evil/',
    '',
    null,
    undefined,
  ])('refuses %j', (url) => {
    expect(isTrustedSender(url)).toBe(false);
  });
});

describe('APP_CSP', () => {
  const directives = new Map(
    APP_CSP.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );

  it('allows scripts only from our origin, never inline or eval', () => {
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(APP_CSP).not.toMatch(/unsafe-eval|unsafe-hashes|strict-dynamic|\*/);
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it('denies by default and shuts plugins, frames, forms and base-uri', () => {
    for (const [name, value] of [
      ['default-src', "'none'"],
      ['object-src', "'none'"],
      ['frame-src', "'none'"],
      ['base-uri', "'none'"],
      ['form-action', "'none'"],
      ['frame-ancestors', "'none'"],
    ] as const) {
      expect(directives.get(name), name).toEqual([value]);
    }
  });

  it('lets the page connect nowhere but its own origin (the backend is reached over IPC)', () => {
    expect(directives.get('connect-src')).toEqual(["'self'"]);
  });
});
