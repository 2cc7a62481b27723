import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { WindeckError } from '../../../shared/contract/errors';
import type { KubeconfigFileInfo, KubeconfigOrigin, KubeContext } from '../../../shared/contract/methods/clusters';
import { clusterIdFor } from '../store/repos/clusters';
import { fingerprintExec, type ExecApprovals } from './exec-credential';
import { kubeconfigFiles, loadKubeconfig, resolveContext, type LoadedKubeconfig } from './kubeconfig';
import type { KubeTarget } from './inventory';

/** A context with the target that reaches it (`kubeconfig: null` = the KUBECONFIG / default set, merged like kubectl). */
export interface ContextEntry {
  context: KubeContext;
  target: KubeTarget;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Describe one loaded kubeconfig set's contexts, without credentials. */
function describeContexts(
  loaded: LoadedKubeconfig,
  origin: KubeconfigOrigin,
  explicit: string | null,
  approvals: ExecApprovals,
  env: NodeJS.ProcessEnv,
): ContextEntry[] {
  const out: ContextEntry[] = [];
  for (const [name, entry] of loaded.contexts) {
    const clusterEntry = entry.cluster ? loaded.clusters.get(entry.cluster) : undefined;
    let problem: string | null = null;
    let exec: KubeContext['exec'] = null;
    try {
      const ctx = resolveContext(loaded, name);
      if (ctx.exec) {
        exec = { command: ctx.exec.command, approved: false };
        try {
          exec.approved = approvals.isApproved(fingerprintExec(ctx.exec, env).fingerprint);
        } catch (error) {
          problem = message(error);
        }
      }
    } catch (error) {
      problem = message(error);
    }
    out.push({
      context: {
        clusterId: clusterIdFor(entry.source, name),
        name,
        cluster: entry.cluster ?? null,
        server: clusterEntry?.server ?? null,
        user: entry.user ?? null,
        namespace: entry.namespace || 'default',
        kubeconfigPath: entry.source,
        origin,
        current: loaded.currentContext === name,
        exec,
        problem,
      },
      target: { kubeconfig: explicit, context: name },
    });
  }
  return out;
}

/**
 * Every kubeconfig file the host knows (the KUBECONFIG list or ~/.kube/config, then the added files) and their
 * contexts; the first definition of a context id wins. Files that cannot be read say why instead of failing the list.
 */
export function listKubeContexts(options: { env: NodeJS.ProcessEnv; added: readonly string[]; approvals: ExecApprovals }): {
  files: KubeconfigFileInfo[];
  entries: ContextEntry[];
} {
  const files: KubeconfigFileInfo[] = [];
  const entries: ContextEntry[] = [];
  const seen = new Set<string>();
  const push = (list: ContextEntry[]) => {
    for (const e of list) {
      if (seen.has(e.context.clusterId)) continue;
      seen.add(e.context.clusterId);
      entries.push(e);
    }
  };
  const base = kubeconfigFiles({ env: options.env });
  const origin: KubeconfigOrigin = base.origin === 'env' ? 'env' : 'default';
  const baseSet = new Set(base.files);
  for (const file of base.files) {
    const exists = fs.existsSync(file);
    let error: string | null = null;
    if (exists) {
      try {
        loadKubeconfig({ explicitPath: file, env: options.env });
      } catch (e) {
        error = message(e);
      }
    }
    files.push({ path: file, origin, exists, error });
  }
  if (files.some((f) => f.exists && f.error === null)) {
    try {
      push(describeContexts(loadKubeconfig({ env: options.env }), origin, null, options.approvals, options.env));
    } catch {
      // a file of the set is broken: its row above says why
    }
  }
  for (const file of options.added) {
    if (baseSet.has(file)) continue;
    const exists = fs.existsSync(file);
    let error: string | null = exists ? null : 'The file does not exist any more.';
    if (exists) {
      try {
        push(describeContexts(loadKubeconfig({ explicitPath: file, env: options.env }), 'added', file, options.approvals, options.env));
      } catch (e) {
        error = message(e);
      }
    }
    files.push({ path: file, origin: 'added', exists, error });
  }
  return { files, entries };
}

/**
 * Check a path the user wants to add: absolute (or `~/...`), an existing regular file that parses as a kubeconfig
 * with at least one context. Returns the normalized absolute path. Errors name the file and the problem.
 */
export function validateKubeconfigPath(input: string, env: NodeJS.ProcessEnv): { path: string; loaded: LoadedKubeconfig } {
  let p = input.trim();
  if (p === '~' || p.startsWith('~/')) p = path.join(env.HOME || env.USERPROFILE || os.homedir(), p.slice(1));
  if (!path.isAbsolute(p)) {
    throw new WindeckError(
      'VALIDATION',
      `"${input}" is not an absolute path. Give the full path of the kubeconfig file on the machine Windeck runs on (for example /home/me/.kube/prod.yaml).`,
      { path: input },
    );
  }
  p = path.normalize(p);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WindeckError('NOT_FOUND', `There is no file ${p}.`, { path: p });
    throw new WindeckError('VALIDATION', `kubeconfig ${p} cannot be read: ${code ?? message(error)}.`, { path: p });
  }
  if (stat.isDirectory()) throw new WindeckError('VALIDATION', `${p} is a directory; give the kubeconfig file inside it.`, { path: p });
  // loadKubeconfig names the file, the YAML line and column, or the missing/ill-typed field.
  const loaded = loadKubeconfig({ explicitPath: p, env });
  if (loaded.contexts.size === 0) throw new WindeckError('VALIDATION', `kubeconfig ${p} defines no contexts, so there is nothing to connect to.`, { path: p });
  return { path: p, loaded };
}
