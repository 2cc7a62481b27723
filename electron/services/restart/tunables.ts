import {
  RESTART_CANCEL_CHECK_TIMEOUT_MS,
  RESTART_DRAIN_TIMEOUT_MS,
  RESTART_GRACE_MS,
  RESTART_LOAD_BALANCER_WAIT_MS,
  RESTART_NETWORK_WAIT_MS,
  RESTART_NODE_READY_WAIT_MS,
  RESTART_PLAN_TTL_MS,
  RESTART_POD_REPLACE_TIMEOUT_MS,
  RESTART_POLL_INTERVAL_MS,
  RESTART_READ_TIMEOUT_MS,
  RESTART_SERVICE_TIMEOUT_MS,
  RESTART_SETTLE_MS,
} from '../../../shared/domain/limits';

/** The restart engine's time limits (defaults from shared/domain/limits.ts; tests shorten them). */
export interface RestartTunables {
  graceMs: number;
  settleMs: number;
  planTtlMs: number;
  serviceTimeoutMs: number;
  podReplaceTimeoutMs: number;
  networkWaitMs: number;
  loadBalancerWaitMs: number;
  nodeReadyWaitMs: number;
  drainTimeoutMs: number;
  readTimeoutMs: number;
  pollMs: number;
  cancelCheckTimeoutMs: number;
}

export const DEFAULT_RESTART_TUNABLES: Readonly<RestartTunables> = {
  graceMs: RESTART_GRACE_MS,
  settleMs: RESTART_SETTLE_MS,
  planTtlMs: RESTART_PLAN_TTL_MS,
  serviceTimeoutMs: RESTART_SERVICE_TIMEOUT_MS,
  podReplaceTimeoutMs: RESTART_POD_REPLACE_TIMEOUT_MS,
  networkWaitMs: RESTART_NETWORK_WAIT_MS,
  loadBalancerWaitMs: RESTART_LOAD_BALANCER_WAIT_MS,
  nodeReadyWaitMs: RESTART_NODE_READY_WAIT_MS,
  drainTimeoutMs: RESTART_DRAIN_TIMEOUT_MS,
  readTimeoutMs: RESTART_READ_TIMEOUT_MS,
  pollMs: RESTART_POLL_INTERVAL_MS,
  cancelCheckTimeoutMs: RESTART_CANCEL_CHECK_TIMEOUT_MS,
};
