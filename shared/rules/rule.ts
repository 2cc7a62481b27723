/**
 * A diagnostic rule: a pure function from facts to hits. The engine (evaluate.ts) turns hits into findings with
 * the rule's stable id (WINDOWS-KNOWLEDGE.md section 4), its default severity, the node, the evidence pointers
 * and the remediation. Rules fire only on evidence they were given: no facts of the kind they need, no hit.
 */
import type { Remediation, Severity } from '../domain/finding';
import type { Fact } from '../logic/facts';

export interface RuleHit {
  /** One sentence naming what is wrong, with the concrete names (service, network, build). */
  title: string;
  /** The facts this hit rests on (at least one). */
  evidence: readonly Fact[];
  /** Overrides the rule's default severity (e.g. `warning` for a build newer than the table knows). */
  severity?: Severity;
  /** The node; when absent, taken from the evidence if all of it names the same node. */
  node?: string | null;
  /** Extra text merged into the rule's remediation (specific steps first). */
  remediation?: Partial<Remediation>;
}

export interface RuleModule {
  /** Stable id, never renamed. */
  id: string;
  /** Default severity from the catalogue. */
  severity: Severity;
  /** When the rule fires, in one line (for docs and `--help`). */
  description: string;
  /** Steps in our own words, with commands and links to kubernetes.io docs or the issue. */
  remediation: Remediation;
  /** Pure; must not throw (the engine still guards). */
  evaluate(facts: readonly Fact[]): RuleHit[];
}
