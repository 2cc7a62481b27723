import { z } from 'zod';
import { method } from '../method';
import { Finding } from '../../domain/finding';
import { DIAGNOSE_TEXT_MAX_CHARS } from '../../domain/limits';
import { NodeTransportChoice } from '../../domain/probe';

const NodeName = z.string().min(1).max(253).regex(/^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, 'a node name is a DNS name');
const Fingerprint = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'a host key fingerprint looks like SHA256: followed by 43 base64 characters');

/** Which cluster: a store cluster id, or a kubeconfig (+ context) as the CLI names it; default the active cluster. */
const ClusterTarget = {
  cluster: z.string().min(1).max(2048).optional(),
  kubeconfig: z.string().min(1).max(4096).optional(),
  context: z.string().min(1).max(253).optional(),
};

/** `windeck diagnose --json` (DESIGN.md section 10): every input with its kind, and the findings. */
export const DiagnoseOutput = z.object({
  inputs: z.array(z.object({ path: z.string(), kind: z.string() })),
  findings: z.array(Finding),
});
export type DiagnoseOutput = z.infer<typeof DiagnoseOutput>;

/** A stored finding: which diagnosis produced it (`diagnose`, `cluster-rules`, `lint-workloads`, ...) and when. */
export const StoredFinding = Finding.extend({ source: z.string(), foundAt: z.number() });
export type StoredFinding = z.infer<typeof StoredFinding>;

export const diagnoseMethods = {
  /**
   * Diagnose a live node: run every probe (transport `auto`: the first that works), the file/probe rules and the
   * cluster rules about the node; findings are stored (source `diagnose`). An operation; its result is a
   * DiagnoseOutput plus `{node, transport}`. Errors: NOT_FOUND, UNREACHABLE, TIMEOUT, AUTH_FAILED, HOST_KEY_*.
   */
  'diagnose:node': method({
    input: z
      .object({
        ...ClusterTarget,
        node: NodeName,
        transport: NodeTransportChoice.optional(),
        acceptHostKeys: z.array(Fingerprint).max(8).optional(),
      })
      .strict(),
    output: z.object({ operationId: z.string() }),
    description: 'Diagnose a live node (operation; result: {node, transport, inputs, findings}).',
  }),
  /** Stored findings, every source, oldest first; cluster defaults to the active one, node to all. */
  'findings:list': method({
    input: z.object({ cluster: z.string().min(1).max(2048).optional(), node: NodeName.optional() }).strict(),
    output: z.array(StoredFinding),
    description: 'Stored findings of a cluster (or one node) with their source and time.',
  }),
  /** Diagnose a local folder, zip, Windeck bundle, collectlogs folder or AKS zip (an operation; result: DiagnoseOutput). */
  'diagnose:files': method({
    input: z.object({ path: z.string().min(1).max(4096) }).strict(),
    output: z.object({ operationId: z.string() }),
    description: 'Diagnose local files (operation; result: {inputs, findings}).',
  }),
  /** Diagnose pasted text (recognized by content like a dropped file; `name` is its file name when known). */
  'diagnose:text': method({
    input: z
      .object({
        text: z.string().min(1).max(DIAGNOSE_TEXT_MAX_CHARS),
        name: z
          .string()
          .min(1)
          .max(200)
          .regex(/^[^/\\\0]+$/, 'a file name without folders')
          .refine((n) => n !== '.' && n !== '..', 'a file name')
          .optional(),
      })
      .strict(),
    output: DiagnoseOutput,
    description: 'Diagnose pasted text: {inputs, findings}.',
  }),
};
