import type { Finding } from '../../domain/finding';
import type { ClusterFacts, ClusterRule } from './cluster-facts';
import { nodeNotReadyRule } from './node-not-ready';
import { serviceBackendsOver64Rule } from './service-backends-over-64';
import { versionSkewRule } from './version-skew';
import { windowsBuildUnsupportedRule } from './windows-build-unsupported';
import { workloadOsSelectorMissingRule } from './workload-os-selector-missing';
import { workloadUnsupportedFieldRule } from './workload-unsupported-field';

/** The rules that need only Kubernetes API data, in catalogue order. */
export const CLUSTER_RULES: readonly ClusterRule[] = [
  nodeNotReadyRule,
  windowsBuildUnsupportedRule,
  workloadUnsupportedFieldRule,
  workloadOsSelectorMissingRule,
  serviceBackendsOver64Rule,
  versionSkewRule,
];

/** The rules `windeck lint-workloads` runs. */
export const WORKLOAD_RULES: readonly ClusterRule[] = [workloadUnsupportedFieldRule, workloadOsSelectorMissingRule, serviceBackendsOver64Rule];

/** Run rules over cluster facts. A rule that throws (a bug) becomes no findings for that rule, not a crash. */
export function evaluateClusterRules(facts: ClusterFacts, rules: readonly ClusterRule[] = CLUSTER_RULES): { findings: Finding[]; failures: Array<{ ruleId: string; message: string }> } {
  const findings: Finding[] = [];
  const failures: Array<{ ruleId: string; message: string }> = [];
  for (const rule of rules) {
    try {
      findings.push(...rule.evaluate(facts));
    } catch (error) {
      failures.push({ ruleId: rule.id, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { findings, failures };
}
