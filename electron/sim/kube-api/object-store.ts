import crypto from 'node:crypto';
import { RESOURCES, type KubeObject, type ResourceDef } from './resources';
import { matchLabels, type FieldRequirement, type LabelSelector } from './selectors';

/**
 * The simulator's objects. Generated objects are not kept as objects: an item holds its name, resource version
 * and a shared render function, and is rendered when served (so 150,000 pods cost a few tens of MB, not GBs).
 * An object that is changed becomes materialized (`obj`). Every change gets the next resourceVersion and goes
 * into a bounded history that watches replay from; an older resourceVersion is "expired" (410 Gone).
 */

export interface SimItem {
  key: string;
  namespace: string;
  name: string;
  rv: number;
  /** The object after any change; null while it is still rendered on demand. */
  obj: KubeObject | null;
  /** Shared render function of generated items. */
  gen: ((item: SimItem) => KubeObject) | null;
  /** For pods: spec.nodeName without rendering (fast `spec.nodeName=` selectors). */
  nodeName?: string;
  /** Generator payload (index, owner, ...). */
  data?: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  rv: number;
  type: WatchEventType;
  plural: string;
  obj: KubeObject;
  prev?: KubeObject;
}

export interface ListQuery {
  namespace?: string | null;
  labels?: LabelSelector;
  fields?: FieldRequirement[];
  limit?: number;
  continueToken?: string | null;
}

export interface ListPage {
  items: SimItem[];
  resourceVersion: number;
  continueToken: string | null;
  remainingItemCount: number | null;
}

export class StoreError extends Error {
  constructor(
    readonly code: 400 | 404 | 409 | 410,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface WatchSubscription {
  unsubscribe(): void;
}

export interface Watcher {
  namespace: string | null;
  labels: LabelSelector;
  fields: FieldRequirement[];
  push(type: WatchEventType, obj: KubeObject, rv: number): void;
}

class Collection {
  readonly items = new Map<string, SimItem>();
  /** Keys in apiserver (etcd key) order. */
  keys: string[] = [];
  readonly watchers = new Set<Watcher>();
  constructor(readonly def: ResourceDef) {}
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function encodeContinue(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({ v: 'windeck-sim/1', rv, start: after })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (parsed.v !== 'windeck-sim/1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw new Error('bad');
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    throw new StoreError(400, 'BadRequest', 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export interface ObjectStoreOptions {
  now?: () => number;
  /** How many changes watches can replay; older resourceVersions are expired. */
  historyLimit?: number;
  startRv?: number;
}

export class SimObjectStore {
  private rv: number;
  /** Watches and continue tokens older than this are expired (410). */
  private compactedRv: number;
  private readonly history: StoredEvent[] = [];
  private readonly historyLimit: number;
  private readonly collections = new Map<string, Collection>();
  readonly now: () => number;

  constructor(options: ObjectStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.historyLimit = options.historyLimit ?? 20_000;
    this.rv = options.startRv ?? 1000;
    this.compactedRv = this.rv;
    for (const def of RESOURCES) this.collections.set(def.plural, new Collection(def));
  }

  get resourceVersion(): number {
    return this.rv;
  }

  get oldestResourceVersion(): number {
    return this.compactedRv;
  }

  def(plural: string): ResourceDef {
    return this.coll(plural).def;
  }

  count(plural: string): number {
    return this.coll(plural).items.size;
  }

  private coll(plural: string): Collection {
    const c = this.collections.get(plural);
    if (!c) throw new StoreError(404, 'NotFound', `the server could not find the requested resource (${plural})`);
    return c;
  }

  static keyOf(namespace: string, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  /** The object of an item, with its current resourceVersion. */
  render(item: SimItem): KubeObject {
    if (item.obj) return item.obj;
    const o = item.gen ? item.gen(item) : { metadata: { name: item.name } };
    o.metadata = o.metadata ?? {};
    o.metadata.resourceVersion = String(item.rv);
    return o;
  }

  /**
   * Add generated items in bulk (the initial state): each gets a resourceVersion, no watch events are kept,
   * and history starts after them.
   */
  addGenerated(plural: string, items: Array<Omit<SimItem, 'key' | 'rv'>>): void {
    const c = this.coll(plural);
    for (const it of items) {
      const key = SimObjectStore.keyOf(c.def.namespaced ? it.namespace : '', it.name);
      const item: SimItem = { ...it, key, rv: ++this.rv };
      c.items.set(key, item);
    }
    c.keys = [...c.items.keys()].sort();
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  get(plural: string, namespace: string, name: string): SimItem | null {
    const c = this.coll(plural);
    return c.items.get(SimObjectStore.keyOf(c.def.namespaced ? namespace : '', name)) ?? null;
  }

  getObject(plural: string, namespace: string, name: string): KubeObject | null {
    const item = this.get(plural, namespace, name);
    return item ? structuredClone(this.render(item)) : null;
  }

  /** Create an object (ADDED). Fills uid, creationTimestamp and resourceVersion. */
  create(plural: string, input: KubeObject): KubeObject {
    const c = this.coll(plural);
    const obj = structuredClone(input);
    obj.apiVersion = c.def.group ? `${c.def.group}/${c.def.version}` : c.def.version;
    obj.kind = c.def.kind;
    obj.metadata = obj.metadata ?? {};
    const namespace = c.def.namespaced ? (obj.metadata.namespace ?? 'default') : '';
    if (c.def.namespaced) obj.metadata.namespace = namespace;
    else delete obj.metadata.namespace;
    const name: string = obj.metadata.name;
    if (!name) throw new StoreError(400, 'BadRequest', 'metadata.name is required');
    const key = SimObjectStore.keyOf(namespace, name);
    if (c.items.has(key)) throw new StoreError(409, 'AlreadyExists', `${c.def.plural} "${name}" already exists`);
    obj.metadata.uid = obj.metadata.uid ?? crypto.randomUUID();
    obj.metadata.creationTimestamp = obj.metadata.creationTimestamp ?? new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    const item: SimItem = { key, namespace, name, rv, obj, gen: null, ...(plural === 'pods' ? { nodeName: obj.spec?.nodeName ?? '' } : {}) };
    c.items.set(key, item);
    c.keys.splice(lowerBound(c.keys, key), 0, key);
    this.record(c, { rv, type: 'ADDED', plural, obj });
    return structuredClone(obj);
  }

  /** Change an object in place (MODIFIED). `mutate` receives a private copy. */
  update(plural: string, namespace: string, name: string, mutate: (obj: KubeObject) => void): KubeObject {
    const c = this.coll(plural);
    const item = c.items.get(SimObjectStore.keyOf(c.def.namespaced ? namespace : '', name));
    if (!item) throw new StoreError(404, 'NotFound', `${c.def.plural} "${name}" not found`);
    const prev = this.render(item);
    const obj = structuredClone(prev);
    mutate(obj);
    const rv = ++this.rv;
    obj.metadata = obj.metadata ?? {};
    obj.metadata.resourceVersion = String(rv);
    item.obj = obj;
    item.rv = rv;
    if (plural === 'pods') item.nodeName = obj.spec?.nodeName ?? '';
    this.record(c, { rv, type: 'MODIFIED', plural, obj, prev });
    return structuredClone(obj);
  }

  /** Delete an object (DELETED, carrying its last state). */
  remove(plural: string, namespace: string, name: string): KubeObject {
    const c = this.coll(plural);
    const key = SimObjectStore.keyOf(c.def.namespaced ? namespace : '', name);
    const item = c.items.get(key);
    if (!item) throw new StoreError(404, 'NotFound', `${c.def.plural} "${name}" not found`);
    const obj = structuredClone(this.render(item));
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    c.items.delete(key);
    const at = lowerBound(c.keys, key);
    if (c.keys[at] === key) c.keys.splice(at, 1);
    this.record(c, { rv, type: 'DELETED', plural, obj });
    return obj;
  }

  /** Forget all history: every watch or continue token from before now is expired (a forced 410). */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  private record(c: Collection, ev: StoredEvent): void {
    this.history.push(ev);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedRv = dropped[dropped.length - 1]!.rv;
    }
    for (const w of c.watchers) this.deliver(c, w, ev);
  }

  private deliver(c: Collection, w: Watcher, ev: StoredEvent): void {
    const nowMatches = this.matchesObject(c.def, w, ev.obj);
    if (ev.type === 'MODIFIED' && ev.prev) {
      const before = this.matchesObject(c.def, w, ev.prev);
      if (before && nowMatches) w.push('MODIFIED', ev.obj, ev.rv);
      else if (before) w.push('DELETED', ev.obj, ev.rv);
      else if (nowMatches) w.push('ADDED', ev.obj, ev.rv);
      return;
    }
    if (nowMatches) w.push(ev.type, ev.obj, ev.rv);
  }

  private matchesObject(def: ResourceDef, w: Pick<Watcher, 'namespace' | 'labels' | 'fields'>, obj: KubeObject): boolean {
    if (w.namespace && (obj.metadata?.namespace ?? '') !== w.namespace) return false;
    if (w.labels.length > 0 && !matchLabels(w.labels, obj.metadata?.labels)) return false;
    for (const f of w.fields) {
      const value = fieldValue(def, obj, f.field);
      if ((value === f.value) === f.negate) return false;
    }
    return true;
  }

  /** Item-level match that avoids rendering when the selector only needs name, namespace or nodeName. */
  private matchesItem(def: ResourceDef, q: Required<Pick<ListQuery, 'labels' | 'fields'>>, item: SimItem): boolean {
    let needObject = q.labels.length > 0;
    for (const f of q.fields) {
      let v: string | undefined;
      if (f.field === 'metadata.name') v = item.name;
      else if (f.field === 'metadata.namespace') v = item.namespace;
      else if (f.field === 'spec.nodeName' && item.nodeName !== undefined) v = item.nodeName;
      else {
        needObject = true;
        continue;
      }
      if ((v === f.value) === f.negate) return false;
    }
    if (!needObject) return true;
    return this.matchesObject(def, { namespace: null, labels: q.labels, fields: q.fields }, this.render(item));
  }

  /** Check that every field in a field selector is supported, like kube-apiserver (400 otherwise). */
  checkFields(plural: string, fields: FieldRequirement[]): void {
    const def = this.coll(plural).def;
    for (const f of fields) {
      if (f.field === 'metadata.name' || (f.field === 'metadata.namespace' && def.namespaced)) continue;
      if (!def.fields[f.field]) throw new StoreError(400, 'BadRequest', `field label not supported: ${f.field}`);
    }
  }

  list(plural: string, q: ListQuery): ListPage {
    const c = this.coll(plural);
    const labels = q.labels ?? [];
    const fields = q.fields ?? [];
    this.checkFields(plural, fields);
    let listRv = this.rv;
    let start = 0;
    let end = c.keys.length;
    if (q.namespace && c.def.namespaced) {
      start = lowerBound(c.keys, `${q.namespace}/`);
      end = lowerBound(c.keys, `${q.namespace}0`); // '0' sorts right after '/'
    }
    if (q.continueToken) {
      const token = decodeContinue(q.continueToken);
      if (token.rv < this.compactedRv) {
        throw new StoreError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      listRv = token.rv;
      // Strictly after the last key served.
      start = Math.max(start, lowerBound(c.keys, token.start + '\u0000'));
    }
    const limit = q.limit && q.limit > 0 ? q.limit : Infinity;
    const items: SimItem[] = [];
    let i = start;
    const filtered = labels.length > 0 || fields.length > 0;
    for (; i < end && items.length < limit; i++) {
      const item = c.items.get(c.keys[i]!);
      if (!item) continue;
      if (filtered && !this.matchesItem(c.def, { labels, fields }, item)) continue;
      items.push(item);
    }
    let more = false;
    if (items.length >= limit) {
      for (let j = i; j < end; j++) {
        const item = c.items.get(c.keys[j]!);
        if (item && (!filtered || this.matchesItem(c.def, { labels, fields }, item))) {
          more = true;
          break;
        }
      }
    }
    const last = items[items.length - 1];
    return {
      items,
      resourceVersion: listRv,
      continueToken: more && last ? encodeContinue(listRv, last.key) : null,
      remainingItemCount: more && !filtered ? end - i : null,
    };
  }

  /**
   * Start a watch. With `fromRv` null, the current matching objects arrive first as ADDED (kube semantics for
   * resourceVersion "" and "0"). An expired `fromRv` returns 'expired' and registers nothing.
   */
  watch(plural: string, q: Omit<ListQuery, 'limit' | 'continueToken'> & { fromRv: number | null }, push: Watcher['push']): WatchSubscription | 'expired' {
    const c = this.coll(plural);
    const w: Watcher = { namespace: c.def.namespaced ? (q.namespace ?? null) : null, labels: q.labels ?? [], fields: q.fields ?? [], push };
    this.checkFields(plural, w.fields);
    if (q.fromRv === null) {
      for (const key of c.keys) {
        const item = c.items.get(key);
        if (!item) continue;
        if (w.namespace && item.namespace !== w.namespace) continue;
        if (!this.matchesItem(c.def, { labels: w.labels, fields: w.fields }, item)) continue;
        push('ADDED', this.render(item), item.rv);
      }
    } else {
      if (q.fromRv < this.compactedRv) return 'expired';
      for (const ev of this.history) {
        if (ev.rv <= q.fromRv || ev.plural !== plural) continue;
        this.deliver(c, w, ev);
      }
    }
    c.watchers.add(w);
    return { unsubscribe: () => c.watchers.delete(w) };
  }

  watcherCount(plural?: string): number {
    let n = 0;
    for (const [p, c] of this.collections) if (!plural || p === plural) n += c.watchers.size;
    return n;
  }
}

/** Value of a selectable field of an object ('' when absent, as the API server compares). */
export function fieldValue(def: ResourceDef, obj: KubeObject, field: string): string {
  if (field === 'metadata.name') return obj.metadata?.name ?? '';
  if (field === 'metadata.namespace') return obj.metadata?.namespace ?? '';
  const get = def.fields[field];
  return get ? (get(obj) ?? '') : '';
}
