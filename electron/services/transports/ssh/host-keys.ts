import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HostKeysRepo } from '../../store/repos/host-keys';
import type { HostKeyCheck, HostKeyVerifier } from './connect';
import { decideHostKey, hostFieldMatches, keyTypeOfBlob, knownHostsName, parseKnownHosts, sha256Fingerprint, type KnownHostEntry } from './known-hosts';

/**
 * Host key pinning (DESIGN.md section 4): a presented key is trusted when a known_hosts file (read-only; the
 * user's own files are never written) or Windeck's store holds it. An unknown key is refused until the user
 * accepts it by its `SHA256:` fingerprint; a key that differs from a trusted one of the same type (or is
 * `@revoked`) is always refused. Acceptance is only ever of the exact fingerprint shown.
 */

export interface PinningVerifierOptions {
  /** Parsed known_hosts entries (see `readKnownHostsFiles`). */
  knownHosts?: KnownHostEntry[];
  /** Keys accepted in Windeck. */
  store?: HostKeysRepo | null;
  /** Fingerprints the user accepted for this run (`--accept-host-key SHA256:...`), per `host:port` or for any host. */
  accept?: Array<{ host?: string; port?: number; fingerprint: string; clusterId?: string | null; node?: string | null }>;
  /** Who the accepted key belongs to, for the store row. */
  owner?: { clusterId: string | null; node: string | null };
  now?: () => number;
}

/** Default known_hosts files of the current user: ~/.ssh/known_hosts and known_hosts2. */
export function defaultKnownHostsFiles(home: string = os.homedir()): string[] {
  return [path.join(home, '.ssh', 'known_hosts'), path.join(home, '.ssh', 'known_hosts2')];
}

/** Read and parse known_hosts files; missing files are skipped. */
export async function readKnownHostsFiles(files: readonly string[]): Promise<KnownHostEntry[]> {
  const out: KnownHostEntry[] = [];
  for (const f of files) {
    try {
      out.push(...parseKnownHosts(await fs.readFile(f, 'utf8'), f));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return out;
}

export class PinningVerifier implements HostKeyVerifier {
  private readonly knownHosts: KnownHostEntry[];
  private readonly store: HostKeysRepo | null;
  private readonly accepted: Array<{ host?: string; port?: number; fingerprint: string; clusterId?: string | null; node?: string | null }>;
  private readonly now: () => number;
  /** Fingerprints seen, per host:port (what an UNKNOWN error offered). */
  readonly seen = new Map<string, string>();

  constructor(private readonly options: PinningVerifierOptions = {}) {
    this.knownHosts = options.knownHosts ?? [];
    this.store = options.store ?? null;
    this.accepted = [...(options.accept ?? [])];
    this.now = options.now ?? Date.now;
  }

  /** Add known_hosts entries (read after construction). */
  addKnownHosts(entries: readonly KnownHostEntry[]): void {
    this.knownHosts.push(...entries);
  }

  /** Accept an unknown key if, and only if, it has exactly this fingerprint (optionally only for host:port). */
  accept(fingerprint: string, where: { host?: string; port?: number; clusterId?: string | null; node?: string | null } = {}): void {
    this.accepted.push({ fingerprint: fingerprint.trim(), ...where });
  }

  private storeEntries(host: string, port: number): KnownHostEntry[] {
    if (!this.store) return [];
    const name = knownHostsName(host, port);
    return this.store.list(host, port).map((k, i) => ({ marker: null, hosts: name, keyType: k.keyType, keyBase64: k.keyBase64, comment: `accepted ${new Date(k.acceptedAt).toISOString()}`, line: i + 1, source: 'windeck store' }));
  }

  knownKeyTypes(host: string, port: number, hostKeyAlias?: string): string[] {
    const lookup = hostKeyAlias ?? host;
    const lookupPort = hostKeyAlias ? 22 : port;
    const name = knownHostsName(lookup, lookupPort);
    const fromFiles = this.knownHosts.filter((e) => e.marker === null && hostFieldMatches(e.hosts, name)).map((e) => e.keyType);
    return [...new Set([...this.storeEntries(lookup, lookupPort).map((e) => e.keyType), ...fromFiles])];
  }

  check(host: string, port: number, keyBlob: Buffer, hostKeyAlias?: string): HostKeyCheck {
    const lookup = hostKeyAlias ?? host;
    const lookupPort = hostKeyAlias ? 22 : port;
    const fingerprint = sha256Fingerprint(keyBlob);
    const keyType = keyTypeOfBlob(keyBlob);
    const at = `${host}:${port}`;
    this.seen.set(at, fingerprint);
    const decision = decideHostKey([...this.storeEntries(lookup, lookupPort), ...this.knownHosts], lookup, lookupPort, keyBlob);
    switch (decision.kind) {
      case 'trusted':
        return { ok: true, fingerprint };
      case 'revoked':
        return {
          ok: false,
          code: 'HOST_KEY_CHANGED',
          fingerprint,
          message: `${at} presented host key ${fingerprint}, which is marked @revoked in ${decision.entry.source} line ${decision.entry.line}. Windeck refused to connect and sent nothing.`,
        };
      case 'changed': {
        const was = decision.expected.map((e) => `${sha256Fingerprint(Buffer.from(e.keyBase64, 'base64'))} (${e.source}${e.source === 'windeck store' ? '' : ` line ${e.line}`})`).join(', ');
        return {
          ok: false,
          code: 'HOST_KEY_CHANGED',
          fingerprint,
          message: `The ${keyType} host key of ${at} CHANGED: it now presents ${fingerprint}, but ${was} is trusted. Windeck refused to connect and sent nothing (no login, no command). If the node was reinstalled, verify the new key on its console and remove the old one.`,
        };
      }
      case 'unknown': {
        const accepted = this.accepted.find((a) => a.fingerprint === fingerprint && (a.host === undefined || a.host.toLowerCase() === host.toLowerCase()) && (a.port === undefined || a.port === port));
        if (accepted) {
          this.store?.put({
            host: lookup,
            port: lookupPort,
            keyType,
            keyBase64: keyBlob.toString('base64'),
            fingerprint,
            clusterId: accepted.clusterId ?? this.options.owner?.clusterId ?? null,
            node: accepted.node ?? this.options.owner?.node ?? null,
            source: 'accepted',
            acceptedAt: this.now(),
          });
          return { ok: true, fingerprint };
        }
        const offered = this.accepted.length > 0 ? ` (the fingerprint you accepted, ${this.accepted.map((a) => a.fingerprint).join(', ')}, does not match)` : '';
        return {
          ok: false,
          code: 'HOST_KEY_UNKNOWN',
          fingerprint,
          message: `${at} presented an unknown ${keyType} host key ${fingerprint}${offered}. Windeck refused to connect and sent nothing. Check the fingerprint on the node (ssh-keygen -lf C:\\ProgramData\\ssh\\ssh_host_${keyType.replace(/^ssh-/, '').replace(/-.*/, '')}_key.pub) and accept it with --accept-host-key ${fingerprint}.`,
        };
      }
    }
  }
}
