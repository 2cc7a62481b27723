import type { Writable } from 'node:stream';

/**
 * Pipelined SFTP read of one open file into a sink (what makes a large log pull fast): several READ requests are
 * outstanding at once, at increasing offsets; answers may come back short (a server may cap a READ: Windows
 * OpenSSH 7.7's sftp-server answers at most 64 KiB and does not offer `limits@openssh.com`) and then the rest of
 * that range is asked again; data is written to the sink strictly in file order, with backpressure (no new READ
 * while the sink holds more than `maxBufferedBytes`).
 * The READ size adapts to the server: reading starts with `chunkBytes` (the server's advertised maximum when it
 * has one) and, once two answers came back short with the same length, that length is the server's cap and later
 * READs ask for exactly that much (so a capping server stops costing a re-ask per READ). The number of READs
 * outstanding follows the size: `bytesInFlight` / READ size, at most `inFlight`.
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
  /** Bytes asked for by the first READs (later ones adapt down to a server's cap). */
  chunkBytes: number;
  /** READ requests outstanding at most. */
  inFlight: number;
  /** Bytes asked for at once at most: READs outstanding = bytesInFlight / READ size (default chunkBytes x inFlight). */
  bytesInFlight?: number;
  /** The READ size never adapts below this (a short answer smaller than it is not taken as a cap; default 4 KiB). */
  minChunkBytes?: number;
  /** Called for every chunk written to the sink (progress, idle timer). */
  onData?: (bytes: number) => void;
  /** Called when the READ size changes to a server's cap. */
  onChunkSize?: (bytes: number) => void;
  /** Bytes the sink may hold before no new READ is sent (default bytesInFlight). */
  maxBufferedBytes?: number;
  /** Checked before each new READ; when it returns an error, reading stops with it. */
  stopped?: () => Error | null;
  /**
   * The sink is done with a chunk once that write's callback ran (fs.WriteStream: the bytes are in the file), so
   * READ buffers are used again instead of allocating 200 MB for a 200 MB file (fewer garbage collections).
   * Not for sinks that keep chunks after the callback (a PassThrough queues them for its reader).
   */
  reuseBuffers?: boolean;
}

interface Range {
  start: number;
  length: number;
  /** For the rest of a short answer: the length that answer had (the rest is asked for in pieces of it). */
  piece?: number;
}

/** Default floor of the adapted READ size. */
const MIN_CHUNK_BYTES = 4096;

export function pipelinedRead(sftp: SftpReader, handle: Buffer, sink: Writable, options: PipelinedReadOptions): Promise<number> {
  let chunk = Math.max(1, Math.floor(options.chunkBytes));
  const maxReads = Math.max(1, Math.floor(options.inFlight));
  const budget = Math.max(1, Math.floor(options.bytesInFlight ?? chunk * maxReads));
  const minChunk = Math.max(1, Math.floor(options.minChunkBytes ?? Math.min(MIN_CHUNK_BYTES, chunk)));
  const maxBuffered = options.maxBufferedBytes ?? budget;
  /** READs outstanding at most for the current READ size. */
  const readLimit = () => Math.min(maxReads, Math.max(1, Math.floor(budget / chunk)));
  return new Promise<number>((resolve, reject) => {
    /** Ranges to re-ask (rests of short reads), before new ones. */
    const retry: Range[] = [];
    /** Completed data waiting for the bytes before it, by start offset, with the READ buffer it lies in. */
    const ready = new Map<number, { data: Buffer; owner: Buffer }>();
    /** READ buffers the sink is done with (reuseBuffers). */
    const spare: Buffer[] = [];
    const reuse = options.reuseBuffers === true;
    /** A READ buffer of at least `size` bytes: a spare one, or a new one with its own memory (so it can be reused). */
    const take = (size: number): Buffer => {
      if (!reuse) return Buffer.allocUnsafe(size);
      for (let owner = spare.pop(); owner !== undefined; owner = spare.pop()) if (owner.length >= size) return owner;
      return Buffer.allocUnsafeSlow(Math.max(size, chunk));
    };
    // No cap needed: buffers come back only from the sink, so the spare ones are at most those the reorder window
    // and the sink's buffer held at once (about 3 x bytesInFlight).
    const giveBack = (owner: Buffer) => {
      spare.push(owner);
    };
    let nextOffset = 0;
    let written = 0;
    /** The lowest offset the server answered EOF for (nothing at or after it exists). */
    let eofAt = Number.POSITIVE_INFINITY;
    let outstanding = 0;
    let waitingDrain = false;
    let failure: Error | null = null;
    let settled = false;
    /** Length of the last short answer: a second short answer of the same length makes it the READ size. */
    let shortAnswer = 0;

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
      for (let entry = ready.get(written); entry !== undefined; entry = ready.get(written)) {
        ready.delete(written);
        const { data, owner } = entry;
        written += data.length;
        options.onData?.(data.length);
        if (!sink.write(data, reuse ? () => giveBack(owner) : undefined) && !waitingDrain) {
          waitingDrain = true;
          sink.once('drain', () => {
            waitingDrain = false;
            pump();
          });
        }
      }
    };

    /**
     * A short answer is a server cap or the end of the file. The end of the file answers short once (the rest
     * then answers EOF); a cap answers every READ larger than it with the same length.
     */
    const learn = (got: number) => {
      if (got >= chunk || got < minChunk) return;
      if (got !== shortAnswer) {
        shortAnswer = got;
        return;
      }
      chunk = got;
      options.onChunkSize?.(got);
    };

    const issue = (range: Range) => {
      outstanding += 1;
      const owner = take(range.length);
      sftp.read(handle, owner, 0, range.length, range.start, (error, bytesRead, data) => {
        outstanding -= 1;
        if (error) {
          failure ??= error;
        } else if (bytesRead === 0) {
          eofAt = Math.min(eofAt, range.start);
          if (reuse) giveBack(owner);
        } else {
          // ssh2 hands back (a view of) the buffer it was given: no copy, even for a short answer.
          ready.set(range.start, { data: bytesRead === data.length ? data : data.subarray(0, bytesRead), owner });
          if (bytesRead < range.length) {
            learn(bytesRead);
            // A short answer: ask for the rest of the range (unless it lies past an EOF already seen).
            retry.push({ start: range.start + bytesRead, length: range.length - bytesRead, piece: bytesRead });
          }
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
      while (!failure && !(waitingDrain && sink.writableLength >= maxBuffered) && outstanding < readLimit()) {
        // Ranges past the EOF are dropped; ranges before it were short answers and are asked again, in pieces
        // no larger than that answer (a range cut short by a capping server is asked for in parallel).
        const rest = retry.findIndex((r) => r.start < eofAt);
        if (rest >= 0) {
          const r = retry[rest]!;
          const size = Math.min(chunk, Math.max(r.piece ?? chunk, minChunk), r.length);
          if (r.length <= size) retry.splice(rest, 1);
          else retry[rest] = { ...r, start: r.start + size, length: r.length - size };
          issue({ start: r.start, length: size });
          continue;
        }
        retry.length = 0;
        if (nextOffset >= eofAt) break;
        // Keep the reorder buffer bounded: no more than twice the bytes in flight beyond what the sink has taken.
        if (nextOffset - written >= budget * 2) break;
        issue({ start: nextOffset, length: chunk });
        nextOffset += chunk;
      }
      finish();
    };

    pump();
  });
}

/**
 * The size of the first READs on an ssh2 SFTP session: `preferred`, or less when ssh2 knows the server answers
 * less. ssh2 keeps the server's max read length (`limits@openssh.com`, else 256 KiB - 2 KiB for OpenSSH and
 * 34000 - 2 KiB for others) in the unexported `_maxReadLen` and splits a larger READ into a READ of that size
 * plus one more sent only after the first answer: a READ above it costs a round trip, so never ask for more.
 */
export function sftpReadSize(sftp: object, preferred: number): number {
  const known = (sftp as { _maxReadLen?: unknown })._maxReadLen;
  return typeof known === 'number' && Number.isInteger(known) && known > 0 ? Math.min(preferred, known) : preferred;
}
