/**
 * Direct SFTP DATA delivery for pipelined READs (what a large log pull spends its memory traffic on).
 *
 * ssh2's SFTP client collects every incoming SFTP packet into a buffer of its own (a new 256 KiB buffer per
 * answer to a 256 KiB READ) and then copies the data out into the READ's destination buffer: for a 200 MB pull,
 * 200 MB of short-lived buffers (V8 external memory, which drives its major garbage collections) and 200 MB of
 * extra copying. `directSftpData` puts a framing layer in front of the SFTP session's `push` (the method ssh2
 * feeds the channel's data to): a DATA answer to a READ that is waiting with a destination buffer is copied
 * straight from the channel's data into that buffer, and the READ's callback gets exactly what ssh2's own DATA
 * handler would pass (`undefined, buffer, byteCount`). Every other packet (VERSION, HANDLE, STATUS, an EOF,
 * a DATA answer ssh2 itself must judge, e.g. one longer than asked for) is handed to ssh2's `push` whole, as one
 * chunk, so ssh2 parses and checks it exactly as before.
 *
 * It relies on three ssh2 internals, checked before installing (else nothing is changed and ssh2's own path
 * runs): `push(data)`, `_requests[id]` holding `{ cb, buffer }` for a READ with a destination, and
 * `_maxInPktLen`. A packet length of 0 or above `_maxInPktLen` is handed to ssh2 as it came (ssh2 fails the
 * session with its own error) and the layer steps aside for the rest of the session.
 */

/** The SFTP packet type of a DATA answer (draft-ietf-secsh-filexfer-02: SSH_FXP_DATA). */
const SSH_FXP_DATA = 103;
/** uint32 length, byte type, uint32 request id, uint32 data length: the head of a DATA packet. */
const DATA_HEAD_BYTES = 13;

interface PendingRead {
  cb?: unknown;
  buffer?: unknown;
}

interface SftpInternals {
  push(data: Buffer | null): unknown;
  _requests: Record<number, PendingRead | undefined>;
  _maxInPktLen: number;
  server?: boolean;
}

/** What `directSftpData` did on one session (tests, benchmarks). */
export interface DirectSftpStats {
  /** DATA answers copied straight into their READ's buffer. */
  direct: number;
  /** Packets handed to ssh2's own parser whole. */
  delegated: number;
}

function internals(sftp: object): SftpInternals | null {
  const s = sftp as Partial<SftpInternals>;
  if (s.server === true) return null;
  if (typeof s.push !== 'function') return null;
  if (typeof s._requests !== 'object' || s._requests === null) return null;
  if (typeof s._maxInPktLen !== 'number' || !(s._maxInPktLen > 0)) return null;
  return s as SftpInternals;
}

/**
 * Install the direct DATA path on an ssh2 SFTP client session (before any READ is sent; the session must be
 * between packets, as it is right after `client.sftp()` called back). Returns its counters, or null when the
 * session does not look like the ssh2 this was written for (then ssh2's own path stays).
 */
export function directSftpData(sftp: object): DirectSftpStats | null {
  const s = internals(sftp);
  if (!s) return null;
  const original = s.push.bind(s) as (data: Buffer | null) => unknown;
  const stats: DirectSftpStats = { direct: 0, delegated: 0 };

  /** The head of the current packet (up to DATA_HEAD_BYTES). */
  const head = Buffer.alloc(DATA_HEAD_BYTES);
  let headBytes = 0;
  /** Length of the current packet after its uint32 length field (0: not known yet). */
  let packetLength = 0;
  /** The layer stepped aside (a bad packet length): everything goes to ssh2 as it comes. */
  let aside = false;
  // 'direct': copying a DATA answer into `target`; 'whole': collecting a packet for ssh2 into `whole`.
  let mode: 'head' | 'direct' | 'whole' = 'head';
  let target: Buffer | null = null;
  let targetBytes = 0;
  let targetFilled = 0;
  let targetId = 0;
  let targetRequest: PendingRead | null = null;
  let whole: Buffer | null = null;
  let wholeFilled = 0;

  const reset = () => {
    mode = 'head';
    headBytes = 0;
    packetLength = 0;
    target = null;
    targetRequest = null;
    whole = null;
  };

  const deliver = (id: number, request: PendingRead, buffer: Buffer, bytes: number) => {
    // The session may have ended (ssh2 then failed and dropped every waiting request) while this answer was
    // arriving: like ssh2, drop an answer nobody waits for any more.
    if (s._requests[id] !== request) return;
    delete s._requests[id];
    stats.direct += 1;
    (request.cb as (error: undefined, data: Buffer, bytes: number) => void)(undefined, buffer, bytes);
  };

  const hand = (packet: Buffer) => {
    stats.delegated += 1;
    original(packet);
  };

  s.push = (data: Buffer | null): unknown => {
    if (data === null || aside) return original(data);
    let p = 0;
    while (p < data.length) {
      if (mode === 'head') {
        const wanted = (packetLength > 0 ? Math.min(DATA_HEAD_BYTES, 4 + packetLength) : 4) - headBytes;
        const n = Math.min(wanted, data.length - p);
        data.copy(head, headBytes, p, p + n);
        headBytes += n;
        p += n;
        if (headBytes < 4) return undefined;
        if (packetLength === 0) {
          packetLength = head.readUInt32BE(0);
          if (packetLength === 0 || packetLength > s._maxInPktLen) {
            // ssh2 reports the bad length itself; from here on it gets the bytes as they come.
            aside = true;
            const rest = Buffer.concat([head.subarray(0, headBytes), data.subarray(p)]);
            reset();
            return original(rest);
          }
          continue;
        }
        if (headBytes < Math.min(DATA_HEAD_BYTES, 4 + packetLength)) return undefined;
        if (packetLength + 4 === headBytes) {
          // A packet no longer than its head (a short STATUS or HANDLE cannot be; kept general).
          const packet = Buffer.from(head.subarray(0, headBytes));
          reset();
          hand(packet);
          continue;
        }
        const type = head[4];
        const id = head.readUInt32BE(5);
        const dataLength = head.readUInt32BE(9);
        const request = type === SSH_FXP_DATA ? s._requests[id] : undefined;
        if (
          request !== undefined &&
          typeof request.cb === 'function' &&
          Buffer.isBuffer(request.buffer) &&
          dataLength === packetLength - 9 &&
          dataLength <= request.buffer.length
        ) {
          target = request.buffer;
          targetBytes = dataLength;
          targetFilled = 0;
          targetId = id;
          targetRequest = request;
          // dataLength > 0 here: a 0-byte DATA packet is no longer than its head and went to ssh2 above.
          mode = 'direct';
          continue;
        }
        whole = Buffer.allocUnsafe(4 + packetLength);
        head.copy(whole, 0, 0, headBytes);
        wholeFilled = headBytes;
        mode = 'whole';
        continue;
      }
      if (mode === 'direct') {
        const n = Math.min(targetBytes - targetFilled, data.length - p);
        data.copy(target!, targetFilled, p, p + n);
        targetFilled += n;
        p += n;
        if (targetFilled === targetBytes) {
          const buffer = target!;
          const id = targetId;
          const request = targetRequest!;
          const bytes = targetBytes;
          reset();
          deliver(id, request, buffer, bytes);
        }
        continue;
      }
      // mode === 'whole'
      const n = Math.min(whole!.length - wholeFilled, data.length - p);
      data.copy(whole!, wholeFilled, p, p + n);
      wholeFilled += n;
      p += n;
      if (wholeFilled === whole!.length) {
        const packet = whole!;
        reset();
        hand(packet);
      }
    }
    return undefined;
  };
  return stats;
}
