import { z } from 'zod';

export const Severity = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

/** A pointer to the evidence a finding rests on: a file or probe, a 1-based line, a short excerpt. */
export const Evidence = z.object({
  source: z.string(),
  line: z.number().int().nullable(),
  excerpt: z.string(),
});
export type Evidence = z.infer<typeof Evidence>;

export const Remediation = z.object({
  summary: z.string(),
  steps: z.array(z.string()),
  commands: z.array(z.string()),
  links: z.array(z.string()),
});
export type Remediation = z.infer<typeof Remediation>;

/** A diagnostic finding, as in `windeck diagnose --json` (DESIGN.md section 10). */
export const Finding = z.object({
  ruleId: z.string(),
  severity: Severity,
  node: z.string().nullable(),
  title: z.string(),
  evidence: z.array(Evidence),
  remediation: Remediation,
});
export type Finding = z.infer<typeof Finding>;
