import { WindeckError, isWindeckError } from '../../../shared/contract/errors';
import type { NodeSummary } from '../../../shared/domain/node';
import { kubeInventory, type KubeTarget } from '../../services/kube/inventory';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';
import type { CliIo } from '../io';
import { textTable } from '../text-table';

/**
 * `windeck nodes` (DESIGN.md section 10): a live sync of the context (an `inventory-sync` operation, progress on
 * stderr) written to the store, then the node rows from the store. When the cluster does not answer, the
 * stored rows are shown with their age on stderr; exit 2 only when nothing is stored.
 * `--approve-exec` approves the exact exec credential plugin the context names (path, SHA-256, arguments).
 */

/** Failures after which stored data is still worth showing (the cluster did not answer, or refused us). */
const FALLBACK_CODES = new Set(['UNREACHABLE', 'TIMEOUT', 'AUTH_FAILED', 'PERMISSION_DENIED', 'REMOTE_FAILED']);

export function targetOf(io: CliIo): KubeTarget {
  return { kubeconfig: io.args.string('--kubeconfig') ?? null, context: io.args.string('--context') ?? null };
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} days`;
}

function table(rows: NodeSummary[]): string {
  const head = ['NAME', 'OS', 'READY', 'HEALTH', 'BUILD', 'RELEASE', 'KUBELET', 'RUNTIME', 'INTERNAL-IP', 'PODS', 'REASONS'];
  const cells = rows.map((n) => [
    n.name,
    n.os,
    n.ready === null ? '?' : n.ready ? 'yes' : 'no',
    n.health,
    n.windowsBuild === null ? '-' : String(n.windowsBuild),
    n.windowsRelease ?? '-',
    n.kubeletVersion ?? '-',
    n.containerRuntime ?? '-',
    n.internalIP ?? '-',
    String(n.podCount),
    n.reasons.length ? n.reasons.join('; ').slice(0, 120) : '-',
  ]);
  return textTable(head, cells).join('\n');
}

async function approveExec(io: CliIo, target: KubeTarget): Promise<void> {
  const inventory = kubeInventory(io.services().core);
  const found = inventory.execPlugin(target);
  if (!found) {
    io.err(`Context "${inventory.resolve(target).ctx.contextName}" uses no exec credential plugin; nothing to approve.`);
    return;
  }
  const fp = inventory.approveExec(target)!;
  io.err(
    [
      `Approved the credential plugin of user "${found.ctx.userName ?? ''}" (${found.ctx.sourceFile}):`,
      `  executable: ${fp.path}`,
      `  sha256:     ${fp.sha256}`,
      `  arguments:  ${fp.args.length ? fp.args.join(' ') : '(none)'}`,
      `  env names:  ${fp.envNames.length ? fp.envNames.join(', ') : '(none)'}`,
      'A different executable, contents, arguments or environment needs a new approval.',
    ].join('\n'),
  );
}

export async function runNodes(io: CliIo): Promise<number> {
  const target = targetOf(io);
  const core = io.services().core;
  const inventory = kubeInventory(core);
  if (io.args.bool('--approve-exec')) await approveExec(io, target);
  let clusterId: string | null = null;
  let failure: WindeckError | null = null;
  if (!io.args.bool('--offline')) {
    const { ctx, clusterId: id } = inventory.resolve(target);
    clusterId = id;
    for (const w of ctx.warnings) io.err(`windeck: warning: ${w}`);
    const stop = io.showProgress();
    try {
      await inventory.syncOperation(target, { signal: io.signal }).done;
    } catch (error) {
      if (!isWindeckError(error) || !FALLBACK_CODES.has((error as WindeckError).code)) throw error;
      failure = error as WindeckError;
    } finally {
      stop();
    }
  } else {
    clusterId = inventory.clusterIdOf(target);
  }
  const listed = await io.call('nodes:list', clusterId ? { cluster: clusterId } : {});
  const rows = listed.nodes;
  if (failure || io.args.bool('--offline')) {
    if (rows.length === 0 || !listed.cluster) {
      if (failure) throw failure;
      throw new WindeckError('UNREACHABLE', 'Offline, and the store holds no nodes for this cluster yet. Run `windeck nodes` once while the cluster answers.');
    }
    const syncedAt = listed.cluster.syncedAt;
    const age = syncedAt === null ? 'an unknown time' : `${formatAge(core.clock.now() - syncedAt)}`;
    io.err(`windeck: ${failure ? `${failure.message} ` : ''}Showing stored data of context "${listed.cluster.context}" from ${age} ago.`);
  }
  io.emit(rows, () => (rows.length ? table(rows) : `No nodes in context "${listed.cluster?.context ?? ''}".`));
  return EXIT.OK;
}

export const nodesCommand: CommandDef = {
  name: 'nodes',
  summary: 'Node inventory with health (live, else from the store)',
  usage: 'windeck nodes [--kubeconfig PATH] [--context NAME] [--offline] [--json] [--approve-exec]',
  flags: { '--approve-exec': 'boolean' },
  run: runNodes,
};
