/**
 * Pure security policies of the desktop shell: which URLs a window may navigate to, which URLs may leave the app
 * for the system browser, and which frames may call the backend. No electron import, so the hostile-URL corpus in
 * test/unit/electron/main/policies.test.ts runs under plain Node.
 */

/** Our custom, privileged scheme; the renderer is served from `windeck://app/` (see app-protocol.ts). */
export const APP_SCHEME = 'windeck';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The URL the window loads. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** Longest URL we hand to the system browser (GitHub's prefilled issue URLs stay well below this). */
export const EXTERNAL_URL_MAX_CHARS = 8_192;

/** Query keys GitHub's `issues/new` understands; anything else is refused rather than forwarded. */
const ISSUE_QUERY_KEYS: ReadonlySet<string> = new Set(['title', 'body', 'labels', 'template', 'assignees', 'milestone', 'projects', 'type']);

/** GitHub user/org names: alphanumerics and single inner hyphens, at most 39 characters. */
const GITHUB_OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** GitHub repository names: letters, digits, `.`, `_`, `-`, at most 100; never `.` or `..`. */
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/;

/** Control characters, whitespace and backslashes have no place in a URL we act on (browsers "fix" them). */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\\\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;

function parse(raw: unknown, maxChars = EXTERNAL_URL_MAX_CHARS): URL | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > maxChars) return null;
  if (UNSAFE_CHARS.test(raw)) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * True when `raw` is a page of our own app: `windeck://app/...`, nothing else (no credentials, no port, exact
 * host). The string must already be in canonical form, so a URL that only matches after normalisation is refused.
 */
export function isAppUrl(raw: unknown): boolean {
  const url = parse(raw, 4_096);
  if (!url || typeof raw !== 'string') return false;
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username !== '' || url.password !== '' || url.port !== '') return false;
  return raw === APP_ORIGIN || raw.startsWith(`${APP_ORIGIN}/`);
}

/** May the main window navigate to `url`? Only within our own `windeck://app/` pages. */
export function isAllowedNavigation(url: unknown): boolean {
  return isAppUrl(url);
}

/**
 * May `url` be handed to `shell.openExternal`? Only a canonical `https://github.com/<owner>/<repo>/issues/new`
 * (or `.../issues/new/choose`) with known query keys and no fragment. Everything else (file:, smb:, javascript:,
 * data:, http:, lookalike or punycode hosts, credentials, ports, backslashes, encoded slashes, dot segments) is
 * refused: openExternal hands the string to the OS, which may run it.
 */
export function isAllowedExternalUrl(raw: unknown): boolean {
  const url = parse(raw);
  if (!url || typeof raw !== 'string') return false;
  if (url.protocol !== 'https:' || url.hostname !== 'github.com' || url.port !== '' || url.username !== '' || url.password !== '') return false;
  if (url.hash !== '' || raw.includes('#')) return false;
  // The string must be exactly what the URL parser makes of it: no case folding, no dot segments, no percent
  // re-encoding, no default port dropped, no userinfo. This shuts out every normalisation trick at once.
  if (url.href !== raw || !raw.startsWith('https://github.com/')) return false;
  const segments = url.pathname.split('/');
  // ['', owner, repo, 'issues', 'new'] or [..., 'new', 'choose'] or a trailing slash ['', ..., 'new', '']
  const [lead, owner, repo, issues, verb, ...rest] = segments;
  if (lead !== '' || owner === undefined || repo === undefined || issues !== 'issues' || verb !== 'new') return false;
  if (!(rest.length === 0 || (rest.length === 1 && (rest[0] === '' || rest[0] === 'choose')))) return false;
  if (!GITHUB_OWNER.test(owner) || !GITHUB_REPO.test(repo) || repo === '.' || repo === '..') return false;
  for (const key of url.searchParams.keys()) {
    if (!ISSUE_QUERY_KEYS.has(key)) return false;
  }
  return true;
}

/**
 * Is an IPC message from a frame we trust? Only the top frame of our own page (`windeck://app/...`); a frame
 * that navigated elsewhere, an iframe, a `file:` or `http:` page, or a missing frame (destroyed) is refused.
 */
export function isTrustedSender(frameUrl: unknown): boolean {
  return isAppUrl(frameUrl);
}

/**
 * The Content-Security-Policy of every page served from `windeck://app/`. Scripts only from our own origin (no
 * inline, no eval); no network beyond our origin (the backend is reached over IPC, not fetch); no plugins, frames,
 * form posts or base-URI tricks. Inline style attributes are allowed as in the web host (React and the component
 * library set `style=`); they cannot run code.
 */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "child-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
