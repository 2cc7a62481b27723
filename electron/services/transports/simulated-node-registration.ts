import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../store/database';
import { CredentialsRepo } from '../store/repos/credentials';
import { HostKeysRepo } from '../store/repos/host-keys';
import { NodeEndpointsRepo } from '../store/repos/node-endpoints';
import { keyTypeOfBlob, sha256Fingerprint } from './ssh/known-hosts';

/**
 * What `windeck demo` registers per simulated Windows node so that every other command (same WINDECK_HOME, the
 * demo's kubeconfig) reaches it with no setup (DESIGN.md section 10): the SSH (and WinRM) endpoint, the trusted
 * host key, and the throwaway credential. The simulator's keys are not secrets of any real system: they live
 * in clear under WINDECK_HOME/demo/ (DESIGN.md section 2); the store only names the files.
 */

export interface SimulatedNodeRegistration {
  /** clusterIdFor(<absolute demo kubeconfig path>, <its context>). */
  clusterId: string;
  node: string;
  /** WINDECK_HOME/demo (the key files go to `<demoDir>/keys/`). */
  demoDir: string;
  ssh: { host: string; port: number; /** "ssh-ed25519 AAAA..." */ hostKeyPublic: string };
  credentials: { username: string; password: string; privateKey: string };
  /** The node's WinRM endpoint, when the demo runs one. */
  winrm?: { url: string; username?: string; password?: string; auth?: 'ntlm' | 'basic'; pinnedSha256?: string };
  now?: number;
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** Register one simulated node; replaces what an earlier demo run registered for it. */
export async function registerSimulatedNode(db: Db, reg: SimulatedNodeRegistration): Promise<{ keyPath: string; fingerprint: string }> {
  const now = reg.now ?? Date.now();
  const keysDir = path.join(reg.demoDir, 'keys');
  await fs.mkdir(keysDir, { recursive: true, mode: 0o700 });
  const keyPath = path.join(keysDir, `${safeName(reg.node)}.key`);
  await fs.writeFile(keyPath, reg.credentials.privateKey, { mode: 0o600 });
  const passwordPath = path.join(keysDir, `${safeName(reg.node)}.password`);
  await fs.writeFile(passwordPath, reg.winrm?.password ?? reg.credentials.password, { mode: 0o600 });

  const endpoints = new NodeEndpointsRepo(db);
  const credentials = new CredentialsRepo(db);
  const hostKeys = new HostKeysRepo(db);
  const blob = Buffer.from(reg.ssh.hostKeyPublic.trim().split(/\s+/)[1] ?? '', 'base64');
  const fingerprint = sha256Fingerprint(blob);
  const sshCredentialId = `demo:${reg.clusterId}:${reg.node}:ssh`;
  db.transaction(() => {
    credentials.put({
      id: sshCredentialId,
      name: `demo-${reg.node}-ssh-key`.slice(0, 64),
      clusterId: reg.clusterId,
      scope: 'node',
      selector: reg.node,
      transport: 'ssh',
      username: reg.credentials.username,
      authKind: 'key',
      keyPath,
      secretBlob: null,
      secretStoreKind: null,
      priority: 100,
      createdAt: now,
    });
    endpoints.put({ clusterId: reg.clusterId, node: reg.node, transport: 'ssh', host: reg.ssh.host, port: reg.ssh.port, options: {}, credentialId: sshCredentialId, source: 'demo', updatedAt: now });
    hostKeys.remove(reg.ssh.host, reg.ssh.port);
    hostKeys.put({ host: reg.ssh.host, port: reg.ssh.port, keyType: keyTypeOfBlob(blob), keyBase64: blob.toString('base64'), fingerprint, clusterId: reg.clusterId, node: reg.node, source: 'demo', acceptedAt: now });
    if (reg.winrm) {
      const winrmCredentialId = `demo:${reg.clusterId}:${reg.node}:winrm`;
      const url = new URL(reg.winrm.url);
      credentials.put({
        id: winrmCredentialId,
        name: `demo-${reg.node}-winrm`.slice(0, 64),
        clusterId: reg.clusterId,
        scope: 'node',
        selector: reg.node,
        transport: 'winrm',
        username: reg.winrm.username ?? reg.credentials.username,
        authKind: 'password',
        keyPath: passwordPath,
        secretBlob: null,
        secretStoreKind: null,
        priority: 100,
        createdAt: now,
      });
      endpoints.put({
        clusterId: reg.clusterId,
        node: reg.node,
        transport: 'winrm',
        host: url.hostname,
        port: Number(url.port || (url.protocol === 'https:' ? 5986 : 5985)),
        options: { url: reg.winrm.url, auth: reg.winrm.auth ?? 'ntlm', ...(reg.winrm.pinnedSha256 ? { pinnedSha256: reg.winrm.pinnedSha256 } : {}) },
        credentialId: winrmCredentialId,
        source: 'demo',
        updatedAt: now,
      });
    }
  })();
  return { keyPath, fingerprint };
}

/** Forget what a demo registered for a cluster (endpoints and credentials; host keys of its endpoints). */
export function unregisterSimulatedCluster(db: Db, clusterId: string): void {
  const endpoints = new NodeEndpointsRepo(db);
  const credentials = new CredentialsRepo(db);
  const hostKeys = new HostKeysRepo(db);
  db.transaction(() => {
    for (const e of endpoints.listCluster(clusterId).filter((x) => x.source === 'demo')) {
      if (e.transport === 'ssh') hostKeys.remove(e.host, e.port);
      if (e.credentialId) credentials.remove(e.credentialId);
    }
    endpoints.removeCluster(clusterId, 'demo');
  })();
}
