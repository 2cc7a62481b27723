import { WindeckError } from '../../shared/contract/errors';
import type { SecretStore } from '../services/lib/secret-store';

/**
 * The desktop app's SecretStore (port in electron/services/lib/secret-store.ts), backed by Electron `safeStorage`
 * (DPAPI on Windows, Keychain on macOS, libsecret/kwallet on Linux). Sealed blobs go to the store; the plaintext
 * never does.
 *
 * - On Linux without a keyring Chromium falls back to `basic_text`, which encrypts with a fixed, public key: in
 *   effect plaintext. We refuse to store secrets there (UNSUPPORTED, saying how to opt in) unless the user opted in.
 * - A blob that cannot be opened (keychain reset, profile copied to another machine, another user) is AUTH_FAILED
 *   "please re-enter", never a crash.
 *
 * safeStorage sits behind the small port below so this is tested under Node. The port is synchronous because the
 * SecretStore port is; Electron 45 marks the sync calls deprecated in favour of the async ones, which still work.
 */
export interface SafeStoragePort {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(blob: Buffer): string;
  /** Linux only (Electron defines it everywhere but answers only on Linux). */
  getSelectedStorageBackend?(): string;
  setUsePlainTextEncryption?(usePlainText: boolean): void;
}

export interface SafeStorageSecretStoreOptions {
  platform?: NodeJS.Platform;
  /** The user's opt-in to the Linux `basic_text` backend; read on every use, so a settings change applies at once. */
  allowPlaintextBackend?: () => boolean;
}

/** Environment opt-in for the Linux plaintext backend. */
export const ALLOW_PLAINTEXT_ENV = 'WINDECK_ALLOW_PLAINTEXT_SECRETS';

/** Blob prefix: "WSS" + format version, so a blob from another store (or garbage) is recognised, not misread. */
const MAGIC = Buffer.from([0x57, 0x53, 0x53, 0x01]);

const REENTER =
  "A stored credential could not be unlocked with this computer's keychain (it was reset, or the data came from another machine or user); please enter it again.";

export class SafeStorageSecretStore implements SecretStore {
  private readonly platform: NodeJS.Platform;
  private readonly allowPlaintextBackend: () => boolean;

  constructor(
    private readonly safeStorage: SafeStoragePort,
    options: SafeStorageSecretStoreOptions = {},
  ) {
    this.platform = options.platform ?? process.platform;
    this.allowPlaintextBackend = options.allowPlaintextBackend ?? (() => false);
  }

  /** `safe-storage:<backend>`: dpapi, keychain, or the Linux backend Chromium chose. */
  get kind(): string {
    if (this.platform === 'win32') return 'safe-storage:dpapi';
    if (this.platform === 'darwin') return 'safe-storage:keychain';
    return `safe-storage:${this.backend()}`;
  }

  private backend(): string {
    if (this.platform !== 'linux') return this.platform === 'win32' ? 'dpapi' : 'keychain';
    try {
      return this.safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
    } catch {
      return 'unknown';
    }
  }

  /**
   * Null when secrets may be sealed now, else why not (one sentence for the user). Exposed so the UI can say
   * up front that credentials will be used for this session only.
   */
  unavailableReason(): string | null {
    const backend = this.backend();
    if (this.platform === 'linux' && backend === 'basic_text') {
      if (!this.allowPlaintextBackend()) {
        return `No system keyring is available (Linux "basic_text" backend), so credentials would be stored in effect unencrypted; Windeck will not store them. Use them for this session only, install/unlock a keyring (GNOME Keyring, KWallet), or set ${ALLOW_PLAINTEXT_ENV}=1 to accept plaintext storage.`;
      }
      return null;
    }
    if (this.platform === 'linux' && backend === 'unknown') return 'The system keyring is not ready yet; credentials cannot be stored right now.';
    let available = false;
    try {
      available = this.safeStorage.isEncryptionAvailable();
    } catch {
      available = false;
    }
    return available ? null : 'The system keychain is not available, so Windeck cannot store credentials; use them for this session only.';
  }

  encrypt(plain: string): Buffer {
    const reason = this.unavailableReason();
    if (reason) throw new WindeckError('UNSUPPORTED', reason);
    if (this.platform === 'linux' && this.backend() === 'basic_text' && !this.safeStorage.isEncryptionAvailable()) {
      // The user opted in: let Chromium use its fixed in-memory key rather than fail.
      this.safeStorage.setUsePlainTextEncryption?.(true);
    }
    let sealed: Buffer;
    try {
      sealed = this.safeStorage.encryptString(plain);
    } catch (error) {
      throw new WindeckError('UNSUPPORTED', 'The system keychain refused to encrypt the credential; it was not stored.', undefined, { cause: error });
    }
    return Buffer.concat([MAGIC, sealed]);
  }

  decrypt(blob: Buffer): string {
    if (!Buffer.isBuffer(blob) || blob.length <= MAGIC.length || !blob.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new WindeckError('AUTH_FAILED', REENTER);
    }
    try {
      return this.safeStorage.decryptString(blob.subarray(MAGIC.length));
    } catch (error) {
      throw new WindeckError('AUTH_FAILED', REENTER, undefined, { cause: error });
    }
  }
}
