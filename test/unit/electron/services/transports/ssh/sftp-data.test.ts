import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { directSftpData } from '../../../../../../electron/services/transports/ssh/sftp-data';

/**
 * The direct DATA path against ssh2's own SFTP client class (not a fake of it): the same packet stream, cut into
 * chunks every possible way, must give exactly the callbacks, errors and buffer contents ssh2's own parser gives,
 * with the DATA answers to waiting READs copied straight into their buffers.
 */

type SftpCtor = new (client: object, chanInfo: object, cfg: object) => SftpLike;
interface SftpLike {
  push(data: Buffer | null): unknown;
  read(handle: Buffer, buf: Buffer, off: number, len: number, position: number, cb: (...args: unknown[]) => void): void;
  open(path: string, flags: string, cb: (...args: unknown[]) => void): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
}
const { SFTP } = createRequire(import.meta.url)('ssh2/lib/protocol/SFTP.js') as { SFTP: SftpCtor };

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const str = (s: Buffer | string) => {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
  return Buffer.concat([u32(b.length), b]);
};
const packet = (type: number, ...body: Buffer[]) => {
  const payload = Buffer.concat([Buffer.from([type]), ...body]);
  return Buffer.concat([u32(payload.length), payload]);
};
const VERSION = (v: number) => packet(2, u32(v));
const STATUS = (id: number, code: number, msg: string) => packet(101, u32(id), u32(code), str(msg), str('en'));
const HANDLE = (id: number, h: string) => packet(102, u32(id), str(h));
const DATA = (id: number, data: Buffer) => packet(103, u32(id), str(data));

const content = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

/** A real ssh2 SFTP client session on a fake channel (outgoing packets are dropped). */
function session(direct: boolean) {
  const sftp = new SFTP(
    { _protocol: { _remoteIdentRaw: 'SSH-2.0-OpenSSH_9.2', channelData: () => undefined, channelClose: () => undefined } },
    {
      type: 'sftp',
      incoming: { id: 0, window: 2 ** 21, packetSize: 32768, state: 'open' },
      outgoing: { id: 0, window: 2 ** 30, packetSize: 32768, state: 'open' },
    },
    {},
  );
  const events: string[] = [];
  sftp.on('error', (e) => events.push(`error ${(e as Error).message}`));
  const stats = direct ? directSftpData(sftp) : null;
  return { sftp, events, stats };
}

/**
 * Requests 0..7 (ssh2 numbers them in order): an OPEN, then READs of 1000 (answered whole), 1000 (answered
 * short: 300), 500 (EOF), 10 (answered with 0 bytes), 1000 (answered with MORE than asked: ssh2 must reject it),
 * 1000 (answered whole, after a DATA for an id nobody waits for) and 64 KiB (answered whole, several channel
 * chunks long).
 */
function run(direct: boolean, chunks: (stream: Buffer) => Buffer[]) {
  const { sftp, events, stats } = session(direct);
  const handle = Buffer.from('h1');
  const bufs = [1000, 1000, 500, 10, 1000, 1000, 65536].map((n) => Buffer.alloc(n, 0xee));
  sftp.open('/C:/k/a.log', 'r', (e, h) => events.push(`open ${e ? (e as Error).message : (h as Buffer).toString()}`));
  bufs.forEach((b, i) =>
    sftp.read(handle, b, 0, b.length, i * 100_000, (e, n, data, pos) => {
      if (e) events.push(`read${i} error ${(e as Error & { code?: number }).code ?? (e as Error).message}`);
      else
        events.push(
          `read${i} ${String(n)} at ${String(pos)} same-buffer ${String((data as Buffer).buffer === b.buffer)} ${(data as Buffer)
            .subarray(0, n as number)
            .toString('hex')
            .slice(0, 64)}`,
        );
    }),
  );
  const stream = Buffer.concat([
    VERSION(3),
    HANDLE(0, 'h1'),
    DATA(1, content(1000, 1)),
    DATA(2, content(300, 2)),
    STATUS(3, 1, 'End of file'),
    DATA(4, Buffer.alloc(0)),
    DATA(5, content(1200, 5)),
    DATA(99, content(50, 9)),
    DATA(6, content(1000, 6)),
    DATA(7, content(65536, 7)),
  ]);
  for (const c of chunks(stream)) sftp.push(c);
  return { events, bufs: bufs.map((b) => b.toString('hex')), stats };
}

const whole = (s: Buffer) => [s];
const everyN = (n: number) => (s: Buffer) => Array.from({ length: Math.ceil(s.length / n) }, (_, i) => s.subarray(i * n, (i + 1) * n));

describe('direct SFTP DATA delivery (in front of ssh2 SFTP push)', () => {
  const reference = run(false, whole);

  it('the reference run (ssh2 alone) answers as the protocol says', () => {
    expect(reference.events).toEqual([
      'open h1',
      expect.stringMatching(/^read0 1000 at 0 same-buffer true /),
      expect.stringMatching(/^read1 300 at 100000 same-buffer true /),
      // ssh2 turns an EOF status into a 0-byte read, and copies no more than was asked of an over-long answer.
      'read2 0 at 200000 same-buffer true ',
      expect.stringMatching(/^read3 0 at 300000 same-buffer true/),
      expect.stringMatching(/^read4 1000 at 400000 same-buffer true /),
      expect.stringMatching(/^read5 1000 at 500000 same-buffer true /),
      expect.stringMatching(/^read6 65536 at 600000 same-buffer true /),
    ]);
  });

  it('gives the same callbacks and buffer contents as ssh2 alone, whatever the chunking', () => {
    const cuts = [whole, everyN(1), everyN(3), everyN(7), everyN(13), everyN(4096), everyN(32768)];
    for (const cut of cuts) {
      const r = run(true, cut);
      expect(r.events).toEqual(reference.events);
      expect(r.bufs).toEqual(reference.bufs);
      // READs 0, 1, 5 and 6 took the direct path; VERSION, HANDLE, STATUS, the 0-byte DATA (no longer than its
      // head), the over-long DATA and the orphan DATA went to ssh2 whole.
      expect(r.stats).toEqual({ direct: 4, delegated: 6 });
    }
  });

  it('gives the same result for the stream cut in two anywhere (heads, lengths, data)', () => {
    let length = 0;
    run(false, (s) => ((length = s.length), [s]));
    // Every offset of the first 40 bytes, then every 13th up to the 64 KiB answer (so every later 13-byte head is
    // cut once somewhere inside, as are lengths and data), then a sample inside that answer.
    const offsets = [
      ...Array.from({ length: 4600 }, (_, i) => i + 1).filter((at) => at < 40 || at % 13 === 0),
      ...Array.from({ length: 40 }, (_, i) => 4600 + i * 1601),
    ].filter((at) => at < length);
    for (const at of offsets) {
      const r = run(true, (s) => [s.subarray(0, at), s.subarray(at)]);
      expect(r.events, `cut at ${at}`).toEqual(reference.events);
      expect(r.bufs, `cut at ${at}`).toEqual(reference.bufs);
    }
  });

  it('drops the rest of an answer whose READ ssh2 already failed (session ended mid-answer), as ssh2 does', () => {
    for (const direct of [false, true]) {
      const { sftp, events } = session(direct);
      const buf = Buffer.alloc(5000);
      sftp.read(Buffer.from('h1'), buf, 0, buf.length, 0, (e, n) => events.push(e ? `error ${(e as Error).message}` : `read ${String(n)}`));
      const answer = DATA(0, content(5000, 3));
      sftp.push(VERSION(3));
      sftp.push(answer.subarray(0, 2000));
      sftp.push(null);
      sftp.push(answer.subarray(2000));
      expect(events, String(direct)).toEqual(['error No response from server']);
    }
  });

  it('leaves a bad packet length to ssh2, which fails the session with its own error', () => {
    for (const direct of [false, true]) {
      const { sftp, events } = session(direct);
      sftp.push(VERSION(3));
      sftp.push(Buffer.concat([u32(0), Buffer.from([1, 2, 3])]));
      expect(events, String(direct)).toEqual(['error Invalid packet length']);
    }
    for (const direct of [false, true]) {
      const { sftp, events } = session(direct);
      sftp.push(VERSION(3));
      sftp.push(u32(300 * 1024));
      expect(events, String(direct)).toEqual([expect.stringMatching(/^error Packet length 307200 exceeds max length/)]);
    }
  });

  it('leaves alone what does not look like an ssh2 SFTP client session', () => {
    expect(directSftpData({})).toBeNull();
    expect(directSftpData({ push: () => undefined, _requests: {}, _maxInPktLen: 0 })).toBeNull();
    const { sftp } = session(false);
    (sftp as unknown as { server: boolean }).server = true;
    expect(directSftpData(sftp)).toBeNull();
  });
});
