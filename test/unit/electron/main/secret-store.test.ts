import { describe, expect, it } from 'vitest';
import { SafeStorageSecretStore, type SafeStoragePort } from '../../../../electron/main/secret-store';
import { KeyedSecretStore } from '../../../../electron/services/lib/secret-store';
import { isWindeckError } from '../../../../shared/contract/errors';

/**
 * A stand-in for Electron's safeStorage with a real cipher per "keychain": a blob sealed by one keychain does not
 * open with another (a reset keychain, another machine), like the real thing.
 */
class FakeSafeStorage implements SafeStoragePort {
  available = true;
  plainTextForced = false;
  private cipher: KeyedSecretStore;
  constructor(
    public backend: string = 'gnome_libsecret',
    keychainSecret = 'keychain-one-0123456789',
  ) {
    this.cipher = new KeyedSecretStore(keychainSecret);
  }
  resetKeychain(): void {
    this.cipher = new KeyedSecretStore('a-new-keychain-9876543210');
  }
  isEncryptionAvailable(): boolean {
    return this.available || this.plainTextForced;
  }
  encryptString(plain: string): Buffer {
    if (!this.isEncryptionAvailable()) throw new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.');
    return this.cipher.encrypt(plain);
  }
  decryptString(blob: Buffer): string {
    if (!this.isEncryptionAvailable())
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString. Decryption is not available.');
    try {
      return this.cipher.decrypt(blob);
    } catch {
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    }
  }
  getSelectedStorageBackend(): string {
    return this.backend;
  }
  setUsePlainTextEncryption(usePlainText: boolean): void {
    this.plainTextForced = usePlainText;
  }
}

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (!isWindeckError(error)) throw error;
    return error.code;
  }
}

describe('SafeStorageSecretStore', () => {
  it('seals and opens a secret, and the blob does not contain it', () => {
    const store = new SafeStorageSecretStore(new FakeSafeStorage(), { platform: 'linux' });
    const blob = store.encrypt('hunter2-passphrase');
    expect(blob.toString('latin1')).not.toContain('hunter2');
    expect(store.decrypt(blob)).toBe('hunter2-passphrase');
    expect(store.kind).toBe('safe-storage:gnome_libsecret');
    expect(store.unavailableReason()).toBeNull();
  });

  it('names the OS mechanism on Windows and macOS', () => {
    expect(new SafeStorageSecretStore(new FakeSafeStorage('unknown'), { platform: 'win32' }).kind).toBe('safe-storage:dpapi');
    expect(new SafeStorageSecretStore(new FakeSafeStorage('unknown'), { platform: 'darwin' }).kind).toBe('safe-storage:keychain');
  });

  it('refuses the Linux basic_text backend unless the user opted in', () => {
    const safe = new FakeSafeStorage('basic_text');
    let optedIn = false;
    const store = new SafeStorageSecretStore(safe, { platform: 'linux', allowPlaintextBackend: () => optedIn });
    expect(codeOf(() => store.encrypt('hunter2'))).toBe('UNSUPPORTED');
    expect(store.unavailableReason()).toMatch(/basic_text.*WINDECK_ALLOW_PLAINTEXT_SECRETS=1/s);
    optedIn = true;
    expect(store.unavailableReason()).toBeNull();
    const blob = store.encrypt('hunter2');
    expect(store.decrypt(blob)).toBe('hunter2');
  });

  it('with the opt-in, turns on Chromium plaintext mode when basic_text reports no encryption', () => {
    const safe = new FakeSafeStorage('basic_text');
    safe.available = false;
    const store = new SafeStorageSecretStore(safe, { platform: 'linux', allowPlaintextBackend: () => true });
    const blob = store.encrypt('hunter2');
    expect(safe.plainTextForced).toBe(true);
    expect(store.decrypt(blob)).toBe('hunter2');
  });

  it('basic_text is only a Linux matter', () => {
    const store = new SafeStorageSecretStore(new FakeSafeStorage('basic_text'), { platform: 'win32' });
    expect(store.decrypt(store.encrypt('x'))).toBe('x');
  });

  it('refuses to seal when no keychain is available, or before the app is ready', () => {
    const safe = new FakeSafeStorage('kwallet5');
    safe.available = false;
    expect(codeOf(() => new SafeStorageSecretStore(safe, { platform: 'darwin' }).encrypt('x'))).toBe('UNSUPPORTED');
    expect(codeOf(() => new SafeStorageSecretStore(new FakeSafeStorage('unknown'), { platform: 'linux' }).encrypt('x'))).toBe('UNSUPPORTED');
  });

  it('a lost keychain means AUTH_FAILED "please re-enter", never a crash', () => {
    const safe = new FakeSafeStorage();
    const store = new SafeStorageSecretStore(safe, { platform: 'linux' });
    const blob = store.encrypt('hunter2');
    safe.resetKeychain();
    let caught: unknown;
    try {
      store.decrypt(blob);
    } catch (error) {
      caught = error;
    }
    expect(isWindeckError(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'AUTH_FAILED', message: expect.stringMatching(/enter it again/) });
    expect(String((caught as Error).message)).not.toContain('hunter2');
    safe.available = false;
    expect(codeOf(() => store.decrypt(blob))).toBe('AUTH_FAILED');
  });

  it('a blob that is not ours (other store, truncated, garbage) is AUTH_FAILED', () => {
    const store = new SafeStorageSecretStore(new FakeSafeStorage(), { platform: 'linux' });
    const foreign = new KeyedSecretStore('some-other-key-0123456789').encrypt('x');
    for (const blob of [foreign, Buffer.alloc(0), Buffer.from('WSS'), Buffer.from([0x57, 0x53, 0x53, 0x01]), Buffer.from('garbage garbage garbage')]) {
      expect(codeOf(() => store.decrypt(blob))).toBe('AUTH_FAILED');
    }
    const sealed = store.encrypt('x');
    expect(codeOf(() => store.decrypt(sealed.subarray(0, sealed.length - 3)))).toBe('AUTH_FAILED');
  });

  it('a keychain that throws while sealing is UNSUPPORTED, not a crash', () => {
    const safe = new FakeSafeStorage();
    safe.encryptString = () => {
      throw new Error('keychain locked');
    };
    expect(codeOf(() => new SafeStorageSecretStore(safe, { platform: 'darwin' }).encrypt('x'))).toBe('UNSUPPORTED');
  });
});
