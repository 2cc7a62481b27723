import type { Writable } from 'node:stream';

/**
 * Pipelined SFTP read of one open file into a sink (what makes a large log pull fast): up to `inFlight` READ
 * requests of `chunkBytes` are outstanding at once, at increasing offsets; answers may come back short (a
 * server may cap a READ, Windows OpenSSH's sftp-server does) and then the rest of that range is asked again;
 * data is written to the sink strictly in file order, with backpressure (no new READ while the sink holds more
 * than `maxBufferedBytes`).
 * The file size is not trusted (logs grow): reading stops at the first offset the server answers with EOF.
 * Resolves with the byte count; rejects with the first error (after the outstanding answers drained).
 */

/** The part of ssh2's SFTPWrapper used here (a fake in unit tests). */
export interface SftpReader {
  read(
    handle: Buffer,
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: (Error & { code?: number }) | null | undefined, bytesRead: number, buffer: Buffer, position: number) => void,
  ): void;
}

export interface PipelinedReadOptions {
  chunkBytes: number;
  inFlight: number;
  /** Called for every chunk written to the sink (progress, idle timer). */
  onData?: (bytes: number) => void;
  /** Bytes the sink may hold before no new READ is sent (default chunkBytes x inFlight). */
  maxBufferedBytes?: number;
  /** Checked before each new READ; when it returns an error, reading stops with it. */
  stopped?: () => Error | null;
}

interface Range {
  start: number;
  length: number;
}

export function pipelinedRead(sftp: SftpReader, handle: Buffer, sink: Writable, options: PipelinedReadOptions): Promise<number> {
  const chunk = Math.max(1, Math.floor(options.chunkBytes));
  const limit = Math.max(1, Math.floor(options.inFlight));
  const maxBuffered = options.maxBufferedBytes ?? chunk * limit;
  return new Promise<number>((resolve, reject) => {
    /** Ranges to re-ask (rests of short reads), before new ones. */
    const retry: Range[] = [];
    /** Completed data waiting for the bytes before it, by start offset. */
    const ready = new Map<number, Buffer>();
    let nextOffset = 0;
    let written = 0;
    /** The lowest offset the server answered EOF for (nothing at or after it exists). */
    let eofAt = Number.POSITIVE_INFINITY;
    let outstanding = 0;
    let waitingDrain = false;
    let failure: Error | null = null;
    let settled = false;

    const finish = () => {
      if (settled || outstanding > 0) return;
      if (failure) {
        settled = true;
        reject(failure);
        return;
      }
      if (written >= eofAt && retry.length === 0 && !waitingDrain) {
        settled = true;
        resolve(written);
      }
    };

    const flush = () => {
      for (let buf = ready.get(written); buf !== undefined; buf = ready.get(written)) {
        ready.delete(written);
        written += buf.length;
        options.onData?.(buf.length);
        if (!sink.write(buf) && !waitingDrain) {
          waitingDrain = true;
          sink.once('drain', () => {
            waitingDrain = false;
            pump();
          });
        }
      }
    };

    const issue = (range: Range) => {
      outstanding += 1;
      const buffer = Buffer.allocUnsafe(range.length);
      sftp.read(handle, buffer, 0, range.length, range.start, (error, bytesRead, data) => {
        outstanding -= 1;
        if (error) {
          failure ??= error;
        } else if (bytesRead === 0) {
          eofAt = Math.min(eofAt, range.start);
        } else {
          ready.set(range.start, bytesRead === range.length ? data : Buffer.from(data.subarray(0, bytesRead)));
          // A short answer: ask for the rest of the range (unless it lies past an EOF already seen).
          if (bytesRead < range.length) retry.push({ start: range.start + bytesRead, length: range.length - bytesRead });
        }
        if (!failure) flush();
        pump();
      });
    };

    const pump = () => {
      if (settled) return;
      if (!failure) failure = options.stopped?.() ?? null;
      // Backpressure in bytes: a sink whose buffer is above its (small) high-water mark does not stop the
      // pipeline until it holds `maxBuffered` bytes; stopping at every full 16 KiB file buffer stalls the READs.
      while (!failure && !(waitingDrain && sink.writableLength >= maxBuffered) && outstanding < limit) {
        // Ranges past the EOF are dropped; ranges before it were short answers and are asked again.
        const rest = retry.findIndex((r) => r.start < eofAt);
        if (rest >= 0) {
          issue(retry.splice(rest, 1)[0]!);
          continue;
        }
        retry.length = 0;
        if (nextOffset >= eofAt) break;
        // Keep the reorder buffer bounded: no more than `limit` chunks beyond what the sink has taken.
        if (nextOffset - written >= chunk * limit * 2) break;
        issue({ start: nextOffset, length: chunk });
        nextOffset += chunk;
      }
      finish();
    };

    pump();
  });
}
