import { z } from 'zod';
import { method } from '../method';
import { CapabilityCheck, NodeTransportChoice, ProbeId, ProbeReport } from '../../domain/probe';

const NodeName = z.string().min(1).max(253).regex(/^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, 'a node name is a DNS name');
const Fingerprint = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'a host key fingerprint looks like SHA256: followed by 43 base64 characters');

/** Which cluster: a store cluster id, or a kubeconfig (+ context) as the CLI names it; default the active cluster. */
const ClusterTarget = {
  cluster: z.string().min(1).max(2048).optional(),
  kubeconfig: z.string().min(1).max(4096).optional(),
  context: z.string().min(1).max(253).optional(),
};

export const probeMethods = {
  /**
   * Run probes on a Windows node over the chosen transport (`auto`: the first that works, ssh then winrm). An
   * operation; its result is a ProbeReport. Errors: NOT_FOUND (unknown node/cluster), UNREACHABLE, TIMEOUT,
   * AUTH_FAILED, HOST_KEY_UNKNOWN (accept its fingerprint with `acceptHostKeys`), HOST_KEY_CHANGED, VALIDATION.
   */
  'probes:run': method({
    input: z
      .object({
        ...ClusterTarget,
        node: NodeName,
        probes: z.array(ProbeId).max(32).optional(),
        transport: NodeTransportChoice.optional(),
        acceptHostKeys: z.array(Fingerprint).max(8).optional(),
      })
      .strict(),
    output: z.object({ operationId: z.string() }),
    description: 'Run probes on a node (operation; result: {node, transport, probes}).',
  }),
  /** The newest stored result of each probe on a node (offline). NOT_FOUND when nothing was stored. */
  'probes:latest': method({
    input: z.object({ ...ClusterTarget, node: NodeName }).strict(),
    output: ProbeReport.extend({ at: z.number() }),
    description: 'Latest stored probe results of a node, with their time.',
  }),
  /** Which transport reaches the node and why the others do not (an operation; result: CapabilityCheck[]). */
  'probes:access': method({
    input: z.object({ ...ClusterTarget, node: NodeName, acceptHostKeys: z.array(Fingerprint).max(8).optional() }).strict(),
    output: z.object({ operationId: z.string() }),
    description: 'Capability check per transport for a node (operation; result: checks).',
  }),
};

export type ProbeAccessResult = { node: string; checks: CapabilityCheck[] };
