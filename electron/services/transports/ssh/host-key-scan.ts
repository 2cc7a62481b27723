import { WindeckError } from '../../../../shared/contract/errors';
import { SSH_KEEPALIVE_COUNT_MAX, SSH_KEEPALIVE_INTERVAL_MS } from '../../../../shared/domain/limits';
import { openSshConnection, type HostKeyVerifier } from './connect';
import { keyTypeOfBlob, sha256Fingerprint } from './known-hosts';

/**
 * What host key an SSH server presents (like `ssh-keyscan`): the connection stops in the key exchange, before
 * any authentication, so no user name or credential is ever sent. A server with several host keys presents the
 * one of the type asked for first; `findHostKey` asks for each type in turn until one has the wanted fingerprint.
 */

export interface ScannedHostKey {
  keyType: string;
  keyBase64: string;
  fingerprint: string;
}

const KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'];

export async function scanHostKey(
  host: string,
  port: number,
  options: { timeoutMs: number; signal?: AbortSignal; preferType?: string; node?: string },
): Promise<ScannedHostKey> {
  let seen: Buffer | null = null;
  const verifier: HostKeyVerifier = {
    knownKeyTypes: () => (options.preferType ? [options.preferType] : []),
    check: (_host, _port, key) => {
      seen = key;
      return { ok: false, code: 'HOST_KEY_UNKNOWN', fingerprint: sha256Fingerprint(key), message: 'host key scan: stopped after the key exchange' };
    },
  };
  try {
    const c = await openSshConnection(
      { node: options.node ?? host, host, port, auth: { username: 'windeck-host-key-scan' } },
      {
        verifier,
        connectTimeoutMs: options.timeoutMs,
        keepaliveIntervalMs: SSH_KEEPALIVE_INTERVAL_MS,
        keepaliveCountMax: SSH_KEEPALIVE_COUNT_MAX,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    c.close();
  } catch (error) {
    if (!seen) throw error;
  }
  if (!seen) throw new WindeckError('UNREACHABLE', `${host}:${port} presented no host key.`, { step: 'host-key' });
  const blob: Buffer = seen;
  return { keyType: keyTypeOfBlob(blob), keyBase64: blob.toString('base64'), fingerprint: sha256Fingerprint(blob) };
}

/** The host key of host:port whose fingerprint is `fingerprint`; VALIDATION (naming what was presented) when none. */
export async function findHostKey(
  host: string,
  port: number,
  fingerprint: string,
  options: { timeoutMs: number; signal?: AbortSignal; node?: string },
): Promise<ScannedHostKey> {
  const presented: string[] = [];
  for (const type of KEY_TYPES) {
    const key = await scanHostKey(host, port, { ...options, preferType: type });
    if (key.fingerprint === fingerprint) return key;
    if (!presented.includes(`${key.keyType} ${key.fingerprint}`)) presented.push(`${key.keyType} ${key.fingerprint}`);
  }
  throw new WindeckError(
    'VALIDATION',
    `${host}:${port} does not present the host key ${fingerprint}; it presents ${presented.join(', ')}. Nothing was accepted.`,
    { step: 'host-key' },
  );
}
