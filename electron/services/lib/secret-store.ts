import crypto from 'node:crypto';
import { WindeckError } from '../../../shared/contract/errors';

/**
 * Where secrets (SSH passphrases, passwords) are sealed before the store sees them. The desktop app supplies
 * one backed by Electron safeStorage; the web host and CLI one keyed from the environment, or none.
 */
export interface SecretStore {
  readonly kind: string;
  encrypt(plain: string): Buffer;
  /** Throws AUTH_FAILED ("please re-enter") when the blob cannot be opened with this key. */
  decrypt(blob: Buffer): string;
}

/** AES-256-GCM with a key from WINDECK_SECRET_KEY (64 hex chars or any passphrase, stretched with scrypt). */
export class KeyedSecretStore implements SecretStore {
  readonly kind = 'env-key';
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = /^[0-9a-f]{64}$/i.test(secret) ? Buffer.from(secret, 'hex') : crypto.scryptSync(secret, 'windeck-secret-store-v1', 32);
  }

  encrypt(plain: string): Buffer {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]);
  }

  decrypt(blob: Buffer): string {
    try {
      if (blob[0] !== 1) throw new Error('unknown secret format');
      const iv = blob.subarray(1, 13);
      const tag = blob.subarray(13, 29);
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(blob.subarray(29)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new WindeckError('AUTH_FAILED', 'A stored credential could not be opened with the current key; please enter it again.', undefined, { cause: error });
    }
  }
}

/** The secret store for headless hosts: keyed from WINDECK_SECRET_KEY, or none (secrets asked per run). */
export function secretStoreFromEnv(env: NodeJS.ProcessEnv = process.env): SecretStore | null {
  const key = env.WINDECK_SECRET_KEY;
  return key && key.length >= 16 ? new KeyedSecretStore(key) : null;
}
