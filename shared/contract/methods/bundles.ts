import { z } from 'zod';
import { method } from '../method';
import { RenderedReport } from '../../report/render';

/**
 * Bundles (redacted log bundles) and reports (the SIG-Windows bug report), DESIGN.md sections 6 and 10.
 * `bundles:preview` and `bundles:export` are operations: they answer `{ operationId }` at once; progress comes as
 * `ops:progress`, the outcome with `ops:get` (its `result` is a `BundlePreview` / `BundleExportResult`).
 */

export const RedactionLevel = z.enum(['standard', 'strict']);
export type RedactionLevel = z.infer<typeof RedactionLevel>;

export const BundleFile = z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() });
export type BundleFile = z.infer<typeof BundleFile>;

export const BundleError = z.object({ node: z.string().nullable(), step: z.string(), message: z.string() });
export type BundleError = z.infer<typeof BundleError>;

/** `manifest.json` of a bundle (DESIGN.md section 6). `part` is present when the bundle was split. */
export const BundleManifest = z.object({
  format: z.literal('windeck-bundle'),
  version: z.literal(1),
  created: z.string(),
  tool: z.object({ name: z.string(), version: z.string() }),
  cluster: z.object({ context: z.string().nullable(), server: z.string().nullable(), kubernetesVersion: z.string().nullable() }),
  nodes: z.array(z.string()),
  files: z.array(BundleFile),
  redaction: z.object({ level: RedactionLevel, counts: z.record(z.string(), z.number()) }),
  status: z.enum(['complete', 'incomplete']),
  errors: z.array(BundleError),
  part: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).optional(),
});
export type BundleManifest = z.infer<typeof BundleManifest>;

const NodeName = z.string().min(1).max(253);
/** `30m`, `2h`, `1d`, `90s` (what `--since` takes). */
export const SinceText = z.string().regex(/^\d{1,6}[smhd]$/, 'a duration such as 30m, 2h or 1d');

/** What to collect. The cluster is the named store cluster, else the kubeconfig/context, else the active one. */
export const CollectSpec = z
  .object({
    cluster: z.string().min(1).max(512).optional(),
    kubeconfig: z.string().min(1).max(4096).optional(),
    context: z.string().min(1).max(253).optional(),
    nodes: z.array(NodeName).min(1).max(200),
    since: SinceText.optional(),
    redact: RedactionLevel.default('standard'),
    transport: z.enum(['auto', 'ssh', 'winrm']).optional(),
    /** Store only: no node or cluster is contacted (what the store has goes into the bundle). */
    offline: z.boolean().optional(),
  })
  .strict();
export type CollectSpec = z.infer<typeof CollectSpec>;

export const PreviewFinding = z.object({ kind: z.string(), line: z.number().int(), column: z.number().int(), encoding: z.string(), hint: z.string() });
export const PreviewFile = z.object({
  path: z.string(),
  size: z.number().int(),
  counts: z.record(z.string(), z.number()),
  findings: z.array(PreviewFinding),
  findingsTruncated: z.boolean(),
});
export type PreviewFile = z.infer<typeof PreviewFile>;

/** What was found where, before export. `previewId` exports exactly what was previewed. */
export const BundlePreview = z.object({
  previewId: z.string(),
  status: z.enum(['complete', 'incomplete']),
  nodes: z.array(z.string()),
  errors: z.array(BundleError),
  redaction: z.object({ level: RedactionLevel, counts: z.record(z.string(), z.number()) }),
  files: z.array(PreviewFile),
  totalBytes: z.number().int(),
  /** Epoch ms after which the previewed data is deleted. */
  expiresAt: z.number(),
});
export type BundlePreview = z.infer<typeof BundlePreview>;

export const BundleExportResult = z.object({
  /** The zip (or every part, `name.partN.zip`) or the folder written. */
  paths: z.array(z.string()),
  manifest: BundleManifest,
  /** Retry jobs queued for nodes that dropped out. */
  retryJobs: z.array(z.object({ id: z.number().int(), node: z.string() })),
});
export type BundleExportResult = z.infer<typeof BundleExportResult>;

const OperationStarted = z.object({ operationId: z.string() });

export const ReportFormat = z.enum(['md', 'json', 'url']);
export type ReportFormat = z.infer<typeof ReportFormat>;

export const ReportRequest = z
  .object({
    cluster: z.string().min(1).max(512).optional(),
    kubeconfig: z.string().min(1).max(4096).optional(),
    context: z.string().min(1).max(253).optional(),
    node: NodeName.optional(),
    bundle: z.string().min(1).max(4096).optional(),
    format: ReportFormat.default('md'),
    title: z.string().max(256).optional(),
    problem: z.string().max(20_000).optional(),
    expected: z.string().max(20_000).optional(),
    repro: z.string().max(20_000).optional(),
    additional: z.string().max(20_000).optional(),
  })
  .strict()
  .refine((r) => (r.node === undefined) !== (r.bundle === undefined), { message: 'give either node or bundle' });
export type ReportRequest = z.infer<typeof ReportRequest>;

export const ReportResult = z.object({ format: ReportFormat, text: z.string(), report: RenderedReport });
export type ReportResult = z.infer<typeof ReportResult>;

export const bundleMethods = {
  /** Collect into a private staging area and report what redaction found where. Operation; result BundlePreview. */
  'bundles:preview': method({
    input: CollectSpec,
    output: OperationStarted,
    description: 'Collect a redacted bundle into a staging area and preview what was redacted where (operation).',
  }),
  /**
   * Write a bundle: a previewed one (`previewId`) or a fresh collection (`spec`) to `output` (`*.zip`, or a folder
   * path ending in `/`). Operation; result BundleExportResult. CONFLICT when the output folder exists and is not
   * empty; NOT_FOUND for an expired previewId.
   */
  'bundles:export': method({
    input: z
      .object({ previewId: z.string().regex(/^pv-[a-z0-9-]{6,64}$/).optional(), spec: CollectSpec.optional(), output: z.string().min(1).max(4096) })
      .strict()
      .refine((r) => (r.previewId === undefined) !== (r.spec === undefined), { message: 'give either previewId or spec' }),
    output: OperationStarted,
    description: 'Write a redacted bundle zip (split into parts over ~25 MB) or folder, atomically (operation).',
  }),
  /** The SIG-Windows bug report for a node (from the store) or a bundle, as Markdown, JSON or a prefilled URL. */
  'reports:render': method({
    input: ReportRequest,
    output: ReportResult,
    description: 'Draft the Kubernetes bug-report form (md, json or url) from stored evidence or a bundle.',
  }),
};
