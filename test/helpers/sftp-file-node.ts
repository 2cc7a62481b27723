import { createRequire } from 'node:module';
import type net from 'node:net';
import type { Connection, SFTPWrapper } from 'ssh2';
import { generateKeyPair, publicKeyLine } from '../../electron/sim/windows-node/ssh-server';

const ssh2 = createRequire(import.meta.url)('ssh2') as typeof import('ssh2');

/** How a READ of the one file is answered: `sftp.data(...)` / `sftp.status(...)`, or nothing (a stalled node). */
export type ReadAnswer = (sftp: SFTPWrapper, reqid: number, offset: number, length: number, status: typeof ssh2.utils.sftp.STATUS_CODE) => void;

/**
 * An ssh2 SFTP server on 127.0.0.1 (port 0) that accepts any public key and serves one file at `sftpPath`
 * (Windows OpenSSH's layout, e.g. `/C:/k/app.log`); `onRead` answers each READ. Returns the port, the host key's
 * known_hosts line and a close function.
 */
export async function sftpFileNode(options: { sftpPath: string; ident: string; hostKeyName: string; onRead: ReadAnswer }) {
  const hostKey = generateKeyPair(options.hostKeyName).privateKey;
  const server = new ssh2.Server({ hostKeys: [hostKey], ident: options.ident }, (client: Connection) => {
    client.on('authentication', (ctx) => (ctx.method === 'publickey' ? ctx.accept() : ctx.reject(['publickey'])));
    client.on('error', () => undefined);
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        acceptSession().on('sftp', (accept) => {
          const sftp = accept();
          const STATUS = ssh2.utils.sftp.STATUS_CODE;
          sftp.on('OPEN', (reqid, filename) => {
            if (filename !== options.sftpPath) return sftp.status(reqid, STATUS.NO_SUCH_FILE, 'The system cannot find the file specified.');
            sftp.handle(reqid, Buffer.from('h1'));
          });
          sftp.on('READ', (reqid, _handle, offset, length) => options.onRead(sftp, reqid, offset, length, STATUS));
          sftp.on('CLOSE', (reqid) => sftp.status(reqid, STATUS.OK));
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    hostKeyPublic: publicKeyLine(hostKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
