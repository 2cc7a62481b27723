/**
 * The rule engine: run rule modules over facts and produce findings in the DESIGN.md section 10 shape.
 * Rules are a list (CATALOG_RULES by default); other rule sets (the cluster rules) plug in by passing theirs.
 */
import type { Evidence, Finding, Severity } from '../domain/finding';
import type { Fact } from '../logic/facts';
import { CATALOG_RULES } from './catalog-rules';
import type { RuleHit, RuleModule } from './rule';

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface EvaluateOptions {
  /** The rules to run; defaults to the file/probe catalogue. */
  rules?: readonly RuleModule[];
  /** Called when a rule throws (the finding set stays usable). */
  onRuleError?: (ruleId: string, error: unknown) => void;
}

function toEvidence(facts: readonly Fact[]): Evidence[] {
  const seen = new Set<string>();
  const out: Evidence[] = [];
  for (const f of facts) {
    const key = `${f.source}|${f.line ?? ''}|${f.excerpt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ source: f.source, line: f.line, excerpt: f.excerpt });
  }
  return out;
}

function nodeOf(hit: RuleHit): string | null {
  if (hit.node !== undefined) return hit.node;
  const nodes = new Set(hit.evidence.map((f) => f.node).filter((n): n is string => n !== null));
  return nodes.size === 1 ? [...nodes][0]! : null;
}

function merge(base: readonly string[], extra: readonly string[] | undefined): string[] {
  const out = [...(extra ?? [])];
  for (const b of base) if (!out.includes(b)) out.push(b);
  return out;
}

/** Turn one hit of `rule` into a finding. */
export function toFinding(rule: RuleModule, hit: RuleHit): Finding {
  const r = hit.remediation ?? {};
  return {
    ruleId: rule.id,
    severity: hit.severity ?? rule.severity,
    node: nodeOf(hit),
    title: hit.title,
    evidence: toEvidence(hit.evidence),
    remediation: {
      summary: r.summary ?? rule.remediation.summary,
      steps: merge(rule.remediation.steps, r.steps),
      commands: merge(rule.remediation.commands, r.commands),
      links: merge(rule.remediation.links, r.links),
    },
  };
}

/** Evaluate every rule over the facts; findings sorted by severity, rule id, node. Never throws. */
export function evaluate(facts: readonly Fact[], options: EvaluateOptions = {}): Finding[] {
  const rules = options.rules ?? CATALOG_RULES;
  const findings: Finding[] = [];
  for (const rule of rules) {
    let hits: RuleHit[] = [];
    try {
      hits = rule.evaluate(facts);
    } catch (error) {
      options.onRuleError?.(rule.id, error);
      continue;
    }
    for (const hit of hits) if (hit.evidence.length > 0) findings.push(toFinding(rule, hit));
  }
  findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.ruleId.localeCompare(b.ruleId) || (a.node ?? '').localeCompare(b.node ?? '') || a.title.localeCompare(b.title));
  return findings;
}

/** True when some finding is at or above `threshold` (for `--fail-on`). */
export function hasFindingAtOrAbove(findings: readonly Finding[], threshold: Severity): boolean {
  return findings.some((f) => SEVERITY_ORDER[f.severity] <= SEVERITY_ORDER[threshold]);
}
