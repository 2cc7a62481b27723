import type http from 'node:http';
import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import {
  KUBE_BACKOFF_INITIAL_MS,
  KUBE_BACKOFF_MAX_MS,
  KUBE_LIST_PAGE_SIZE,
  KUBE_WATCH_COALESCE_MAX_CHARS,
  KUBE_WATCH_IDLE_MS,
  KUBE_WATCH_TIMEOUT_MAX_S,
  KUBE_WATCH_TIMEOUT_MIN_S,
  KUBE_WATCHDOG_INTERVAL_MS,
} from '../../../shared/domain/limits';
import { systemClock, type Clock } from '../lib/clock';
import type { Logger } from '../lib/log';
import { KubeStatusError, watchChunks, type KubeClient, type ListPage } from './client';
import { dropUnreadArrays, unreadArraysFor } from './drop-unread-arrays';

/**
 * List + watch of one resource into an in-memory cache, the way client-go's reflector does it, plus what it
 * lacks for our case:
 * - paged lists (limit/continue); a continue token that expired (410) restarts the list;
 * - watch from the list's resourceVersion with bookmarks; the resourceVersion advances with every event and
 *   bookmark, so a re-watch resumes where the last one stopped;
 * - 410 Gone (HTTP or an in-stream ERROR event) -> exactly one relist;
 * - failures -> capped exponential backoff with jitter; 401/403 -> stop and report (retrying cannot help);
 * - a watchdog on the injectable clock: a watch silent (no event, no bookmark) for `idleMs` is stalled; the
 *   first stall re-watches from the last resourceVersion (the server replays what was missed), a second stall in
 *   a row relists;
 * - garbage lines (not JSON, no type) are counted; the watch is then re-opened from the last good
 *   resourceVersion so an event hidden in a broken line is replayed, not lost.
 */

export type ReflectorState = 'idle' | 'listing' | 'watching' | 'backoff' | 'stopped' | 'failed';

export type ReflectorChange<T> =
  { type: 'replace'; items: ReadonlyMap<string, T> } | { type: 'upsert'; key: string; item: T } | { type: 'delete'; key: string };

export interface ReflectorStats {
  /** Full lists started (the first one included). */
  lists: number;
  /** Lists after the first (after 410 or a repeated stall). */
  relists: number;
  /** Lists restarted because a continue token expired. */
  listRestarts: number;
  pages: number;
  watches: number;
  events: number;
  bookmarks: number;
  /** Watch events superseded by a newer event of the same object before they were parsed (coalescing). */
  coalesced: number;
  garbageLines: number;
  stalls: number;
  gone: number;
  /** Consecutive failed attempts (reset by success). */
  failures: number;
  /** All failed attempts. */
  failedAttempts: number;
  lastError: string | null;
  resourceVersion: string;
  /** Clock time of the last byte from a watch, or of the last list. */
  lastActivityAt: number | null;
  listedAt: number | null;
  items: number;
}

/** The part of KubeClient a reflector uses (a port, so tests may wrap it). */
export type ReflectorClient = Pick<KubeClient, 'listPage' | 'watch'>;

export interface ReflectorOptions<T> {
  client: ReflectorClient;
  /** Collection path, e.g. `/api/v1/pods` or `/apis/apps/v1/daemonsets`. */
  path: string;
  /** Name for messages (`pods`). */
  resource: string;
  /** Keep only what Windeck needs of a raw object; null drops it. */
  project(raw: unknown): T | null;
  keyOf(item: T): string;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  random?: () => number;
  pageSize?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  idleMs?: number;
  watchdogIntervalMs?: number;
  /** Server-side watch timeout, seconds (random in [min, max] like client-go). */
  watchTimeoutSeconds?: () => number;
  log?: Logger;
  onChange?(change: ReflectorChange<T>): void;
  /**
   * Coalesce watch events of a cluster-scoped resource keyed by `metadata.name` (nodes): an ADDED, MODIFIED or
   * DELETED line is held, unparsed, for up to this many ms (or until `drain()`), and a newer line of the same
   * object replaces it, so only the newest state of each object is parsed and applied. Off when unset.
   */
  coalesceMs?: number;
  /** Held lines above this many characters are applied at once (bounds the memory of a burst). */
  coalesceMaxChars?: number;
  /**
   * An event superseded by a newer one of the same object before it was parsed, with its held text (the line
   * without its unread arrays). Observability: the bench traces lag with it.
   */
  onCoalesced?(key: string, line: string): void;
  onState?(state: ReflectorState, stats: ReflectorStats, error: WindeckError | null): void;
  /** Progress of a list: items so far and the server's estimate of the rest. */
  onListProgress?(items: number, remaining: number | null): void;
}

type WatchOutcome = 'ended' | 'stalled' | 'garbage' | 'gone' | 'stopped' | 'relist';

/**
 * The head of a watch event line as the API server writes it (TypeMeta, then ObjectMeta with the name first):
 * type and name without parsing the rest. A line of another shape is not coalesced (it is parsed at once).
 */
const EVENT_HEAD = /^\{"type":"(?:ADDED|MODIFIED|DELETED)","object":\{(?:"kind":"[^"\\]*","apiVersion":"[^"\\]*",)?"metadata":\{"name":"([^"\\]+)"/;

/** The object name of a coalescible event line, or null. */
export function eventLineName(line: string): string | null {
  const m = EVENT_HEAD.exec(line);
  return m ? m[1]! : null;
}

function isGone(error: unknown): boolean {
  return error instanceof KubeStatusError && error.status === 410;
}

function isAuthStop(error: unknown): boolean {
  return isWindeckError(error) && ((error as WindeckError).code === 'AUTH_FAILED' || (error as WindeckError).code === 'PERMISSION_DENIED');
}

/** A watch event line, or null when the line is not one (not JSON, no known type, no object). */
function parseEvent(line: string, unread: readonly string[] | null): { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: object } | null {
  let ev: { type?: unknown; object?: unknown };
  try {
    ev = JSON.parse(unread ? dropUnreadArrays(line, unread) : line);
  } catch {
    return null;
  }
  const type = ev?.type;
  if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED' && type !== 'BOOKMARK' && type !== 'ERROR') return null;
  if (typeof ev.object !== 'object' || ev.object === null) return null;
  return { type, object: ev.object };
}

function rvOf(raw: unknown): string | null {
  const rv = (raw as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : null;
}

export class Reflector<T> {
  readonly cache = new Map<string, T>();
  /** Arrays of this resource that no projection reads, dropped from event text before parsing. */
  private readonly unreadArrays: readonly string[];
  readonly stats: ReflectorStats = {
    lists: 0,
    relists: 0,
    listRestarts: 0,
    pages: 0,
    watches: 0,
    events: 0,
    bookmarks: 0,
    coalesced: 0,
    garbageLines: 0,
    stalls: 0,
    gone: 0,
    failures: 0,
    failedAttempts: 0,
    lastError: null,
    resourceVersion: '',
    lastActivityAt: null,
    listedAt: null,
    items: 0,
  };
  state: ReflectorState = 'idle';
  error: WindeckError | null = null;
  private readonly clock: Clock;
  private readonly random: () => number;
  private stopped = false;
  private current: AbortController | null = null;
  private sleeping: { cancel(): void } | null = null;
  private loop: Promise<void> | null = null;
  /** Coalescing: the newest unparsed event line per object name, in arrival order of those lines. */
  private held = new Map<string, string>();
  private heldChars = 0;
  private drainTimer: { cancel(): void } | null = null;
  /** A held line turned out not to be what its head said: the cache may miss an event, a relist follows. */
  private relistRequested = false;
  private syncedResolve!: () => void;
  private syncedReject!: (e: unknown) => void;
  /** Settles after the first successful list (rejects if the reflector fails or stops first). */
  readonly synced: Promise<void>;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.unreadArrays = unreadArraysFor(options.path);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.synced = new Promise<void>((resolve, reject) => {
      this.syncedResolve = resolve;
      this.syncedReject = reject;
    });
    this.synced.catch(() => undefined);
  }

  /** Start list + watch in the background. */
  start(): this {
    if (!this.loop) this.loop = this.run();
    return this;
  }

  /** Stop: abort the request in flight, cancel timers. Resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    this.sleeping?.cancel();
    this.setState('stopped');
    this.syncedReject(new WindeckError('CANCELLED', `The ${this.options.resource} inventory was stopped before it synced.`));
    await this.loop?.catch(() => undefined);
    // Events received before the stop are applied (the cache is then what the server last said).
    this.drain();
  }

  /**
   * Apply the held (coalesced) event lines now, oldest first: parse, project, update the cache and the
   * resourceVersion, report the changes. Returns false when a held line was not what its head said (broken JSON,
   * another name): the rest is dropped and a relist is asked for, since what that line superseded is lost.
   */
  drain(): boolean {
    this.drainTimer?.cancel();
    this.drainTimer = null;
    if (this.held.size === 0) return !this.relistRequested;
    const held = this.held;
    this.held = new Map();
    this.heldChars = 0;
    if (this.relistRequested) return false;
    for (const [name, line] of held) {
      // Held lines are already cut down (hold()).
      const ev = parseEvent(line, null);
      const item = ev && ev.type !== 'BOOKMARK' && ev.type !== 'ERROR' ? this.options.project(ev.object) : null;
      if (ev === null || item === null || this.options.keyOf(item) !== name) {
        this.stats.garbageLines++;
        this.relistRequested = true;
        this.options.log?.warn('watch event does not match its head; relisting', { resource: this.options.resource, name });
        this.current?.abort();
        this.stats.items = this.cache.size;
        return false;
      }
      this.stats.failures = 0;
      const rv = rvOf(ev.object);
      if (rv) this.stats.resourceVersion = rv;
      this.apply(ev.type, name, item);
    }
    this.stats.items = this.cache.size;
    return true;
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR', key: string, item: T): void {
    if (type === 'DELETED') {
      if (this.cache.delete(key)) this.options.onChange?.({ type: 'delete', key });
    } else {
      this.cache.set(key, item);
      this.options.onChange?.({ type: 'upsert', key, item });
    }
  }

  /**
   * Hold an event line until the next drain; a held line of the same object is superseded (never parsed). What is
   * held is the line without its unread arrays: a fifth of the text, and a copy, so the socket chunk it was cut
   * from is not kept alive (held text outlives young-generation GCs; the raw text made GC a sixth of the work).
   */
  private hold(name: string, raw: string): boolean {
    const line = dropUnreadArrays(raw, this.unreadArrays);
    const prev = this.held.get(name);
    if (prev !== undefined) {
      // Re-inserted at the end: the held lines stay in arrival order of their newest event.
      this.held.delete(name);
      this.heldChars -= prev.length;
      this.stats.coalesced++;
      this.options.onCoalesced?.(name, prev);
    }
    this.held.set(name, line);
    this.heldChars += line.length;
    if (this.heldChars > (this.options.coalesceMaxChars ?? KUBE_WATCH_COALESCE_MAX_CHARS)) return this.drain();
    this.drainTimer ??= this.clock.setTimeout(() => {
      this.drainTimer = null;
      this.drain();
    }, this.options.coalesceMs ?? 0);
    return true;
  }

  private dropHeld(): void {
    this.drainTimer?.cancel();
    this.drainTimer = null;
    this.held = new Map();
    this.heldChars = 0;
  }

  /** One complete paged list into the cache (no watch). Used for one-shot syncs. */
  async listOnce(signal?: AbortSignal): Promise<ReadonlyMap<string, T>> {
    await this.list(signal);
    return this.cache;
  }

  /** Delay before attempt `n` (1-based) after failures: min(max, initial * 2^(n-1)), then "equal jitter". */
  backoffDelay(n: number): number {
    const initial = this.options.backoffInitialMs ?? KUBE_BACKOFF_INITIAL_MS;
    const max = this.options.backoffMaxMs ?? KUBE_BACKOFF_MAX_MS;
    const base = Math.min(max, initial * 2 ** Math.max(0, n - 1));
    return Math.round(base / 2 + this.random() * (base / 2));
  }

  private setState(state: ReflectorState): void {
    if (this.state === state) return;
    if (this.state === 'stopped' || this.state === 'failed') return;
    this.state = state;
    this.options.onState?.(state, this.stats, this.error);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.stopped) return resolve();
      const t = this.clock.setTimeout(() => {
        this.sleeping = null;
        resolve();
      }, ms);
      this.sleeping = {
        cancel: () => {
          t.cancel();
          this.sleeping = null;
          resolve();
        },
      };
    });
  }

  private async run(): Promise<void> {
    let needList = true;
    let consecutiveStalls = 0;
    let consecutiveGarbage = 0;
    while (!this.stopped) {
      try {
        if (this.relistRequested) {
          this.relistRequested = false;
          needList = true;
        }
        if (needList) {
          this.setState('listing');
          await this.list();
          needList = false;
          this.stats.failures = 0;
          this.syncedResolve();
        }
        this.setState('watching');
        const started = this.clock.now();
        const eventsBefore = this.stats.events + this.stats.bookmarks;
        const outcome = await this.watchOnce();
        if (outcome === 'stopped') break;
        // Held lines are applied before anything else: the next watch resumes from their resourceVersion.
        if (outcome === 'relist' || !this.drain()) {
          this.relistRequested = false;
          needList = true;
          continue;
        }
        if (outcome === 'gone') {
          this.stats.gone++;
          needList = true;
          continue;
        }
        if (outcome === 'stalled') {
          this.stats.stalls++;
          consecutiveStalls++;
          this.options.log?.warn('watch stalled', { resource: this.options.resource, stalls: consecutiveStalls, resourceVersion: this.stats.resourceVersion });
          if (consecutiveStalls >= 2) {
            consecutiveStalls = 0;
            needList = true;
          }
          continue;
        }
        const progressed = this.stats.events + this.stats.bookmarks > eventsBefore;
        if (progressed) consecutiveStalls = 0;
        if (outcome === 'garbage') {
          consecutiveGarbage++;
          // Re-watch at once the first time; garbage again and again backs off like any failure.
          if (consecutiveGarbage > 1)
            await this.failed(new WindeckError('PARSE_FAILED', `The ${this.options.resource} watch keeps sending lines that are not watch events.`));
          continue;
        }
        consecutiveGarbage = 0;
        // A watch that ends at once without a single event is a failure too (no hot loop on a flapping server).
        if (!progressed && this.clock.now() - started < 1_000) {
          await this.failed(new WindeckError('UNREACHABLE', `The ${this.options.resource} watch ended immediately.`));
          continue;
        }
        this.stats.failures = 0;
      } catch (error) {
        if (this.stopped) break;
        if (isGone(error)) {
          this.stats.gone++;
          needList = true;
          continue;
        }
        if (isAuthStop(error)) {
          this.error = error as WindeckError;
          this.stats.lastError = this.error.message;
          this.options.log?.error('inventory stopped: not allowed', { resource: this.options.resource, code: this.error.code });
          this.setState('failed');
          this.syncedReject(this.error);
          return;
        }
        await this.failed(error);
      }
    }
  }

  private async failed(error: unknown): Promise<void> {
    const e = isWindeckError(error) ? (error as WindeckError) : new WindeckError('INTERNAL', String((error as Error)?.message ?? error));
    this.stats.failures++;
    this.stats.failedAttempts++;
    this.stats.lastError = e.message;
    this.error = e;
    const delay = this.backoffDelay(this.stats.failures);
    this.options.log?.warn('inventory retry', { resource: this.options.resource, failures: this.stats.failures, delayMs: delay, code: e.code });
    this.setState('backoff');
    await this.sleep(delay);
  }

  private async list(signal?: AbortSignal): Promise<void> {
    if (this.stats.lists > 0) this.stats.relists++;
    this.stats.lists++;
    const items = new Map<string, T>();
    let cont: string | null = null;
    let rv = '';
    const controller = new AbortController();
    this.current = controller;
    const joined = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    // The next page is asked for as soon as this one's body is read (its continue token is in the head), so the
    // API server produces it while this one is parsed and projected. Pages asked for ahead are keyed by their
    // token: one whose token is not the parsed continue is aborted, and the right page asked for instead.
    const ahead = new Map<string, { page: Promise<ListPage<T>>; abort: AbortController }>();
    const dropAhead = () => {
      for (const a of ahead.values()) a.abort.abort();
      ahead.clear();
    };
    const fetchPage = (token: string | null): { page: Promise<ListPage<T>>; abort: AbortController } => {
      const abort = new AbortController();
      const page = this.options.client.listPage(
        this.options.path,
        {
          limit: this.options.pageSize ?? KUBE_LIST_PAGE_SIZE,
          continue: token,
          ...(this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {}),
          ...(this.options.fieldSelector ? { fieldSelector: this.options.fieldSelector } : {}),
        },
        this.options.project,
        {
          signal: AbortSignal.any([joined, abort.signal]),
          onContinue: (next) => {
            if (!next || joined.aborted || ahead.has(next)) return;
            const fetched = fetchPage(next);
            fetched.page.catch(() => undefined);
            ahead.set(next, fetched);
          },
        },
      );
      return { page, abort };
    };
    try {
      for (;;) {
        let page: ListPage<T>;
        try {
          const taken = cont !== null ? ahead.get(cont) : undefined;
          if (taken) ahead.delete(cont as string);
          for (const [token, a] of ahead) {
            // Anything else asked for ahead is not the page after this one.
            if (taken === undefined || token === cont) {
              a.abort.abort();
              ahead.delete(token);
            }
          }
          page = await (taken ?? fetchPage(cont)).page;
        } catch (error) {
          dropAhead();
          if (isGone(error) && cont && this.stats.listRestarts < 3 + this.stats.lists) {
            // The continue token expired mid-list: start over from a fresh snapshot.
            this.stats.listRestarts++;
            items.clear();
            cont = null;
            continue;
          }
          throw error;
        }
        this.stats.pages++;
        for (const item of page.items) items.set(this.options.keyOf(item), item);
        rv = page.resourceVersion || rv;
        this.options.onListProgress?.(items.size, page.remainingItemCount);
        if (!page.continue) {
          dropAhead();
          break;
        }
        cont = page.continue;
      }
    } finally {
      dropAhead();
      if (this.current === controller) this.current = null;
    }
    // Held watch lines predate this list: it replaces them.
    this.dropHeld();
    this.relistRequested = false;
    this.cache.clear();
    for (const [k, v] of items) this.cache.set(k, v);
    this.stats.resourceVersion = rv;
    this.stats.items = this.cache.size;
    this.stats.listedAt = this.clock.now();
    this.stats.lastActivityAt = this.stats.listedAt;
    this.options.onChange?.({ type: 'replace', items: this.cache });
  }

  private watchTimeout(): number {
    if (this.options.watchTimeoutSeconds) return this.options.watchTimeoutSeconds();
    return Math.round(KUBE_WATCH_TIMEOUT_MIN_S + this.random() * (KUBE_WATCH_TIMEOUT_MAX_S - KUBE_WATCH_TIMEOUT_MIN_S));
  }

  private async watchOnce(): Promise<WatchOutcome> {
    const controller = new AbortController();
    this.current = controller;
    let stalled = false;
    let res: http.IncomingMessage | null = null;
    const idleMs = this.options.idleMs ?? KUBE_WATCH_IDLE_MS;
    const interval = this.options.watchdogIntervalMs ?? KUBE_WATCHDOG_INTERVAL_MS;
    let lastActivity = this.clock.now();
    const coalesce = this.options.coalesceMs !== undefined;
    let timer: { cancel(): void } | null = null;
    const watchdog = () => {
      timer = this.clock.setTimeout(() => {
        if (this.clock.now() - lastActivity >= idleMs) {
          stalled = true;
          controller.abort();
          res?.destroy();
          return;
        }
        watchdog();
      }, interval);
    };
    try {
      res = await this.options.client.watch(
        this.options.path,
        {
          resourceVersion: this.stats.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: this.watchTimeout(),
          ...(this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {}),
          ...(this.options.fieldSelector ? { fieldSelector: this.options.fieldSelector } : {}),
        },
        { signal: controller.signal },
      );
      this.stats.watches++;
      lastActivity = this.clock.now();
      watchdog();
      for await (const lines of watchChunks(res)) {
        lastActivity = this.clock.now();
        this.stats.lastActivityAt = lastActivity;
        let garbage = 0;
        for (const line of lines) {
          if (coalesce && line !== null && garbage === 0) {
            const name = eventLineName(line);
            if (name !== null) {
              this.stats.events++;
              if (!this.hold(name, line)) return 'relist';
              continue;
            }
          }
          const ev = line === null ? null : parseEvent(line, this.unreadArrays);
          if (ev === null) {
            garbage++;
            continue;
          }
          // After a garbage line, nothing more is applied: the re-watch from the last good resourceVersion replays
          // it all, including whatever the broken line was. The rest of the chunk is only counted.
          if (garbage > 0) continue;
          // Anything valid from the server means the connection works again.
          this.stats.failures = 0;
          // Held lines came first: applied before this one (order of changes and of resourceVersions).
          if (this.held.size && !this.drain()) return 'relist';
          if (ev.type === 'BOOKMARK') {
            const rv = rvOf(ev.object);
            if (rv) this.stats.resourceVersion = rv;
            this.stats.bookmarks++;
            continue;
          }
          if (ev.type === 'ERROR') {
            const st = ev.object as { code?: number; reason?: string; message?: string };
            if (st?.code === 410 || st?.reason === 'Expired' || st?.reason === 'Gone') return 'gone';
            throw new KubeStatusError(
              'REMOTE_FAILED',
              `The ${this.options.resource} watch failed: ${st?.message ?? 'error event'}`,
              st?.code ?? 500,
              st?.reason ?? null,
            );
          }
          const rv = rvOf(ev.object);
          const item = this.options.project(ev.object);
          this.stats.events++;
          if (rv) this.stats.resourceVersion = rv;
          if (item === null) continue;
          this.apply(ev.type, this.options.keyOf(item), item);
          this.stats.items = this.cache.size;
        }
        if (garbage > 0) {
          this.stats.garbageLines += garbage;
          this.options.log?.warn('watch sent garbage lines', { resource: this.options.resource, lines: garbage, total: this.stats.garbageLines });
          return 'garbage';
        }
      }
      return stalled ? 'stalled' : this.stopped ? 'stopped' : this.relistRequested ? 'relist' : 'ended';
    } catch (error) {
      if (this.stopped) return 'stopped';
      if (this.relistRequested) return 'relist';
      if (stalled) return 'stalled';
      if (res && !isWindeckError(error)) {
        // The stream broke after it started (connection reset): a network failure.
        throw new WindeckError('UNREACHABLE', `The ${this.options.resource} watch connection broke: ${(error as Error).message}`);
      }
      throw error;
    } finally {
      (timer as { cancel(): void } | null)?.cancel();
      if (this.current === controller) this.current = null;
      if (res && !res.destroyed) res.destroy();
    }
  }
}
