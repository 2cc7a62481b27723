import { EventBus } from './lib/event-bus';
import { createLogger, fileSink, type LogLevel, type LogSink, type Logger } from './lib/log';
import { logDir, storePath } from './lib/paths';
import { systemClock, type Clock } from './lib/clock';
import type { SecretStore } from './lib/secret-store';
import { openStore, type OpenedStore } from './store/database';
import { ClustersRepo } from './store/repos/clusters';
import { NodesRepo } from './store/repos/nodes';
import { SettingsRepo } from './store/repos/settings';
import { AuditRepo } from './store/repos/audit';
import { FindingsRepo } from './store/repos/findings';
import { OperationsRepo } from './store/repos/operations';
import { OperationRunner } from './operations/runner';
import { createDispatch, type CallContext, type Dispatch } from './rpc/dispatch';
import { HANDLERS } from './rpc/handlers';
import type { HostKind } from '../../shared/contract/methods/app';
import type { StoreChanged } from '../../shared/contract/events';
import { OPERATION_SHUTDOWN_GRACE_MS } from '../../shared/domain/limits';
import { processAlive } from './lib/process-alive';

export interface ServicesConfig {
  home: string;
  host: HostKind;
  version: string;
  logSink?: LogSink;
  logLevel?: LogLevel;
  clock?: Clock;
  secretStore?: SecretStore | null;
  /** Read-only of the network: only the store is used (`--offline`). */
  offline?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface Disposable {
  dispose(): Promise<void> | void;
}

/** What every service and handler reaches: the store, repos, operations, events, ports. */
export interface ServiceCore {
  readonly config: ServicesConfig;
  readonly home: string;
  readonly host: HostKind;
  readonly version: string;
  readonly offline: boolean;
  readonly store: OpenedStore;
  readonly repos: {
    clusters: ClustersRepo;
    nodes: NodesRepo;
    settings: SettingsRepo;
    audit: AuditRepo;
    findings: FindingsRepo;
    operations: OperationsRepo;
  };
  readonly ops: OperationRunner;
  readonly events: EventBus;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secretStore: SecretStore | null;
  /** A per-domain singleton (an SSH pool, an inventory manager), created on first use, disposed with the services. */
  lazy<T>(key: string, factory: (core: ServiceCore) => T): T;
  /** Register something to dispose at shutdown (servers, watches, timers). */
  own(disposable: Disposable): void;
  /** Tell every host that stored data changed. */
  changed(scopes: StoreChanged['scopes'], cluster?: string | null, node?: string | null): void;
}

export interface Services {
  core: ServiceCore;
  dispatch: Dispatch;
  events: EventBus;
  dispose(): Promise<void>;
}


/** Composition root: config + ports in, `{ dispatch, events, dispose }` out. Never imports electron. */
export function createServices(config: ServicesConfig): Services {
  const clock = config.clock ?? systemClock;
  const sink = config.logSink ?? fileSink(logDir(config.home));
  const log = createLogger(sink, 'windeck', config.logLevel ?? 'info', () => clock.now());
  const store = openStore(storePath(config.home), { now: () => clock.now() });
  if (store.notice) log.warn('store notice', { notice: store.notice });
  const events = new EventBus();
  const operations = new OperationsRepo(store.db);
  const interrupted = operations.markInterrupted(clock.now(), processAlive);
  if (interrupted > 0) log.info('operations interrupted by an earlier exit marked failed', { count: interrupted });
  const ops = new OperationRunner(operations, events, log.child('ops'), () => clock.now());

  const singletons = new Map<string, unknown>();
  const owned: Disposable[] = [];
  const core: ServiceCore = {
    config,
    home: config.home,
    host: config.host,
    version: config.version,
    offline: config.offline ?? false,
    store,
    repos: {
      clusters: new ClustersRepo(store.db),
      nodes: new NodesRepo(store.db),
      settings: new SettingsRepo(store.db),
      audit: new AuditRepo(store.db),
      findings: new FindingsRepo(store.db),
      operations,
    },
    ops,
    events,
    log,
    clock,
    secretStore: config.secretStore ?? null,
    lazy<T>(key: string, factory: (c: ServiceCore) => T): T {
      if (!singletons.has(key)) {
        const value = factory(core);
        singletons.set(key, value);
        if (value && typeof (value as Partial<Disposable>).dispose === 'function') owned.push(value as unknown as Disposable);
      }
      return singletons.get(key) as T;
    },
    own(disposable) {
      owned.push(disposable);
    },
    changed(scopes, cluster = null, node = null) {
      events.emit('store:changed', { scopes, cluster, node, at: clock.now() });
    },
  };

  const dispatch = createDispatch(HANDLERS, core);
  let disposed = false;
  return {
    core,
    dispatch,
    events,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await ops.dispose(OPERATION_SHUTDOWN_GRACE_MS);
      for (const d of owned.reverse()) {
        try {
          await d.dispose();
        } catch (error) {
          log.warn('dispose failed', { error: String(error) });
        }
      }
      store.close();
    },
  };
}

export type { CallContext };
