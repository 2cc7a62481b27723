import type { Migration } from '../migration';

/**
 * Exec credential plugins the user approved (electron/services/kube/exec-credential.ts). A plugin runs only when
 * its fingerprint (resolved path + SHA-256 of the executable + arguments + kubeconfig env entries) is here.
 * Environment values are not stored (they may be secret); only their names, for display.
 */
export const m0011ExecApprovals: Migration = {
  version: 11,
  name: 'exec-approvals',
  up(db) {
    db.exec(`
      CREATE TABLE exec_approvals (
        fingerprint TEXT PRIMARY KEY,
        command_path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        args TEXT NOT NULL,
        env_names TEXT NOT NULL,
        kubeconfig_path TEXT NOT NULL,
        user_name TEXT,
        approved_at INTEGER NOT NULL
      );
    `);
  },
};
