/**
 * The secret patterns Windeck's redaction knows (DESIGN.md section 6, issue 6). Pure data: regular expressions
 * with a cheap pre-check, the kind of secret they find and which part of the match is the secret.
 *
 * The well-known credential formats (GitHub tokens, AWS keys, private keys, basic auth in URLs) follow the rules
 * of secretlint's recommended preset (github.com/secretlint/secretlint, `@secretlint/secretlint-rule-*`), which
 * `electron/services/bundle/scan.ts` also runs as an independent final check; the Kubernetes and Windows
 * patterns (kubeconfig credentials, service-account tokens, bootstrap tokens, Secret data, last-applied
 * annotations, WinRM/SSH credentials, PowerShell and cmd.exe password arguments, Azure SAS and storage keys,
 * azure.json client secrets) are ours.
 *
 * No node:*, no DOM.
 */

/** Every kind of thing the redactor replaces. Ids are stable: they appear in manifests and previews. */
export const SECRET_KINDS = [
  // Order = priority when two detections cover the same value: the kind recognised by the value's own shape
  // wins over the kind guessed from the key next to it.
  'private-key',
  'certificate',
  'service-account-token',
  'jwt',
  'bootstrap-token',
  'github-token',
  'aws-access-key',
  'aws-secret-key',
  'azure-sas',
  'azure-storage-key',
  'azure-client-secret',
  'kubeconfig-credential',
  'winrm-credential',
  'ssh-credential',
  'registry-auth',
  'basic-auth',
  'bearer-token',
  'url-password',
  'password',
  'generic-secret',
  'last-applied-configuration',
  'secret-data',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** What strict redaction adds: consistent pseudonyms. */
export const PSEUDONYM_KINDS = ['ipv4', 'ipv6', 'mac', 'hostname'] as const;
export type PseudonymKind = (typeof PSEUDONYM_KINDS)[number];

/** `secretlint:<rule>` for what only the final secretlint scan found. */
export type RedactionKind = SecretKind | PseudonymKind | `secretlint:${string}`;

/** Lower number wins when two detections overlap (the more specific one names the span). */
export const KIND_PRIORITY: Readonly<Record<SecretKind, number>> = Object.fromEntries(SECRET_KINDS.map((k, i) => [k, i])) as Record<SecretKind, number>;

export interface SecretPattern {
  /** Stable id, for tests and the preview. */
  id: string;
  kind: SecretKind;
  /** A cheap test the text must pass before `regex` runs (most texts fail it). */
  hint: RegExp;
  /** Global regex with the `d` flag; the secret is the named group `v`, else the whole match. */
  regex: RegExp;
  /** Re-classify by the key text (group `k`) and value, e.g. a `password` under an SSH key becomes `ssh-credential`. */
  classify?: (value: string, key: string | undefined, text: string) => SecretKind | null;
  /** Values that look like placeholders are not secrets: keep them (returns true to skip). */
  skip?: (value: string, key: string | undefined) => boolean;
}

/** Values that are not secrets even where a secret is expected. */
export function isPlaceholder(value: string): boolean {
  const v = value.trim().replace(/^\\?["']|\\?["']$/g, '');
  if (v === '' || v.length < 2) return true;
  if (/^\[REDACTED[:\]]/.test(v)) return true;
  if (/^(?:null|nil|none|true|false|undefined|\*+|x+|<[^>]*>|%[A-Za-z_]+%|redacted|changeme|\.\.\.|-|\{\}|\[\])$/i.test(v)) return true;
  // Variables and sub-expressions ($VAR, ${VAR}, $(cat f), (Get-Secret ...)) are not the secret itself.
  if (/^[$(]/.test(v)) return true;
  return false;
}

const KEY_CLASS: Array<[RegExp, SecretKind]> = [
  [/client-key-data|client-certificate-data|id-token|refresh-token|idp-issuer/i, 'kubeconfig-credential'],
  [/winrm/i, 'winrm-credential'],
  [/ssh|sshpass|plink|pscp/i, 'ssh-credential'],
  [/aadclientsecret|client[_-]?secret|azure_client_secret/i, 'azure-client-secret'],
  [/accountkey|storage[_-]?(?:account[_-]?)?key|azurestorageaccountkey/i, 'azure-storage-key'],
  [/aws[_-]?secret|secret[_-]?access[_-]?key/i, 'aws-secret-key'],
  [/sharedaccesssignature|sharedaccesskey/i, 'azure-sas'],
  [/pass|pwd/i, 'password'],
];

/** Kind of a key=value secret from its key; `token` in a kubeconfig is a kubeconfig credential. */
export function classifyByKey(key: string | undefined, text: string, fallback: SecretKind): SecretKind {
  if (!key) return fallback;
  const bare = key
    .trim()
    .replace(/^[\\"'-]+|[\\"']+$/g, '')
    .toLowerCase();
  if ((bare === 'token' || bare === 'password') && /(?:^|\n)\s*(?:kind:\s*Config\b|current-context:|users:)/.test(text)) return 'kubeconfig-credential';
  for (const [re, kind] of KEY_CLASS) if (re.test(key)) return kind;
  return fallback;
}

/** Shapes of a value after `key:`/`key=`: escaped-JSON quoted, quoted, single-quoted, or bare. */
const VALUE = String.raw`(?:\\"(?<v>(?:[^"\\]|\\[^"])*)\\"|"(?<v2>(?:[^"\\\n]|\\.)*)"|'(?<v3>[^'\n]*)'|(?<v4>[^\s"',;&}{)\]\\]+))`;

/** Secret-bearing key names for key/value pairs (YAML, JSON, env, ini, query strings). */
const SECRET_KEY = String.raw`[A-Za-z0-9_.-]*?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|account[_-]?key|access[_-]?key|private[_-]?key|client-key-data|client-certificate-data|credentials?|auth[_-]?key|sharedaccesskey|sharedaccesssignature)`;

/** The prefilter of the patterns keyed by SECRET_KEY (a cheap test before their regular expression; no `g`: shared). */
const SECRET_KEY_HINT = /pass|pwd|secret|token|key|credential/i;

/** Kind of a secret named by its key (env var names, YAML keys): token, password, or generic. */
function classifyNamedSecret(_value: string, key: string | undefined, text: string): SecretKind {
  return classifyByKey(key, text, /token/i.test(key ?? '') ? 'bearer-token' : /pass|pwd/i.test(key ?? '') ? 'password' : 'generic-secret');
}

/**
 * The patterns, most specific first. Every regex is global with indices (`dg`), case rules as noted.
 * Group `v` (or v2/v3/v4 for alternative value shapes) is what gets replaced.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    id: 'pem-private-key',
    kind: 'private-key',
    hint: /PRIVATE KEY-----/,
    regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/dg,
  },
  {
    id: 'putty-private-key',
    kind: 'private-key',
    hint: /PuTTY-User-Key-File/,
    regex: /PuTTY-User-Key-File-\d+:[\s\S]*?Private-(?:Lines|MAC):[^\n]*(?:\n(?![A-Z][\w-]*:)[^\n]*)*/dg,
  },
  {
    id: 'pem-certificate',
    kind: 'certificate',
    hint: /-----BEGIN (?:[A-Z0-9]+ )*CERTIFICATE/,
    regex: /-----BEGIN (?:[A-Z0-9]+ )*CERTIFICATE(?: REQUEST)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*CERTIFICATE(?: REQUEST)?-----|$)/dg,
  },
  {
    // base64 of "-----BEGIN" (kubeconfig *-data fields, Secrets' tls.key / ca.crt); classified after decoding.
    id: 'base64-pem',
    kind: 'certificate',
    hint: /LS0tLS1CRUdJTi/,
    regex: /LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}/dg,
  },
  {
    id: 'jwt',
    kind: 'jwt',
    hint: /eyJ/,
    regex: /\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{8,}/dg,
  },
  {
    id: 'kubeadm-bootstrap-token',
    kind: 'bootstrap-token',
    // Bootstrap tokens travel next to the word token (`--token`, `token:`, `bootstrap-token-<id>`).
    hint: /token/i,
    regex: /(?<![A-Za-z0-9._/-])(?<v>[a-z0-9]{6}\.[a-z0-9]{16})(?![A-Za-z0-9_-]|\.[A-Za-z0-9])/dg,
    // Both parts of a real bootstrap token mix letters and digits (kubeadm draws from [a-z0-9]).
    skip: (v) => !/\d/.test(v.slice(7)) || !/[a-z]/.test(v.slice(7)),
  },
  {
    id: 'github-token',
    kind: 'github-token',
    hint: /gh[pousr]_|github_pat_/,
    regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/dg,
  },
  {
    id: 'aws-access-key-id',
    kind: 'aws-access-key',
    hint: /A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)/,
    regex: /(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/dg,
  },
  {
    id: 'aws-secret-access-key',
    kind: 'aws-secret-key',
    hint: /secret.?access.?key|SecretAccessKey/i,
    regex: /(?<k>aws_?secret_?access_?key|secret_?access_?key|SecretAccessKey)["']?\s*(?:[:=]|=>)\s*["']?(?<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
  },
  {
    id: 'azure-sas-signature',
    kind: 'azure-sas',
    hint: /sig=/i,
    regex: /(?<=[?&;\s"']|^)sig=(?<v>[A-Za-z0-9%+/=_-]{8,})/dgi,
  },
  {
    id: 'azure-connection-string-key',
    kind: 'azure-storage-key',
    hint: /AccountKey=|SharedAccessKey=|SharedAccessSignature=/i,
    regex: /(?<k>AccountKey|SharedAccessKey|SharedAccessSignature)=(?<v>[^;"'\s]+)/dgi,
    classify: (_v, k) => (k && /signature/i.test(k) ? 'azure-sas' : 'azure-storage-key'),
  },
  {
    id: 'authorization-header',
    kind: 'bearer-token',
    hint: /Bearer|Basic|Negotiate|NTLM|Kerberos/i,
    regex: /(?<k>\b(?:Bearer|Basic|Negotiate|NTLM|Kerberos))\s+(?<v>[A-Za-z0-9._~+/-]{8,}=*)/dg,
    classify: (_v, k) => {
      const scheme = (k ?? '').toLowerCase();
      if (scheme === 'basic') return 'basic-auth';
      if (scheme === 'negotiate' || scheme === 'ntlm' || scheme === 'kerberos') return 'winrm-credential';
      return 'bearer-token';
    },
    // "Basic authentication" and friends are words, not tokens.
    skip: (v) => /^[a-z]+$/.test(v) && v.length < 20,
  },
  {
    id: 'url-userinfo-password',
    kind: 'url-password',
    hint: /:\/\//,
    regex: /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"'<>]*:(?<v>[^\s/@"'<>]+)@/dg,
  },
  {
    id: 'docker-config-auth',
    kind: 'registry-auth',
    hint: /"auth"\s*:/,
    regex: /(?<k>"auths?")\s*:\s*"(?<v>[A-Za-z0-9+/=]{8,})"/dg,
  },
  {
    // PowerShell: ConvertTo-SecureString 'p@ss' -AsPlainText -Force (PSCredential for WinRM/SSH sessions).
    id: 'powershell-securestring',
    kind: 'password',
    hint: /ConvertTo-SecureString/i,
    // A backtick at a line's end continues the command on the next line (PowerShell's line continuation).
    regex: /ConvertTo-SecureString(?:\s|`\r?\n)+(?:-String(?:\s|`\r?\n)+)?(?:"(?<v>(?:[^"`]|`.)*)"|'(?<v2>[^']*)'|(?<v3>[^\s'"()|;`-][^\s()|;]*))/dgi,
    classify: (_v, _k, text) => (/winrm|PSSession|Invoke-Command|-ComputerName/i.test(text) ? 'winrm-credential' : 'password'),
  },
  {
    // pywinrm / Ansible: Session('host', auth=('user', 'secret')).
    id: 'winrm-auth-tuple',
    kind: 'winrm-credential',
    hint: /auth\s*=\s*\(/,
    regex: /auth\s*=\s*\(\s*(["'])[^"'\n]*\1\s*,\s*(?:"(?<v>[^"\n]*)"|'(?<v2>[^'\n]*)')/dg,
  },
  {
    // sshpass -p X, plink/pscp -pw X.
    id: 'ssh-password-flag',
    kind: 'ssh-credential',
    hint: /sshpass|plink|pscp|-pw\b/i,
    // `\` at a line's end continues a shell command on the next line.
    regex:
      /(?:\bsshpass(?:\s|\\\r?\n)+-p(?:\s|\\\r?\n)*|\b(?:plink|pscp|psftp)(?:\.exe)?\b(?:[^\n]|\\\r?\n)*?\s-pw(?:\s|\\\r?\n)+)(?:"(?<v>[^"\n]*)"|'(?<v2>[^'\n]*)'|(?<v3>\S+))/dgi,
  },
  {
    // net use \\server\share PASSWORD /user:DOMAIN\name
    id: 'net-use-password',
    kind: 'password',
    hint: /\bnet(?:\.exe)?\s+use\b/i,
    regex: /\bnet(?:\.exe)?\s+use\s+(?:[A-Z]:\s+)?\\\\\S+\s+(?!\/)(?:"(?<v>[^"\n]*)"|(?<v2>[^\s/*]\S*))/dgi,
  },
  {
    // net use Z: \\server\share /user:DOMAIN\name PASSWORD
    id: 'net-use-password-after-user',
    kind: 'password',
    hint: /\bnet(?:\.exe)?\s+use\b/i,
    regex: /\bnet(?:\.exe)?\s+use\b[^\n]*?\s\/u(?:ser)?:\S+\s+(?!\/)(?:"(?<v>[^"\n]*)"|(?<v2>[^\s/*]\S*))/dgi,
  },
  {
    // Pod env: - name: DB_PASSWORD \n value: X, and {"name": "API_TOKEN", "value": "X"}.
    id: 'env-var-secret',
    kind: 'generic-secret',
    hint: /PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL/i,
    regex:
      /(?<k>"?name"?\s*:\s*"?[A-Za-z0-9_.-]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Za-z0-9_]*"?)\s*(?:,|\n)(?:[ \t]*#[^\n]*\n)*\s*(?:-\s+)?"?value"?\s*:\s*(?:"(?<v>(?:[^"\\\n]|\\.)*)"|'(?<v2>[^'\n]*)'|(?<v3>[^\s"',}]+))/dgi,
    classify: classifyNamedSecret,
    skip: (v) => isPlaceholder(v),
  },
  {
    // Command-line switches: --password=X, --password X, -Password X, --token X, /p:X, /password:X, /pass:X.
    id: 'command-line-password',
    kind: 'password',
    hint: /pass|pwd|secret|token|key|\/p:/i,
    regex: new RegExp(
      String.raw`(?<![^\s"'(])(?:(?<k>--?[A-Za-z0-9_-]*?(?:password|passwd|pwd|passphrase|secret|token|api-?key))(?:[:=]|\s+)|(?<k2>/p(?:ass(?:word)?)?):)(?!-)` +
        String.raw`(?:"(?<v>(?:[^"\\\n]|\\.)*)"|'(?<v2>[^'\n]*)'|(?<v3>[^\s"']+))`,
      'dgi',
    ),
    classify: (_v, k, text) => classifyByKey(k, text, /token/i.test(k ?? '') ? 'bearer-token' : /secret|key/i.test(k ?? '') ? 'generic-secret' : 'password'),
    skip: (v) => isPlaceholder(v) || /^(?:file|stdin|prompt)$/i.test(v),
  },
  {
    // `-u user -p secret` (docker login, mysql, ...): -p only counts next to a user switch.
    id: 'user-p-password',
    kind: 'password',
    hint: /\s-p\b/,
    // `\` at a line's end continues a shell command on the next line (`docker login -u robot \` / `-p X`).
    regex:
      /(?:\s(?:-u|--user(?:name)?|-U)(?:[\s=]|\\\r?\n)+\S+(?:\s|\\\r?\n)+-p(?:\s|\\\r?\n)*|\blogin\b(?:[^\n]|\\\r?\n)*?\s-p(?:\s|\\\r?\n)+)(?:"(?<v>[^"\n]*)"|'(?<v2>[^'\n]*)'|(?<v3>(?!\d{1,5}\b)[^\s"'\\]+))/dg,
  },
  {
    // YAML block scalar under a secret key: `password: |` / `token: >-` and the indented lines below (all of them).
    id: 'yaml-block-scalar-secret',
    kind: 'generic-secret',
    hint: SECRET_KEY_HINT,
    regex: new RegExp(
      String.raw`^(?<ind>[ \t]*)(?:-[ \t]+)?(?<k>["']?${SECRET_KEY}["']?)[ \t]*:[ \t]*[|>][-+1-9]{0,2}[ \t]*\r?\n(?:[ \t]*\r?\n)*\k<ind>[ \t]+(?<v>\S[^\r\n]*(?:(?:\r?\n[ \t]*)*\r?\n\k<ind>[ \t]+\S[^\r\n]*)*)`,
      'dgim',
    ),
    classify: classifyNamedSecret,
    skip: (v) => isPlaceholder(v),
  },
  {
    // YAML plain scalar on the line under a secret key (`password:` then `  s3cr3t`). Only a scalar: a mapping
    // (`secret:` then `  secretName: x`, a volume source), a list item or a comment below is not a value.
    id: 'yaml-next-line-secret',
    kind: 'generic-secret',
    hint: SECRET_KEY_HINT,
    regex: new RegExp(
      String.raw`^(?<ind>[ \t]*)(?:-[ \t]+)?(?<k>["']?${SECRET_KEY}["']?)[ \t]*:[ \t]*\r?\n\k<ind>[ \t]+(?![-?:][ \t\r\n]|[#&*!|>{\[%@\`])(?<v>(?:[^\r\n:#]|:(?![ \t\r\n])|#(?<![ \t]#))+?)(?:[ \t]+#[^\r\n]*)?[ \t]*(?=\r?\n|$)`,
      'dgim',
    ),
    classify: classifyNamedSecret,
    skip: (v) => isPlaceholder(v),
  },
  {
    // key: value / key=value / "key": "value" in YAML, JSON, env files, ini and query strings.
    id: 'key-value-secret',
    kind: 'generic-secret',
    hint: SECRET_KEY_HINT,
    regex: new RegExp(String.raw`(?<![A-Za-z0-9])(?<k>\\?["']?${SECRET_KEY}\\?["']?)[ \t]*(?::|=|=>)[ \t]*${VALUE}`, 'dgi'),
    classify: (_v, k, text) => classifyByKey(k, text, /token/i.test(k ?? '') ? 'bearer-token' : 'generic-secret'),
    skip: (v, k) =>
      isPlaceholder(v) ||
      /^(?:\||>-?|\{|\[)$/.test(v) ||
      /^\/[\w/.-]+$/.test(v) ||
      /^[A-Za-z]:\\[\w\\ .-]+$/.test(v) ||
      // klog's structured `secret="ns/name"` names an object; it is not the secret's content.
      (/^["']?secret["']?$/i.test(k ?? '') && /^[a-z0-9][a-z0-9.-]*(?:\/[a-z0-9][a-z0-9.-]*)?$/.test(v)),
  },
];

/**
 * Lower-case words of which at least one occurs on (or next to) every line any pattern can match. Large texts
 * are searched only around these (a literal search is far cheaper than 25 patterns over every log line).
 * Keep in step with the patterns' hints: `redact.test.ts` checks every canary also inside a large log.
 */
export const TRIGGER_WORDS: readonly string[] = [
  '-----begin',
  'putty-user-key-file',
  'ls0tls1crudjti',
  'eyj',
  'token',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'akia',
  'asia',
  'agpa',
  'aida',
  'aroa',
  'aipa',
  'anpa',
  'anva',
  'abia',
  'acca',
  'secret',
  'sig=',
  'sharedaccess',
  'bearer',
  'basic',
  'negotiate',
  'ntlm',
  'kerberos',
  '://',
  'auth',
  'convertto-securestring',
  'plink',
  'pscp',
  '-pw',
  'net use',
  'net.exe',
  // `net use` with other white space than one space (`net  use`, `NET<TAB>USE`) is found by its /user: switch.
  '/user:',
  '/u:',
  'pass',
  'pwd',
  'key',
  'credential',
  '/p:',
  ' -p',
  '\t-p',
];

/** The Kubernetes annotation that carries a copy of the applied object (Secrets included). */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Host names that are never pseudonymized: they are not about the user's machines. */
export const PUBLIC_DOMAINS: readonly string[] = [
  'cluster.local',
  'svc.cluster.local',
  'localhost',
  'kubernetes.io',
  'k8s.io',
  'registry.k8s.io',
  'github.com',
  'githubusercontent.com',
  'microsoft.com',
  'mcr.microsoft.com',
  'azure.com',
  'windows.net',
  'docker.io',
  'docker.com',
  'gcr.io',
  'quay.io',
  'amazonaws.com',
  'example.com',
  'example',
];

/** Words never learnt as host names even when a node is called that (they would rewrite ordinary text). */
export const HOSTNAME_STOPWORDS: ReadonlySet<string> = new Set([
  'windows',
  'linux',
  'node',
  'nodes',
  'master',
  'worker',
  'kubelet',
  'kube-proxy',
  'containerd',
  'docker',
  'flannel',
  'flanneld',
  'default',
  'localhost',
  'local',
  'cluster',
  'control-plane',
  'server',
  'client',
  'true',
  'false',
  'null',
  'none',
  'host',
  'hostname',
]);
