import { describe, expect, it } from 'vitest';
import { StreamRedactor, findSecrets, redactBytes, redactJsonValue, redactText, totalCount } from '../../../../shared/logic/redact';
import { PseudonymTable } from '../../../../shared/logic/redact-pseudonyms';
import { makeCanaries, needleForms, prng } from '../../../integration/bundle/canaries';

const std = { level: 'standard' as const };

function assertGone(output: Buffer, needles: string[], label: string): void {
  for (const needle of needles) {
    for (const { form, bytes } of needleForms(needle)) {
      expect(output.includes(bytes), `${label}: ${form} form of "${needle.slice(0, 12)}…" survived`).toBe(false);
    }
  }
}

describe('redactText on the canary set', () => {
  const canaries = makeCanaries();

  it('has at least 50 distinct secrets of every kind', () => {
    const needles = new Set(canaries.flatMap((c) => c.needles));
    expect(needles.size).toBeGreaterThanOrEqual(50);
    for (const encoding of ['plain', 'base64', 'url', 'utf16le']) expect(canaries.some((c) => c.encoding === encoding)).toBe(true);
  });

  for (const canary of makeCanaries()) {
    it(`removes ${canary.id} (${canary.kind}, ${canary.encoding}) and counts it`, () => {
      const result = redactText(canary.text, std);
      assertGone(Buffer.from(result.text, 'latin1'), canary.needles, canary.id);
      expect(totalCount(result.counts, true), JSON.stringify(result.counts)).toBeGreaterThan(0);
      expect(result.findings.length).toBeGreaterThan(0);
      expect(result.findings.every((f) => f.line >= 1 && f.column >= 1)).toBe(true);
      // The preview hint never carries the secret itself.
      for (const f of result.findings) for (const n of canary.needles) expect(f.hint.includes(n)).toBe(false);
    });
  }

  it('finds every canary inside a large log too (the trigger-word path for texts over 16 KB)', () => {
    const filler = 'I0612 10:00:00.123456    4242 kubelet.go:2345] "SyncLoop (PLEG): event for pod" pod="kube-system/web-0" ip=10.244.1.5\r\n'.repeat(400);
    const canaries = makeCanaries(21);
    const text = canaries.map((c) => filler + c.text + '\r\n').join('') + filler;
    expect(text.length).toBeGreaterThan(100_000);
    const result = redactText(text, std);
    assertGone(
      Buffer.from(result.text, 'latin1'),
      canaries.flatMap((c) => c.needles),
      'large log',
    );
    const small = canaries.reduce((n, c) => n + totalCount(redactText(c.text, std).counts), 0);
    expect(totalCount(result.counts)).toBeGreaterThanOrEqual(small);
  });

  it('a PEM block or PuTTY key right after another trigger word is redacted whole in a large log', () => {
    // The block opener lies inside the earlier trigger's window (its line and two after): the window must still
    // reach the block's end, else the key pattern sees only its first lines and the rest of the body leaks.
    const filler = 'I0612 10:00:00.000000 4242 kubelet.go:1] hcnCreateLoadBalancer pod=web-1\n'.repeat(300);
    const body = Array.from({ length: 8 }, (_, i) => `MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2y${String(i).padStart(2, '0')}`);
    for (const eol of ['\n', '\r\n']) {
      for (const before of ['x token=abc', 'loading key from secret', 'password:', '']) {
        const pem = `-----BEGIN RSA PRIVATE KEY-----${eol}${body.join(eol)}${eol}-----END RSA PRIVATE KEY-----`;
        const putty = `PuTTY-User-Key-File-2: ssh-rsa${eol}Encryption: none${eol}Private-Lines: 8${eol}${body.join(eol)}${eol}Private-MAC: 0123456789abcdef`;
        for (const block of [pem, putty]) {
          const r = redactText(`${filler}${before}${eol}${block}${eol}${filler}`, std);
          for (const b of body) expect(r.text.includes(b), `${before} / ${block.slice(0, 12)} / ${JSON.stringify(eol)}`).toBe(false);
        }
      }
    }
  });

  it('reports the expected kind for the unambiguous cases', () => {
    const byId = new Map(makeCanaries().map((c) => [c.id, c]));
    const kindsOf = (id: string) => Object.keys(redactText(byId.get(id)!.text, std).counts);
    expect(kindsOf('pem-rsa-key')).toContain('private-key');
    expect(kindsOf('pem-certificate')).toContain('certificate');
    expect(kindsOf('sa-token-file')).toContain('service-account-token');
    expect(kindsOf('bearer-jwt-header')).toContain('jwt');
    expect(kindsOf('kubeadm-join')).toContain('bootstrap-token');
    expect(kindsOf('github-pat')).toContain('github-token');
    expect(kindsOf('aws-credentials-file')).toEqual(expect.arrayContaining(['aws-access-key', 'aws-secret-key']));
    expect(kindsOf('azure-sas-url')).toContain('azure-sas');
    expect(kindsOf('azure-storage-conn')).toContain('azure-storage-key');
    expect(kindsOf('azure-json')).toContain('azure-client-secret');
    expect(kindsOf('url-password')).toContain('url-password');
    expect(kindsOf('winrm-negotiate')).toContain('winrm-credential');
    expect(kindsOf('pywinrm')).toContain('winrm-credential');
    expect(kindsOf('winrm-ps-session')).toContain('winrm-credential');
    expect(kindsOf('sshpass')).toContain('ssh-credential');
    expect(kindsOf('plink')).toContain('ssh-credential');
    expect(kindsOf('secret-yaml')).toEqual(['secret-data']);
    expect(kindsOf('last-applied')).toContain('last-applied-configuration');
    expect(kindsOf('kubeconfig')).toEqual(expect.arrayContaining(['kubeconfig-credential']));
    expect(kindsOf('dockerconfigjson')).toContain('registry-auth');
  });

  it('keeps JSON valid when the annotation was already replaced (a second pass over our own output)', () => {
    const text = JSON.stringify(
      { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '[REDACTED:last-applied-configuration len=46]', b: 'x' } } },
      null,
      2,
    );
    expect(redactText(text, std).text).toBe(text);
    const fresh = JSON.stringify({ metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Secret"}' } } }, null, 2);
    expect(() => JSON.parse(redactText(fresh, std).text)).not.toThrow();
  });

  it('replaces Secret data by its decoded length and keeps the YAML valid-looking', () => {
    const text = ['kind: Secret', 'data:', '  user: YWRtaW4=', '  pass: c2VjcmV0LXZhbHVl', 'stringData:', '  note: hello-world', 'type: Opaque'].join('\n');
    const out = redactText(text, std).text;
    expect(out).toContain('user: [REDACTED:secret-data len=5]');
    expect(out).toContain('pass: [REDACTED:secret-data len=12]');
    expect(out).toContain('note: [REDACTED:secret-data len=11]');
    expect(out).toContain('type: Opaque');
  });

  it('leaves a ConfigMap data section alone', () => {
    const text = ['kind: ConfigMap', 'data:', '  net-conf.json: |', '    {"Network": "10.244.0.0/16"}'].join('\n');
    expect(redactText(text, std).text).toBe(text);
  });
});

describe('no over-redaction in standard mode', () => {
  const keep = [
    'I0612 10:00:00.000000    4242 kubelet.go:2345] "SyncLoop (PLEG): event for pod" pod="kube-system/kube-proxy-windows-7xkqz" event={"ID":"3f2a"}',
    'E0612 10:00:01.000000    4242 kubelet.go:1] "Failed to get secret" secret="default/db-credentials" err="not found"',
    '    secretName: default-token-abcde',
    '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
    'Windows version 10.0.17763.5936, kubelet v1.32.4, containerd 1.7.20, pause registry.k8s.io/pause:3.6',
    'IPv4 Address. . . . . . . . . . . : 10.244.1.5(Preferred)',
    '    Subnet Mask . . . . . . . . . . . : 255.255.255.0',
    '"ManagementIP":  "10.0.0.4",',
    'sha256:6a3fd8e2c1b4f5a6978d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d',
    '--kubeconfig=C:\\k\\config --hostname-override=win-node-1 --cert-dir=C:\\var\\lib\\kubelet\\pki',
    'Basic authentication is disabled; using Bearer tokens',
    'password: ""',
    'password: ${DB_PASSWORD}',
    '--password-file=/etc/secret/pw',
  ];
  for (const line of keep) {
    it(`keeps: ${line.slice(0, 60)}`, () => {
      const r = redactText(line, std);
      expect(r.text).toBe(line);
      expect(r.findings).toEqual([]);
    });
  }
});

describe('strict pseudonyms', () => {
  const table = () => {
    const rand = prng(42);
    return new PseudonymTable(() => Math.floor(rand() * 2 ** 32));
  };

  it('maps the same address the same way in every file and keeps subnets together', () => {
    const t = table();
    const a = redactText('node 10.244.1.5 gateway 10.244.1.1 cidr 10.244.1.0/24 other 192.168.7.9', { level: 'strict', pseudonyms: t }).text;
    const b = redactText('again 10.244.1.5', { level: 'strict', pseudonyms: t }).text;
    const ips = a.match(/\d+\.\d+\.\d+\.\d+(?:\/\d+)?/g)!;
    expect(ips).toHaveLength(4);
    expect(a).not.toContain('10.244.1.5');
    expect(a).not.toContain('192.168.7.9');
    expect(b).toContain(ips[0]!);
    // Prefix preservation: the host and the gateway share the /24 of the pseudonymized CIDR.
    const cidr = ips[2]!;
    expect(cidr.endsWith('.0/24')).toBe(true);
    const net = cidr.split('.').slice(0, 3).join('.');
    expect(ips[0]!.startsWith(net + '.')).toBe(true);
    expect(ips[1]!.startsWith(net + '.')).toBe(true);
  });

  it('keeps the well-known range: private stays private, link-local stays link-local', () => {
    const t = table();
    const out = redactText('a 10.244.1.5 b 192.168.7.9 c 172.20.1.1 d 127.0.10.11 e fe80::1c2b:3d4e:5f60:7a8b f 8.8.8.8', {
      level: 'strict',
      pseudonyms: t,
    }).text;
    expect(out).toMatch(/a 10\.\d+\.\d+\.\d+ /);
    expect(out).toMatch(/b 192\.168\.\d+\.\d+ /);
    expect(out).toMatch(/c 172\.(1[6-9]|2\d|3[01])\.\d+\.\d+ /);
    expect(out).toMatch(/d 127\.\d+\.\d+\.\d+ /);
    expect(out).toMatch(/e fe[89ab][0-9a-f]:/);
    expect(out).not.toContain('10.244.1.5');
    expect(out).not.toContain('127.0.10.11');
  });

  it('keeps netmasks, 0.0.0.0, 127.0.0.1 and Windows versions readable', () => {
    const t = table();
    const text = 'mask 255.255.240.0 any 0.0.0.0 lo 127.0.0.1 build 10.0.17763.5936 v1.2.3.4';
    expect(redactText(text, { level: 'strict', pseudonyms: t }).text).toBe(text);
  });

  it('pseudonymizes IPv6 and MAC addresses, keeping the MAC vendor part', () => {
    const t = table();
    const r = redactText('addr fe80::1c2b:3d4e:5f60:7a8b%12 mac 00-15-5D-AA-BB-CC and 00:15:5d:aa:bb:cc at 12:30:45', { level: 'strict', pseudonyms: t });
    expect(r.text).not.toContain('fe80::1c2b:3d4e:5f60:7a8b');
    expect(r.text).toContain('%12');
    expect(r.text).toMatch(/00-15-5D-[0-9A-F]{2}-[0-9A-F]{2}-[0-9A-F]{2}/);
    expect(r.text).not.toContain('AA-BB-CC');
    expect(r.text).toContain('12:30:45');
    // Same MAC in two notations -> same tail.
    const dash = /00-15-5D-([0-9A-F-]{8})/.exec(r.text)![1]!;
    const colon = /00:15:5d:([0-9a-f:]{8})/.exec(r.text)![1]!;
    expect(colon.toUpperCase().replace(/:/g, '-')).toBe(dash);
    expect(r.counts.ipv6).toBe(1);
    expect(r.counts.mac).toBe(2);
  });

  it('learns host names from ipconfig and kubelet flags and replaces them case-insensitively', () => {
    const t = table();
    t.learnHost('win-node-1');
    const a = redactText('   Host Name . . . . . . . . . . . . : WINBUILD7\r\n   Primary Dns Suffix  . . . . . . . : corp.contoso.com\r\n', {
      level: 'strict',
      pseudonyms: t,
    }).text;
    expect(a).not.toMatch(/WINBUILD7|contoso/i);
    const b = redactText('kubelet --hostname-override=win-node-1 on WIN-NODE-1.corp.contoso.com and winbuild7', { level: 'strict', pseudonyms: t }).text;
    expect(b).not.toMatch(/win-node-1|winbuild7|contoso/i);
    expect(b).toMatch(/host-\d+/);
    expect(b).toMatch(/domain-1\.example/i);
    expect(t.entries().length).toBeGreaterThan(0);
  });

  it('never learns public domains or common words', () => {
    const t = table();
    t.learnHost('windows');
    t.learnHost('registry.k8s.io');
    t.learnDomain('cluster.local');
    expect(t.hostCount).toBe(0);
  });

  it('does nothing with pseudonyms in standard mode', () => {
    const text = 'node 10.244.1.5 mac 00-15-5D-AA-BB-CC';
    expect(redactText(text, { level: 'standard', pseudonyms: table() }).text).toBe(text);
  });
});

describe('bytes, JSON values and streams', () => {
  it('keeps UTF-16LE files UTF-16LE (with BOM) and removes the secret', () => {
    const secret = 'ghp_' + 'Q'.repeat(18) + 'w'.repeat(18);
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`Status: Running\r\ntoken ${secret}\r\n`, 'utf16le')]);
    const r = redactBytes(bytes, std);
    expect(r.encoding).toBe('utf16le-bom');
    const out = Buffer.from(r.bytes);
    expect(out[0]).toBe(0xff);
    expect(out.subarray(2).toString('utf16le')).toContain('Status: Running');
    expect(out.includes(Buffer.from(secret, 'utf16le'))).toBe(false);
    expect(r.counts['github-token']).toBe(1);
  });

  it('round-trips UTF-8 and binary bytes exactly outside the spans', () => {
    const bytes = Buffer.concat([Buffer.from('héllo wörld ✓\n', 'utf8'), Buffer.from([0, 1, 2, 255, 254])]);
    expect(Buffer.from(redactBytes(bytes, std).bytes).equals(bytes)).toBe(true);
  });

  it('redacts Secret objects and annotations in JSON values', () => {
    const list = {
      kind: 'List',
      items: [
        {
          kind: 'Secret',
          metadata: { name: 's', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}', other: 'keep' } },
          data: { a: 'aGVsbG8=' },
          stringData: { b: 'xyz' },
        },
        { kind: 'ConfigMap', data: { a: 'keep-me' } },
      ],
    };
    const { value, counts } = redactJsonValue(list, std);
    const text = JSON.stringify(value);
    expect(text).toContain('[REDACTED:secret-data len=5]');
    expect(text).toContain('[REDACTED:secret-data len=3]');
    expect(text).toContain('[REDACTED:last-applied-configuration len=7]');
    expect(text).toContain('keep-me');
    expect(counts['secret-data']).toBe(2);
  });

  it('streams in small chunks: every canary is gone and the counts match one call over the whole text', () => {
    const canaries = makeCanaries(9);
    const text = canaries.map((c) => c.text).join('\nI0612 filler line between canaries\n') + '\n';
    const whole = redactText(text, std);
    const rand = prng(5);
    for (const size of [97, 1000, 65536]) {
      const stream = new StreamRedactor(std);
      let out = '';
      for (let i = 0; i < text.length;) {
        const n = Math.max(1, Math.floor(rand() * size));
        out += stream.push(text.slice(i, i + n));
        i += n;
      }
      out += stream.end();
      assertGone(
        Buffer.from(out, 'latin1'),
        canaries.flatMap((c) => c.needles),
        `chunks<${size}`,
      );
      expect(totalCount(stream.counts)).toBe(totalCount(whole.counts));
      expect(stream.findings.map((f) => f.line)).toEqual(whole.findings.map((f) => f.line));
    }
  });

  it('findSecrets is empty on its own output (idempotent)', () => {
    for (const c of makeCanaries(3)) {
      const once = redactText(c.text, std).text;
      expect(findSecrets(once), c.id).toEqual([]);
      expect(redactText(once, std).text).toBe(once);
    }
  });
});
