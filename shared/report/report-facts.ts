import { z } from 'zod';
import { Finding } from '../domain/finding';

/**
 * What a SIG-Windows bug report is made from (WINDOWS-KNOWLEDGE.md section 5): gathered from the store by
 * `electron/services/report/facts.ts` (or read back from a bundle), rendered by `render.ts`. Every text in here
 * is already redacted; `render` redacts the user's own text and the final body once more.
 */

export const WindowsOsFacts = z.object({
  caption: z.string().nullable(),
  /** `10.0.20348` as CIM gives it. */
  version: z.string().nullable(),
  build: z.number().int().nullable(),
  ubr: z.number().int().nullable(),
  architecture: z.string().nullable(),
  displayVersion: z.string().nullable(),
  /** Where it came from: the `os` probe (CIM) or the Node object (nodeInfo / windows-build label). */
  source: z.enum(['cim', 'node']),
});
export type WindowsOsFacts = z.infer<typeof WindowsOsFacts>;

export const NodeReportFacts = z.object({
  name: z.string(),
  os: z.string(),
  osImage: z.string().nullable(),
  kernelVersion: z.string().nullable(),
  windows: WindowsOsFacts.nullable(),
  kubeletVersion: z.string().nullable(),
  kubeProxyVersion: z.string().nullable(),
  /** `containerd://1.7.20` as the node reports it, and the runtime probe's version line when there is one. */
  containerRuntime: z.string().nullable(),
  runtimeDetail: z.string().nullable(),
  cni: z
    .object({
      name: z.string().nullable(),
      type: z.string().nullable(),
      /** HNS network type(s) (L2Bridge, Overlay, ...), the network mode people talk about. */
      networkMode: z.string().nullable(),
      networks: z.array(z.string()),
      source: z.string(),
    })
    .nullable(),
  /** The node's component layout as detected (services, nssm, HostProcess...), null when unknown. */
  layout: z.string().nullable(),
  providerID: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  ready: z.boolean().nullable(),
});
export type NodeReportFacts = z.infer<typeof NodeReportFacts>;

export const LogExcerpt = z.object({
  node: z.string().nullable(),
  source: z.string(),
  /** Already redacted, a few lines. */
  text: z.string(),
});
export type LogExcerpt = z.infer<typeof LogExcerpt>;

export const UserReportInput = z.object({
  title: z.string().max(256).optional(),
  problem: z.string().max(20_000).optional(),
  expected: z.string().max(20_000).optional(),
  repro: z.string().max(20_000).optional(),
  additional: z.string().max(20_000).optional(),
});
export type UserReportInput = z.infer<typeof UserReportInput>;

export const ReportFacts = z.object({
  generatedAt: z.string(),
  tool: z.object({ name: z.string(), version: z.string() }),
  cluster: z.object({
    context: z.string().nullable(),
    simulated: z.boolean(),
    kubernetesVersion: z.string().nullable(),
    /** `kubectl version` output when kubectl ran, else null (the API's version is used). */
    kubectlVersion: z.string().nullable(),
    /** Linux control-plane nodes: osImage and kernel. */
    controlPlaneOs: z.array(z.string()),
  }),
  nodes: z.array(NodeReportFacts),
  findings: z.array(Finding),
  excerpts: z.array(LogExcerpt),
  /** Where the facts came from: `store` (live/stored data) or `bundle:<path>`. */
  origin: z.string(),
});
export type ReportFacts = z.infer<typeof ReportFacts>;
