import {
  CredentialName,
  type AccessOutcome,
  type CredentialInfo,
  type CredentialKind,
  type CredentialScope,
  type EndpointInfo,
} from '../../../shared/contract/methods/access';

export type AccessTransport = 'ssh' | 'winrm';
export const ACCESS_TRANSPORTS: readonly AccessTransport[] = ['ssh', 'winrm'];

export const TRANSPORT_LABEL: Record<AccessTransport, string> = { ssh: 'SSH', winrm: 'WinRM' };

/** How each capability-check outcome is shown: a word, a tone (badge colour) and an icon (never colour alone). */
export const OUTCOME_VIEW: Record<AccessOutcome, { label: string; tone: 'ok' | 'warn' | 'danger' | 'unknown'; icon: string }> = {
  works: { label: 'Works', tone: 'ok', icon: '✓' },
  refused: { label: 'Refused', tone: 'warn', icon: '✕' },
  unreachable: { label: 'Unreachable', tone: 'warn', icon: '✕' },
  auth: { label: 'Sign-in failed', tone: 'warn', icon: '✕' },
  'host-key-unknown': { label: 'Host key unknown', tone: 'warn', icon: '?' },
  'host-key-changed': { label: 'Host key changed', tone: 'danger', icon: '!' },
  timeout: { label: 'Timed out', tone: 'warn', icon: '⧗' },
  'not-configured': { label: 'Not configured', tone: 'unknown', icon: '–' },
  error: { label: 'Error', tone: 'danger', icon: '!' },
};

/** The next step for an outcome that does not work (one sentence; the backend's reason says what happened). */
export function outcomeAdvice(outcome: AccessOutcome, transport: AccessTransport): string | null {
  switch (outcome) {
    case 'works':
      return null;
    case 'refused':
      return transport === 'ssh'
        ? 'Nothing listens on that port: start the OpenSSH Server service (sshd) on the node, or set the right endpoint below.'
        : 'Nothing listens on that port: enable the WinRM listener on the node (winrm quickconfig), or set the right endpoint below.';
    case 'unreachable':
      return 'The address cannot be reached from this machine: check the address, routing and firewall, or set the right endpoint below.';
    case 'auth':
      return 'The node refused the sign-in, or no usable secret is stored: check the credential on the Credentials screen.';
    case 'host-key-unknown':
      return 'Compare this fingerprint with the one on the node (ssh-keygen -lf C:\\ProgramData\\ssh\\ssh_host_ed25519_key.pub, at its console) before accepting it.';
    case 'host-key-changed':
      return 'Do not connect until you know why the key changed (a reinstalled node, or someone in between). Verify the new fingerprint at the node’s console, then forget the old key under “Known host keys” and accept the new one.';
    case 'timeout':
      return 'No answer in time: the node may be down, or a firewall drops the packets. Retry, or check the address.';
    case 'not-configured':
      return transport === 'ssh'
        ? 'Add an SSH credential on the Credentials screen (or an endpoint below, if the address is wrong).'
        : 'Set a WinRM endpoint below and add a WinRM credential on the Credentials screen.';
    case 'error':
      return 'The check failed for another reason; the message says which.';
  }
}

export const KIND_LABEL: Record<CredentialKind, string> = {
  'ssh-key': 'SSH key',
  'ssh-password': 'SSH password',
  'ssh-agent': 'SSH agent',
  'winrm-ntlm': 'WinRM NTLM',
  'winrm-basic-https': 'WinRM Basic (HTTPS only)',
};

export function kindTransport(kind: CredentialKind): AccessTransport {
  return kind.startsWith('ssh') ? 'ssh' : 'winrm';
}

/** `cluster`, `node group win-*`, `node win-1`; plus "every cluster" when it is not bound to one. */
export function scopeText(c: Pick<CredentialInfo, 'scope' | 'selector' | 'clusterId'>): string {
  const base = c.scope === 'cluster' ? 'Cluster-wide' : c.scope === 'node-group' ? `Node group ${c.selector ?? '?'}` : `Node ${c.selector ?? '?'}`;
  return c.clusterId === null ? `${base} (every cluster)` : base;
}

export const SCOPE_LABEL: Record<CredentialScope, string> = { cluster: 'Cluster-wide', 'node-group': 'Node group', node: 'One node' };

export function sourceText(source: string): string {
  switch (source) {
    case 'override':
      return 'Override set in Windeck';
    case 'demo':
      return 'Registered by the demo';
    case 'derived':
      return 'Derived from the inventory';
    default:
      return source;
  }
}

/**
 * The credential Windeck uses for a transport: the one the endpoint names, else the first that applies (the backend
 * lists them most specific first). Null when none applies.
 */
export function credentialFor(transport: AccessTransport, endpoint: EndpointInfo | undefined, applying: readonly CredentialInfo[]): CredentialInfo | null {
  if (endpoint?.credential) {
    const named = applying.find((c) => c.name === endpoint.credential);
    if (named) return named;
  }
  return applying.find((c) => kindTransport(c.kind) === transport) ?? null;
}

/** Parse a port field: empty is "default", otherwise 1-65535. */
export function parsePort(text: string): { ok: true; port: number | undefined } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '') return { ok: true, port: undefined };
  if (!/^\d{1,5}$/.test(t) || Number(t) < 1 || Number(t) > 65535) return { ok: false, message: 'The port is a number from 1 to 65535.' };
  return { ok: true, port: Number(t) };
}

/**
 * True when the contract accepts this credential name (credentials:remove, endpoints:set). Credentials written
 * straight to the store by older versions (the demo once wrote "demo win-1 (ssh key)") may have names it refuses.
 */
export function addressableName(name: string): boolean {
  return CredentialName.safeParse(name).success;
}

/** A WinRM endpoint is HTTPS when its options say so or its URL is https://. */
export function winrmHttps(e: Pick<EndpointInfo, 'options' | 'url'>): boolean {
  return e.options.https === true || (e.url?.startsWith('https://') ?? false);
}
