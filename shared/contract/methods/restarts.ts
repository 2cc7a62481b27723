import { z } from 'zod';
import { TransportKind } from '../errors';
import { method } from '../method';
import { RESTART_STEP_KINDS, POST_CHECK_IDS, RestartComponent, RestartMethod, RestartOutcome } from '../../logic/restart-plan';

/**
 * Guided restarts (DESIGN.md section 7, STYLE.md section 5): plan -> confirm -> grace -> execute.
 * `restarts:plan` runs the pre-checks and answers (as an operation result) a plan with its hash;
 * `restarts:execute` needs that hash plus a confirmation naming the node and the component, waits a cancellable
 * grace period, commits an audit row before the first remote call, restarts in dependency order and post-checks.
 */

const NodeName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a node name is a lower-case DNS name');
const ClusterRef = z.string().min(1).max(2048).optional();
/** Which cluster: a store cluster id, or a kubeconfig (+ context) as the CLI names it; default the active cluster. */
const ClusterTarget = {
  cluster: ClusterRef,
  kubeconfig: z.string().min(1).max(4096).optional(),
  context: z.string().min(1).max(253).optional(),
};
const PlanHash = z.string().regex(/^[0-9a-f]{64}$/, 'a plan hash is 64 hex digits');

/** One command a step runs: what Windeck sends and its hand-typed equivalent. */
export const RestartCommand = z.object({
  via: z.enum(['node', 'kube-api']),
  sent: z.string(),
  equivalent: z.string(),
  mutating: z.boolean(),
});
export type RestartCommand = z.infer<typeof RestartCommand>;

export const RestartStepKind = z.enum(RESTART_STEP_KINDS);
export type RestartStepKind = z.infer<typeof RestartStepKind>;

/** One step of a plan, in execution order. */
export const PlannedStep = z.object({
  index: z.number().int(),
  kind: RestartStepKind,
  /** The component the step restarts (null for cordon, drain, waits). */
  component: RestartComponent.nullable(),
  /** The service name, pod (`namespace/name`), node or networks the step acts on. */
  target: z.string(),
  title: z.string(),
  commands: z.array(RestartCommand),
  /** Milliseconds the step may take before it fails with TIMEOUT. */
  timeoutMs: z.number().int(),
});
export type PlannedStep = z.infer<typeof PlannedStep>;

/** A pre-check: `blocker` stops the plan from running; `warning` is shown before the confirmation. */
export const PreCheck = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['ok', 'info', 'warning', 'blocker']),
  detail: z.string(),
});
export type PreCheck = z.infer<typeof PreCheck>;

export const ServiceState = z.object({
  name: z.string(),
  status: z.string(),
  startType: z.string().nullable(),
  pid: z.number().int().nullable(),
});
export type ServiceState = z.infer<typeof ServiceState>;

/** What the node looked like at one moment (before a restart, after it). Nulls: not known (not asked, or failed). */
export const NodeSnapshot = z.object({
  at: z.number(),
  nodeReady: z.boolean().nullable(),
  unschedulable: z.boolean().nullable(),
  services: z.array(ServiceState),
  hnsNetworks: z.array(z.object({ name: z.string(), type: z.string().nullable() })).nullable(),
  /** Load balancers (HNS policy lists with an ELB policy): kube-proxy's Service rules. */
  loadBalancerCount: z.number().int().nullable(),
  /** The DaemonSet pod of the component, when it runs as one. */
  pod: z.object({ namespace: z.string(), name: z.string(), uid: z.string().nullable(), phase: z.string().nullable(), ready: z.boolean() }).nullable(),
  podCount: z.number().int().nullable(),
  /** Rule ids of the findings the node showed, when the diagnostics engine could run. */
  findings: z.array(z.string()).nullable(),
  /** What could not be read, so a null above is explained. */
  errors: z.array(z.string()),
});
export type NodeSnapshot = z.infer<typeof NodeSnapshot>;

export const DisruptedPod = z.object({ namespace: z.string(), name: z.string(), reason: z.string() });
export type DisruptedPod = z.infer<typeof DisruptedPod>;

/** A restart plan: how the component runs here, pre-checks, disruption, the ordered steps and their commands. */
export const RestartPlan = z.object({
  planHash: PlanHash,
  cluster: z.string().nullable(),
  node: z.string(),
  component: RestartComponent,
  method: RestartMethod,
  /** This node's real name for it: the service name (`kubeproxy` on AKS) or the pod (`namespace/name`). */
  serviceName: z.string().nullable(),
  /** The transport the node was read over (the restart itself picks one again). */
  transport: TransportKind,
  /** How it was detected, in words (nssm AppParameters, DaemonSet name, parent process). */
  layout: z.string(),
  canExecute: z.boolean(),
  /** Why it cannot run (a bare process, a blocker), in words; null when it can. */
  refusal: z.string().nullable(),
  steps: z.array(PlannedStep),
  preChecks: z.array(PreCheck),
  disruption: z.object({ summary: z.string(), services: z.array(z.string()), pods: z.array(DisruptedPod) }),
  before: NodeSnapshot,
  options: z.object({ cordon: z.boolean(), drain: z.boolean() }),
  createdAt: z.number(),
  /** Epoch ms after which `restarts:execute` refuses this plan (plan again). */
  expiresAt: z.number(),
});
export type RestartPlan = z.infer<typeof RestartPlan>;

export const StepResult = z.object({
  index: z.number().int(),
  kind: RestartStepKind,
  component: RestartComponent.nullable(),
  target: z.string(),
  title: z.string(),
  state: z.enum(['succeeded', 'failed', 'skipped', 'cancelled']),
  startedAt: z.number().nullable(),
  durationMs: z.number().int().nullable(),
  /** What happened, in words (the remote error when it failed). */
  detail: z.string(),
  commands: z.array(RestartCommand),
});
export type StepResult = z.infer<typeof StepResult>;

export const PostCheck = z.object({
  id: z.enum(POST_CHECK_IDS),
  title: z.string(),
  status: z.enum(['passed', 'failed', 'skipped']),
  critical: z.boolean(),
  detail: z.string(),
});
export type PostCheck = z.infer<typeof PostCheck>;

/** The outcome of one restart; `windeck restart --json` prints it. */
export const RestartResult = z.object({
  node: z.string(),
  cluster: z.string().nullable(),
  component: RestartComponent,
  method: RestartMethod,
  serviceName: z.string().nullable(),
  /** The transport the restart ran over. */
  transport: TransportKind,
  outcome: RestartOutcome,
  /** One sentence: recovered, partially recovered (what is still wrong), failed (what happened), cancelled. */
  summary: z.string(),
  steps: z.array(StepResult),
  postChecks: z.array(PostCheck),
  stillWrong: z.array(z.string()),
  nextSteps: z.array(z.string()),
  before: NodeSnapshot,
  after: NodeSnapshot.nullable(),
  auditId: z.number().int(),
  operationId: z.string(),
  planHash: PlanHash,
  startedAt: z.number(),
  finishedAt: z.number(),
});
export type RestartResult = z.infer<typeof RestartResult>;

/** An audit row of a restart, newest first. */
export const RestartAuditEntry = z.object({
  id: z.number().int(),
  at: z.number(),
  cluster: z.string().nullable(),
  node: z.string().nullable(),
  action: z.string(),
  outcome: z.string().nullable(),
  finishedAt: z.number().nullable(),
  detail: z.unknown(),
});
export type RestartAuditEntry = z.infer<typeof RestartAuditEntry>;

const Started = z.object({ operationId: z.string() });

export const restartMethods = {
  /**
   * Detect how the component runs on the node and run the pre-checks (read-only: nothing on the node or in the
   * cluster changes). Returns an operation whose result is a `RestartPlan`. NOT_FOUND: unknown cluster or node;
   * UNREACHABLE/TIMEOUT/AUTH_FAILED/HOST_KEY_*: the node or cluster could not be read.
   */
  'restarts:plan': method({
    input: z
      .object({
        ...ClusterTarget,
        node: NodeName,
        component: RestartComponent,
        /** Cordon the node before the restart (uncordoned again when it recovers). */
        cordon: z.boolean().optional(),
        /** Cordon and evict the pods that are not DaemonSet pods first (implies cordon). */
        drain: z.boolean().optional(),
        /** How to reach the node (default: the configured order, `auto`). */
        transport: z.enum(['auto', 'ssh', 'winrm']).optional(),
      })
      .strict(),
    output: Started,
    description: 'Plan a guided restart (operation; result: the plan with its hash, pre-checks and every command).',
  }),
  /**
   * Run a plan. Needs the plan hash and a confirmation naming node and component exactly; waits `graceMs`
   * (cancellable), commits an audit row, restarts in dependency order, post-checks for `settleMs`. Returns an
   * operation whose result is a `RestartResult`. NOT_FOUND: unknown or expired plan; VALIDATION: the
   * confirmation does not match; UNSUPPORTED: the plan cannot run (bare process, blocker); CONFLICT: another
   * mutating operation runs on the node, or the node changed since the plan.
   */
  'restarts:execute': method({
    input: z
      .object({
        planHash: PlanHash,
        confirm: z.object({ node: z.string().min(1).max(253), component: z.string().min(1).max(64) }).strict(),
        /** Cancellable countdown before the first change, ms (default RESTART_GRACE_MS). */
        graceMs: z.number().int().min(0).max(60_000).optional(),
        /** How long the component must stay up after it came back, ms (default RESTART_SETTLE_MS). */
        settleMs: z.number().int().min(0).max(600_000).optional(),
      })
      .strict(),
    output: Started,
    mutating: true,
    description: 'Execute a confirmed restart plan (operation; result: outcome, steps, before/after, audit id).',
  }),
  /**
   * The result of a finished restart by its operation id, read from its audit row: also for a cancelled or
   * timed-out restart, whose operation carries only the CANCELLED/TIMEOUT error. NOT_FOUND while it still runs
   * (or when no restart ran under that id).
   */
  'restarts:result': method({
    input: z.object({ operationId: z.string().regex(/^op-[a-z0-9-]{6,64}$/, 'an operation id looks like op-...') }).strict(),
    output: RestartResult,
    description: 'The outcome of a finished restart (also when cancelled), from its audit row.',
  }),
  /** Audit rows of restarts (one node, or all), newest first. */
  'restarts:history': method({
    input: z.object({ cluster: ClusterRef, node: z.string().min(1).max(253).optional(), limit: z.number().int().min(1).max(500).optional() }).strict(),
    output: z.array(RestartAuditEntry),
    description: 'Audit rows of restarts, newest first.',
  }),
};
