/**
 * The layout of a Windeck bundle (DESIGN.md section 6): which node a member belongs to, which probe produced it,
 * and which members are Windeck's own outputs (listed, not re-diagnosed).
 *
 *   manifest.json  findings.json  report.md  cluster/...  nodes/<node>/node.json
 *   nodes/<node>/probes/<probe>.raw | .json | .meta.json  nodes/<node>/logs/<name>.log[.gz]  nodes/<node>/files/<name>
 */
import type { InputKind } from '../../../shared/parse/classify';

export interface MemberRole {
  node: string | null;
  probeId: string | null;
  forcedKind: InputKind | null;
}

/** The role of a member path inside a Windeck bundle. */
export function bundleMemberRole(innerPath: string): MemberRole {
  const p = innerPath.replace(/\\/g, '/').replace(/^\.\//, '');
  if (p === 'manifest.json') return { node: null, probeId: null, forcedKind: 'windeck-manifest' };
  if (p === 'findings.json') return { node: null, probeId: null, forcedKind: 'windeck-findings' };
  if (p === 'report.md') return { node: null, probeId: null, forcedKind: 'windeck-report' };
  const m = /^nodes\/([^/]+)\/(.*)$/.exec(p);
  if (!m) return { node: null, probeId: null, forcedKind: null };
  const node = m[1]!;
  const rest = m[2]!;
  const probe = /^probes\/([^/]+?)\.(raw|json|meta\.json)$/.exec(rest);
  if (probe) {
    if (probe[2] === 'raw') return { node, probeId: probe[1]!, forcedKind: null };
    return { node, probeId: null, forcedKind: probe[2] === 'json' ? 'windeck-probe-result' : 'windeck-probe-meta' };
  }
  return { node, probeId: null, forcedKind: null };
}

/** True when a manifest text is a Windeck bundle manifest. */
export function isBundleManifest(text: string): boolean {
  try {
    const v = JSON.parse(text.replace(/^\uFEFF/, '')) as { format?: unknown };
    return v.format === 'windeck-bundle';
  } catch {
    return false;
  }
}
