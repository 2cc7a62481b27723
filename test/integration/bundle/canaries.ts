/**
 * Canary secrets for redaction tests: distinct random values of every kind issue 6 names, each placed in the
 * context where it really occurs (kubeconfig, kubelet flags, PowerShell, azure.json, Secret manifests, URLs...),
 * plus base64-, URL- and UTF-16LE-encoded variants. Deterministic (seeded), so a failure names the same canary
 * every run. `needles` are the strings that must not survive redaction anywhere.
 */

export interface Canary {
  id: string;
  /** The kind the redactor should report (one of its kinds). */
  kind: string;
  /** The secret value(s) that must not appear in any output. */
  needles: string[];
  /** Text that carries the secret, as it appears in a file or log. */
  text: string;
  /** How the secret is encoded in `text`. */
  encoding: 'plain' | 'base64' | 'url' | 'utf16le';
}

/** Small seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = ALNUM + '+/';

function pick(rand: () => number, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

function pemBody(rand: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(pick(rand, B64, 64));
  return out.join('\n');
}

/** Build the canary set (about 70 distinct secrets). */
export function makeCanaries(seed = 6): Canary[] {
  const r = prng(seed);
  const c: Canary[] = [];
  const add = (id: string, kind: string, needles: string[], text: string, encoding: Canary['encoding'] = 'plain') => c.push({ id, kind, needles, text, encoding });
  const pw = () => `Pw${pick(r, ALNUM, 14)}!${pick(r, ALNUM, 4)}`;

  // Private keys and certificates.
  const rsaBody = pemBody(r, 6);
  add('pem-rsa-key', 'private-key', rsaBody.split('\n'), `-----BEGIN RSA PRIVATE KEY-----\n${rsaBody}\n-----END RSA PRIVATE KEY-----`);
  const sshBody = pemBody(r, 5);
  add('pem-openssh-key', 'private-key', sshBody.split('\n'), `-----BEGIN OPENSSH PRIVATE KEY-----\r\n${sshBody.replace(/\n/g, '\r\n')}\r\n-----END OPENSSH PRIVATE KEY-----`);
  const certBody = pemBody(r, 5);
  add('pem-certificate', 'certificate', certBody.split('\n'), `-----BEGIN CERTIFICATE-----\n${certBody}\n-----END CERTIFICATE-----`);
  const keyPem = `-----BEGIN EC PRIVATE KEY-----\n${pemBody(r, 3)}\n-----END EC PRIVATE KEY-----\n`;
  const certPem = `-----BEGIN CERTIFICATE-----\n${pemBody(r, 4)}\n-----END CERTIFICATE-----\n`;
  const token1 = pick(r, ALNUM, 48);
  const kubePw = pw();
  add(
    'kubeconfig',
    'kubeconfig-credential',
    [b64(keyPem), b64(certPem), token1, kubePw, ...keyPem.split('\n').filter((l) => l.length > 40), ...certPem.split('\n').filter((l) => l.length > 40)],
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: prod',
      'clusters:',
      '- cluster:',
      '    server: https://10.0.0.1:6443',
      '  name: prod',
      'users:',
      '- name: admin',
      '  user:',
      `    client-certificate-data: ${b64(certPem)}`,
      `    client-key-data: ${b64(keyPem)}`,
      '- name: robot',
      '  user:',
      `    token: ${token1}`,
      '- name: basic',
      '  user:',
      '    username: admin',
      `    password: ${kubePw}`,
    ].join('\n'),
  );

  // Tokens.
  const saPayload = { iss: 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': 'kube-system', sub: 'system:serviceaccount:kube-system:flannel', n: pick(r, ALNUM, 12) };
  const saJwt = `${b64url('{"alg":"RS256","kid":"' + pick(r, ALNUM, 10) + '"}')}.${b64url(JSON.stringify(saPayload))}.${pick(r, ALNUM + '-_', 86)}`;
  add('sa-token-file', 'service-account-token', [saJwt], `token: ${saJwt}`);
  const jwt2 = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"' + pick(r, ALNUM, 10) + '","exp":1900000000}')}.${pick(r, ALNUM + '-_', 43)}`;
  add('bearer-jwt-header', 'jwt', [jwt2], `I0612 10:00:00.000000    4242 round_trippers.go:466] curl -v -XGET  -H "Authorization: Bearer ${jwt2}" 'https://10.0.0.1:6443/api/v1/nodes'`);
  const opaque = pick(r, ALNUM, 40);
  add('bearer-opaque', 'bearer-token', [opaque], `Authorization: Bearer ${opaque}`);
  const boot = `${pick(r, 'abcdef', 3)}${pick(r, '0123456789', 3)}.${pick(r, 'abcdef', 8)}${pick(r, '0123456789', 8)}`;
  add('kubeadm-join', 'bootstrap-token', [boot], `kubeadm join 10.0.0.1:6443 --token ${boot} --discovery-token-ca-cert-hash sha256:${pick(r, '0123456789abcdef', 64)}`);
  const basicCred = `admin:${pw()}`;
  add('basic-auth-header', 'basic-auth', [b64(basicCred), basicCred.split(':')[1] as string], `Authorization: Basic ${b64(basicCred)}`);

  // GitHub, AWS, Azure.
  const ghp = `ghp_${pick(r, ALNUM, 36)}`;
  add('github-ghp', 'github-token', [ghp], `git clone https://x-access-token@github.com/org/repo # GITHUB_TOKEN ${ghp}`);
  const gho = `gho_${pick(r, ALNUM, 36)}`;
  add('github-gho', 'github-token', [gho], `export GH_OAUTH=${gho}`);
  const pat = `github_pat_${pick(r, ALNUM, 22)}_${pick(r, ALNUM, 59)}`;
  add('github-pat', 'github-token', [pat], `"github": {"token": "${pat}"}`);
  const akia = `AKIA${pick(r, UPPER_NUM, 16)}`;
  const awsSecret = pick(r, B64, 40);
  add('aws-credentials-file', 'aws-access-key', [akia, awsSecret], `[default]\r\naws_access_key_id = ${akia}\r\naws_secret_access_key = ${awsSecret}\r\n`);
  const akia2 = `ASIA${pick(r, UPPER_NUM, 16)}`;
  const awsSecret2 = pick(r, B64, 40);
  add('aws-env', 'aws-secret-key', [akia2, awsSecret2], `AWS_ACCESS_KEY_ID=${akia2} AWS_SECRET_ACCESS_KEY=${awsSecret2} aws s3 ls`);
  const sig = encodeURIComponent(Buffer.from(pick(r, ALNUM, 32)).toString('base64'));
  add('azure-sas-url', 'azure-sas', [sig, decodeURIComponent(sig)], `Invoke-WebRequest "https://acct.blob.core.windows.net/logs/kubelet.zip?sv=2022-11-02&ss=b&srt=o&sp=rw&se=2030-01-01T00:00:00Z&sig=${sig}" -OutFile x.zip`);
  const accountKey = Buffer.from(pick(r, ALNUM, 64)).toString('base64');
  add('azure-storage-conn', 'azure-storage-key', [accountKey], `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${accountKey};EndpointSuffix=core.windows.net`);
  const aad = `${pick(r, ALNUM, 8)}~${pick(r, ALNUM, 30)}`;
  add('azure-json', 'azure-client-secret', [aad], `{\r\n    "cloud": "AzurePublicCloud",\r\n    "tenantId": "${pick(r, '0123456789abcdef', 8)}",\r\n    "aadClientId": "msi",\r\n    "aadClientSecret": "${aad}",\r\n    "resourceGroup": "rg"\r\n}`);

  // Passwords in URLs and command lines.
  const urlPw = pw();
  add('url-password', 'url-password', [urlPw], `I0612 proxy.go:12] using proxy http://svc-proxy:${urlPw}@proxy.corp.example:3128`);
  const p1 = pw();
  add('flag-equals', 'password', [p1], `C:\\k\\tool.exe --password=${p1} --verbose`);
  const p2 = pw();
  add('flag-space', 'password', [p2], `registry-login.exe --registry-password "${p2}" --server myreg`);
  const p3 = pw();
  add('ps-password-param', 'password', [p3], `New-LocalUser -Name svc -Password ${p3}`);
  const p4 = pw();
  add('slash-p', 'password', [p4], `msdeploy.exe -verb:sync -dest:auto,computerName=x,userName=admin /p:${p4}`);
  const p5 = pw();
  add('slash-password', 'password', [p5], `cmdkey /add:fileserver /user:CORP\\svc /pass:${p5}`);
  const p6 = pw();
  add('docker-login', 'password', [p6], `docker login -u robot -p ${p6} myregistry.azurecr.io`);
  const p7 = pw();
  add('securestring', 'password', [p7], `$pw = ConvertTo-SecureString '${p7}' -AsPlainText -Force`);
  const p8 = pw();
  add('net-use', 'password', [p8], `net use Z: \\\\fileserver\\share ${p8} /user:CORP\\svc`);
  const p9 = pw();
  add('env-password', 'password', [p9], `ADMIN_PASSWORD=${p9}`);

  // WinRM and SSH credentials.
  const ntlm = Buffer.from(`NTLMSSP\u0000${pick(r, ALNUM, 40)}`).toString('base64');
  add('winrm-negotiate', 'winrm-credential', [ntlm], `POST /wsman HTTP/1.1\r\nAuthorization: Negotiate ${ntlm}\r\n`);
  const w1 = pw();
  add('pywinrm', 'winrm-credential', [w1], `s = winrm.Session('win-node-1', auth=('Administrator', '${w1}'), transport='ntlm')`);
  const w2 = pw();
  add('winrm-ps-session', 'winrm-credential', [w2], `$cred = New-Object PSCredential('admin', (ConvertTo-SecureString "${w2}" -AsPlainText -Force)); Enter-PSSession -ComputerName win-1 -Credential $cred`);
  const w3 = pw();
  add('ansible-winrm', 'winrm-credential', [w3], `ansible_winrm_password: ${w3}`);
  const s1 = pw();
  add('sshpass', 'ssh-credential', [s1], `sshpass -p '${s1}' ssh administrator@win-1 powershell -Command Get-Service`);
  const s2 = pw();
  add('plink', 'ssh-credential', [s2], `plink.exe -ssh admin@win-1 -pw ${s2} "Get-Service kubelet"`);
  const s3 = pw();
  add('ssh-env', 'ssh-credential', [s3], `SSH_PASSWORD=${s3}`);

  // Registry auth, Secrets, annotations, env vars.
  const dockerCred = `robot:${pw()}`;
  add('dockerconfigjson', 'registry-auth', [b64(dockerCred), dockerCred.slice(6)], `{"auths":{"myregistry.azurecr.io":{"username":"robot","password":"${dockerCred.slice(6)}","auth":"${b64(dockerCred)}"}}}`);
  const sd1 = pick(r, ALNUM, 24);
  const sd2 = pw();
  const sd3 = pick(r, ALNUM, 30);
  add(
    'secret-yaml',
    'secret-data',
    [b64(sd1), b64(sd2), sd3],
    ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: db', '  namespace: default', 'type: Opaque', 'data:', `  user: ${b64(sd1)}`, `  pass: ${b64(sd2)}`, 'stringData:', `  apiKey: ${sd3}`].join('\n'),
  );
  const sd4 = pick(r, ALNUM, 26);
  add('secret-json', 'secret-data', [b64(sd4)], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { 'tls.key': b64(sd4) } }, null, 2));
  const la = pw();
  add(
    'last-applied',
    'last-applied-configuration',
    [la],
    ['metadata:', '  annotations:', '    kubectl.kubernetes.io/last-applied-configuration: |', `      {"apiVersion":"v1","kind":"Secret","stringData":{"password":"${la}"}}`, '  name: app'].join('\n'),
  );
  const la2 = pw();
  add('last-applied-json', 'last-applied-configuration', [la2], `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"kind\\":\\"Secret\\",\\"stringData\\":{\\"pw\\":\\"${la2}\\"}}\\n"}}}`);
  const ev = pw();
  add('pod-env', 'password', [ev], ['      env:', '      - name: DB_PASSWORD', `        value: ${ev}`].join('\n'));

  // Encoded variants: base64, URL, UTF-16LE.
  const e1 = pw();
  add('b64-flag-line', 'password', [e1], `config-blob: ${b64(`--password=${e1} --user admin`)}`, 'base64');
  const e2 = `ghp_${pick(r, ALNUM, 36)}`;
  add('b64-github', 'github-token', [e2], `GIT_CONFIG=${b64(`[http]\n  extraheader = AUTHORIZATION: token ${e2}\n`)}`, 'base64');
  const e3 = pw();
  const encodedCommand = Buffer.from(`$p = ConvertTo-SecureString '${e3}' -AsPlainText -Force; New-LocalUser -Name x -Password $p`, 'utf16le').toString('base64');
  add('encoded-command', 'password', [e3], `powershell.exe -NoProfile -EncodedCommand ${encodedCommand}`, 'base64');
  const e4 = pw();
  add('url-encoded-password', 'password', [e4, encodeURIComponent(e4)], `GET /login?user=admin&password%3D${encodeURIComponent(e4)}%26next%3D%2F HTTP/1.1`, 'url');
  const e5 = `AKIA${pick(r, UPPER_NUM, 16)}`;
  add('url-encoded-akia', 'aws-access-key', [e5], `redirect=https%3A%2F%2Fs3.example%2F%3Fkey%3D${e5}%26x%3D1`, 'url');
  const e6 = pw();
  const utf16Fragment = Buffer.from(`--password=${e6} `, 'utf16le').toString('latin1');
  add('utf16-fragment', 'password', [e6], `started: ${utf16Fragment}done`, 'utf16le');
  const e7 = `ghp_${pick(r, ALNUM, 36)}`;
  add('utf16-github', 'github-token', [e7], Buffer.from(`token ${e7}\r\n`, 'utf16le').toString('latin1'), 'utf16le');
  const e8 = pw();
  add('b64-of-utf16-flag', 'password', [e8], `blob ${Buffer.from(`--client-secret=${e8}`, 'utf16le').toString('base64')}`, 'base64');

  // More plain variety so every kind has several distinct members.
  for (let i = 0; i < 4; i++) {
    const t = `ghs_${pick(r, ALNUM, 36)}`;
    add(`github-ghs-${i}`, 'github-token', [t], `token=${t}`);
  }
  for (let i = 0; i < 3; i++) {
    const k = `AKIA${pick(r, UPPER_NUM, 16)}`;
    add(`akia-${i}`, 'aws-access-key', [k], `access key ${k} used`);
  }
  for (let i = 0; i < 3; i++) {
    const p = pw();
    add(`json-password-${i}`, 'password', [p], `{"username":"u${i}","password":"${p}"}`);
  }
  for (let i = 0; i < 3; i++) {
    const s = pick(r, ALNUM, 32);
    add(`client-secret-${i}`, 'azure-client-secret', [s], `--client-secret ${s}`);
  }
  return c;
}

/** Every form of a needle that must not appear in output bytes: raw, base64 (3 alignments) and UTF-16LE. */
export function needleForms(needle: string): Array<{ form: string; bytes: Buffer }> {
  const raw = Buffer.from(needle, 'utf8');
  const forms: Array<{ form: string; bytes: Buffer }> = [
    { form: 'raw', bytes: raw },
    { form: 'utf16le', bytes: Buffer.from(needle, 'utf16le') },
  ];
  // base64 of the needle at any of the 3 byte alignments inside a larger blob: the characters whose 6 bits
  // come from the needle alone are the same wherever the blob starts.
  for (let shift = 0; shift < 3; shift++) {
    const enc = Buffer.concat([Buffer.alloc(shift, 0x20), raw]).toString('base64');
    const middle = enc.slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + raw.length) * 8) / 6));
    if (middle.length >= 12) forms.push({ form: `base64+${shift}`, bytes: Buffer.from(middle, 'latin1') });
  }
  return forms;
}
