import type http from 'node:http';
import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import {
  KUBE_BACKOFF_INITIAL_MS,
  KUBE_BACKOFF_MAX_MS,
  KUBE_LIST_PAGE_SIZE,
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
  onState?(state: ReflectorState, stats: ReflectorStats, error: WindeckError | null): void;
  /** Progress of a list: items so far and the server's estimate of the rest. */
  onListProgress?(items: number, remaining: number | null): void;
}

type WatchOutcome = 'ended' | 'stalled' | 'garbage' | 'gone' | 'stopped';

function isGone(error: unknown): boolean {
  return error instanceof KubeStatusError && error.status === 410;
}

function isAuthStop(error: unknown): boolean {
  return isWindeckError(error) && ((error as WindeckError).code === 'AUTH_FAILED' || (error as WindeckError).code === 'PERMISSION_DENIED');
}

/** A watch event line, or null when the line is not one (not JSON, no known type, no object). */
function parseEvent(line: string, unread: readonly string[]): { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: object } | null {
  let ev: { type?: unknown; object?: unknown };
  try {
    ev = JSON.parse(dropUnreadArrays(line, unread));
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
          const key = this.options.keyOf(item);
          if (ev.type === 'DELETED') {
            if (this.cache.delete(key)) this.options.onChange?.({ type: 'delete', key });
          } else {
            this.cache.set(key, item);
            this.options.onChange?.({ type: 'upsert', key, item });
          }
          this.stats.items = this.cache.size;
        }
        if (garbage > 0) {
          this.stats.garbageLines += garbage;
          this.options.log?.warn('watch sent garbage lines', { resource: this.options.resource, lines: garbage, total: this.stats.garbageLines });
          return 'garbage';
        }
      }
      return stalled ? 'stalled' : this.stopped ? 'stopped' : 'ended';
    } catch (error) {
      if (this.stopped) return 'stopped';
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
