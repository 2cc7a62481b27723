import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PinningVerifier } from '../../../electron/services/transports/ssh/host-keys';
import { SshTransport } from '../../../electron/services/transports/ssh/exec';
import { knownHostsName, parseKnownHosts } from '../../../electron/services/transports/ssh/known-hosts';
import { SshPool } from '../../../electron/services/transports/ssh/pool';
import { generateKeyPair } from '../../../electron/sim/windows-node/ssh-server';
import { sftpFileNode } from '../../helpers/sftp-file-node';

/**
 * A download from a node whose sftp-server answers at most 64 KiB per READ and does not offer
 * `limits@openssh.com` (Windows Server 2019's OpenSSH 7.7), through the real ssh2 client: ssh2 believes such a
 * server answers 256 KiB - 2 KiB, so the first READs come back short; the READ size must adapt to 64 KiB (no
 * re-ask per READ after that) and the bytes arrive in order.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CAP = 64 * 1024;

async function windows2019Node(file: Buffer) {
  const reads: Array<{ position: number; asked: number; answered: number }> = [];
  const sftpNode = await sftpFileNode({
    sftpPath: '/C:/k/big.log',
    ident: 'OpenSSH_for_Windows_7.7',
    hostKeyName: 'windeck-sftp-cap-host',
    onRead: (sftp, reqid, offset, length, STATUS) => {
      if (offset >= file.length) {
        reads.push({ position: offset, asked: length, answered: 0 });
        return sftp.status(reqid, STATUS.EOF);
      }
      const n = Math.min(length, CAP, file.length - offset);
      reads.push({ position: offset, asked: length, answered: n });
      sftp.data(reqid, file.subarray(offset, offset + n));
    },
  });
  cleanups.push(sftpNode.close);
  return { port: sftpNode.port, hostKeyPublic: sftpNode.hostKeyPublic, reads };
}

describe('SFTP download from a server that caps READs at 64 KiB', () => {
  it('adapts the READ size to the cap and delivers the file in order', async () => {
    const file = crypto.randomBytes(5 * 1024 * 1024 + 777);
    const node = await windows2019Node(file);
    const pool = new SshPool({
      verifier: new PinningVerifier({ knownHosts: parseKnownHosts(`${knownHostsName('127.0.0.1', node.port)} ${node.hostKeyPublic}\n`, 'cap-known-hosts') }),
    });
    cleanups.push(() => pool.dispose());
    const clientKey = generateKeyPair('windeck-sftp-cap-client').privateKey;
    const t = new SshTransport(
      'win-2019',
      { node: 'win-2019', host: '127.0.0.1', port: node.port, auth: { username: 'Administrator', privateKey: clientKey } },
      pool,
    );
    const parts: Buffer[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (parts.push(Buffer.from(c)), cb()) });
    const bytes = await t.download('C:\\k\\big.log', sink, { signal: new AbortController().signal });
    expect(bytes).toBe(file.length);
    expect(Buffer.concat(parts).equals(file)).toBe(true);
    // The first READs ask for what ssh2 assumes (more than the cap); after two short answers every READ asks for
    // at most 64 KiB, so only that first wave was answered short (the end of the file aside).
    expect(node.reads[0]!.asked).toBeGreaterThan(CAP);
    const short = node.reads.filter((r) => r.answered > 0 && r.answered < r.asked && r.position + r.answered < file.length);
    expect(short.length).toBeGreaterThan(0);
    expect(short.length).toBeLessThanOrEqual(8);
    expect(node.reads.slice(16).every((r) => r.asked <= CAP)).toBe(true);
    const inFile = node.reads.filter((r) => r.position < file.length).length;
    expect(inFile).toBeLessThanOrEqual(Math.ceil(file.length / CAP) + 16);
  });
});
