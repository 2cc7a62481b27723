import { z } from 'zod';
import { method } from '../method';
import { CapabilityReason } from '../../domain/probe';

/**
 * Per-node access configuration (issue 4 item 4): credential sets (per cluster, node group or node), endpoint
 * overrides (node -> transport, host, port, options), SSH host keys accepted in Windeck, and the capability check.
 *
 * Every identifier, path and host is validated against a strict pattern here, before any handler runs: quotes,
 * backticks, `$`, `;`, spaces where none belong, control characters (newlines, NUL) are refused. A secret
 * (password or key passphrase) may hold any printable character (it is sealed by the SecretStore and only ever
 * handed to ssh2/NTLM as data) except NUL, CR and LF. Secrets are never returned.
 */

/** No control characters (C0, DEL, C1: newlines, NUL, escapes). */
const noControl = /^\P{Cc}*$/u;

export const NodeName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, 'a node name is a DNS name');
export const CredentialName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a credential name is letters, digits, dot, dash, underscore');
/** `user`, `user@domain`, `DOMAIN\user` (no spaces, quotes or shell characters). */
export const UserName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^(?:[A-Za-z0-9][A-Za-z0-9._-]*\\)?[A-Za-z0-9_][A-Za-z0-9._@-]*\$?$/, 'a user name is letters, digits and . _ - @, optionally DOMAIN\\user');
/** An absolute local path (POSIX or Windows drive); no control characters or quotes. */
export const LocalPath = z
  .string()
  .min(1)
  .max(4096)
  .regex(noControl, 'a path has no control characters')
  .regex(/^(?:\/|[A-Za-z]:[\\/])[^"'`$;|&<>*?]*$/, 'an absolute path without quotes, $, ;, |, &, <, >, * or ?');
/** DNS name, IPv4 or IPv6 literal. */
export const HostName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(?:[A-Za-z0-9](?:[-A-Za-z0-9.]*[A-Za-z0-9])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/, 'a host is a DNS name or an IP address');
export const Port = z.number().int().min(1).max(65535);
/** A node-name wildcard (`win-*`, `?`) or a Kubernetes label `key=value`. */
export const NodeGroupSelector = z
  .string()
  .min(1)
  .max(317)
  .regex(
    /^(?:[A-Za-z0-9*?][-A-Za-z0-9.*?]*|(?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?=(?:[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?)$/,
    'a node group is a node-name wildcard (win-*) or a label key=value',
  );
export const Secret = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => !v.includes('\0') && !v.includes('\r') && !v.includes('\n'), 'a secret has no NUL or line breaks');
export const Fingerprint = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'a host key fingerprint looks like SHA256: followed by 43 base64 characters');
/** A certificate's SHA-256 thumbprint: 64 hex digits, colons allowed. */
export const CertThumbprint = z
  .string()
  .regex(/^(?:[0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/, 'a certificate thumbprint is 64 hex digits (SHA-256), colons allowed');

/** Which cluster: a store cluster id, or a kubeconfig (+ context) as the CLI names it; default the active cluster. */
const ClusterTarget = {
  cluster: z.string().min(1).max(2048).regex(noControl).optional(),
  kubeconfig: z.string().min(1).max(4096).regex(noControl).optional(),
  context: z.string().min(1).max(253).regex(noControl).optional(),
};

export const CREDENTIAL_KINDS = ['ssh-key', 'ssh-password', 'ssh-agent', 'winrm-ntlm', 'winrm-basic-https'] as const;
export const CredentialKind = z.enum(CREDENTIAL_KINDS);
export type CredentialKind = z.infer<typeof CredentialKind>;

export const CredentialScope = z.enum(['cluster', 'node-group', 'node']);
export type CredentialScope = z.infer<typeof CredentialScope>;

/** A credential as listed: never the secret, only whether one is sealed in the store. */
export const CredentialInfo = z.object({
  id: z.string(),
  name: z.string(),
  kind: CredentialKind,
  /** null: applies to every cluster. */
  clusterId: z.string().nullable(),
  scope: CredentialScope,
  /** node-group: wildcard or label; node: the node name; cluster: null. */
  selector: z.string().nullable(),
  username: z.string(),
  keyPath: z.string().nullable(),
  /** A password / passphrase is sealed in the store (by `secretStoreKind`). */
  hasSecret: z.boolean(),
  secretStoreKind: z.string().nullable(),
  priority: z.number(),
  createdAt: z.number(),
});
export type CredentialInfo = z.infer<typeof CredentialInfo>;

export const WinrmEndpointOptions = z
  .object({
    https: z.boolean().optional(),
    /** Default `/wsman`. */
    path: z
      .string()
      .max(128)
      .regex(/^\/[A-Za-z0-9._/-]*$/, 'a URL path')
      .optional(),
    /** PEM file with the CA that signed the listener's certificate. */
    caPath: LocalPath.optional(),
    /** The listener certificate's SHA-256 thumbprint (pinned: no CA check). */
    pinnedSha256: CertThumbprint.optional(),
    auth: z.enum(['ntlm', 'basic']).optional(),
  })
  .strict();

export const SshEndpointOptions = z.object({ username: UserName.optional() }).strict();

export const EndpointInfo = z.object({
  clusterId: z.string(),
  node: z.string(),
  transport: z.enum(['ssh', 'winrm']),
  host: z.string(),
  port: z.number(),
  /** WinRM: the URL used. */
  url: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  credential: z.string().nullable(),
  /** override (set by a user), demo, derived. */
  source: z.string(),
  updatedAt: z.number(),
});
export type EndpointInfo = z.infer<typeof EndpointInfo>;

export const HostKeyInfo = z.object({
  host: z.string(),
  port: z.number(),
  keyType: z.string(),
  fingerprint: z.string(),
  clusterId: z.string().nullable(),
  node: z.string().nullable(),
  source: z.string(),
  acceptedAt: z.number(),
});
export type HostKeyInfo = z.infer<typeof HostKeyInfo>;

/** One transport's outcome of the capability check. */
export const AccessOutcome = z.enum(['works', 'refused', 'unreachable', 'auth', 'host-key-unknown', 'host-key-changed', 'timeout', 'not-configured', 'error']);
export type AccessOutcome = z.infer<typeof AccessOutcome>;

export const AccessCheck = z.object({
  transport: z.enum(['ssh', 'winrm']),
  outcome: AccessOutcome,
  /** The finer reason of select.ts (remote-error, unsupported, cancelled map to outcome `error`). */
  reason: CapabilityReason,
  ok: z.boolean(),
  /** The exact reason, one or two sentences. */
  message: z.string(),
  endpoint: z.string(),
  /** The credential that was used (its name), when one from the store applied. */
  credential: z.string().nullable(),
  username: z.string().nullable(),
  /** host-key-unknown / host-key-changed: the presented key's `SHA256:` fingerprint. */
  fingerprint: z.string().nullable(),
  durationMs: z.number(),
});
export type AccessCheck = z.infer<typeof AccessCheck>;

export const AccessCheckResult = z.object({
  clusterId: z.string(),
  node: z.string(),
  checks: z.array(AccessCheck),
  /** The first transport that works, or null. */
  works: z.enum(['ssh', 'winrm']).nullable(),
});
export type AccessCheckResult = z.infer<typeof AccessCheckResult>;

export const accessMethods = {
  /** Credential sets (secrets never included). `node` lists those that apply to it, most specific first. */
  'credentials:list': method({
    input: z.object({ ...ClusterTarget, allClusters: z.boolean().optional(), node: NodeName.optional() }).strict(),
    output: z.array(CredentialInfo),
    description: 'Credential sets (cluster, node group, node), without secrets; with `node`: those that apply to it, in order.',
  }),
  /**
   * Create or replace (by name) a credential set. `secret` (password, or key passphrase) is sealed by the host's
   * SecretStore; STORE_UNAVAILABLE when there is none (never stored in clear). `keepSecret` keeps the sealed
   * secret of an existing credential of that name. VALIDATION for a wrong combination (a key path for a password
   * kind, a selector for a cluster scope...).
   */
  'credentials:set': method({
    input: z
      .object({
        ...ClusterTarget,
        /** true: the credential applies to every cluster (scope `cluster` only). */
        anyCluster: z.boolean().optional(),
        name: CredentialName,
        kind: CredentialKind,
        scope: CredentialScope,
        selector: z.union([NodeName, NodeGroupSelector]).optional(),
        username: UserName,
        keyPath: LocalPath.optional(),
        secret: Secret.optional(),
        keepSecret: z.boolean().optional(),
        priority: z.number().int().min(-1000).max(1000).optional(),
      })
      .strict(),
    output: CredentialInfo,
    description: 'Create or replace a credential set by name; the secret is sealed by the SecretStore (STORE_UNAVAILABLE without one).',
  }),
  /** Remove a credential by name or id. NOT_FOUND when absent; CONFLICT while an endpoint names it (unless `force`). */
  'credentials:remove': method({
    input: z.object({ name: CredentialName, force: z.boolean().optional() }).strict(),
    output: z.object({ removed: z.string(), endpointsCleared: z.number() }),
    description: 'Remove a credential set (CONFLICT while an endpoint uses it, unless force).',
  }),
  'endpoints:list': method({
    input: z.object({ ...ClusterTarget, node: NodeName.optional() }).strict(),
    output: z.array(EndpointInfo),
    description: 'Endpoint overrides of a cluster (or one node).',
  }),
  /** Set the address of a node over one transport (an override). `credential` names a credential set to use. */
  'endpoints:set': method({
    input: z
      .object({
        ...ClusterTarget,
        node: NodeName,
        transport: z.enum(['ssh', 'winrm']),
        host: HostName,
        port: Port.optional(),
        credential: CredentialName.optional(),
        ssh: SshEndpointOptions.optional(),
        winrm: WinrmEndpointOptions.optional(),
      })
      .strict(),
    output: EndpointInfo,
    description: 'Set a node endpoint override (transport, host, port; WinRM https, CA file or pinned thumbprint).',
  }),
  'endpoints:remove': method({
    input: z.object({ ...ClusterTarget, node: NodeName, transport: z.enum(['ssh', 'winrm']) }).strict(),
    output: z.object({ removed: z.boolean() }),
    description: 'Remove a node endpoint override (NOT_FOUND when absent).',
  }),
  'hostkeys:list': method({
    input: z.object({ host: HostName.optional() }).strict(),
    output: z.array(HostKeyInfo),
    description: 'SSH host keys accepted in Windeck (not the user known_hosts).',
  }),
  /**
   * Trust a node's SSH host key by its fingerprint: Windeck connects (key exchange only, nothing is sent after
   * it), and stores the key only when it has exactly this fingerprint (VALIDATION otherwise, naming what it saw).
   * Give `node` (its SSH endpoint is resolved) or `host` + `port`.
   */
  'hostkeys:accept': method({
    input: z.object({ ...ClusterTarget, node: NodeName.optional(), host: HostName.optional(), port: Port.optional(), fingerprint: Fingerprint }).strict(),
    output: HostKeyInfo,
    description: 'Accept an SSH host key by its SHA256 fingerprint (checked against what the host presents).',
  }),
  'hostkeys:forget': method({
    input: z.object({ host: HostName.optional(), port: Port.optional(), fingerprint: Fingerprint.optional() }).strict(),
    output: z.object({ removed: z.number() }),
    description: 'Forget accepted host keys (of host:port, or by fingerprint).',
  }),
  /**
   * Capability check of a node: every transport is tried (the read-only `os` script), none stops at the first
   * success. Outcomes: works, refused, unreachable, auth, host-key-unknown (with the fingerprint), host-key-changed,
   * timeout, not-configured, error; each with the exact reason. Fresh connections (nothing reused).
   */
  'nodes:access-check': method({
    input: z
      .object({
        ...ClusterTarget,
        node: NodeName,
        transport: z.enum(['auto', 'ssh', 'winrm']).optional(),
        connectTimeoutMs: z.number().int().min(100).max(120_000).optional(),
      })
      .strict(),
    output: AccessCheckResult,
    description: 'Which transport reaches a node, and exactly why the others do not.',
  }),
};
