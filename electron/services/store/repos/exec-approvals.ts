import type { Db } from '../database';
import type { ExecApprovals, ExecFingerprint } from '../../kube/exec-credential';

export interface ExecApprovalRow {
  fingerprint: string;
  commandPath: string;
  sha256: string;
  args: string[];
  envNames: string[];
  kubeconfigPath: string;
  userName: string | null;
  approvedAt: number;
}

/** Approved exec credential plugins (see migration 0011). */
export class ExecApprovalsRepo implements ExecApprovals {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  isApproved(fingerprint: string): boolean {
    return this.db.prepare('SELECT 1 FROM exec_approvals WHERE fingerprint = ?').pluck().get(fingerprint) === 1;
  }

  approve(fp: ExecFingerprint, meta: { kubeconfig: string; user: string | null }): void {
    this.db
      .prepare(
        `INSERT INTO exec_approvals (fingerprint, command_path, sha256, args, env_names, kubeconfig_path, user_name, approved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(fingerprint) DO UPDATE SET approved_at = excluded.approved_at`,
      )
      .run(fp.fingerprint, fp.path, fp.sha256, JSON.stringify(fp.args), JSON.stringify(fp.envNames), meta.kubeconfig, meta.user, this.now());
  }

  revoke(fingerprint: string): void {
    this.db.prepare('DELETE FROM exec_approvals WHERE fingerprint = ?').run(fingerprint);
  }

  list(): ExecApprovalRow[] {
    const rows = this.db.prepare('SELECT * FROM exec_approvals ORDER BY approved_at DESC').all() as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      fingerprint: String(r.fingerprint),
      commandPath: String(r.command_path),
      sha256: String(r.sha256),
      args: JSON.parse(String(r.args)) as string[],
      envNames: JSON.parse(String(r.env_names)) as string[],
      kubeconfigPath: String(r.kubeconfig_path),
      userName: (r.user_name as string | null) ?? null,
      approvedAt: Number(r.approved_at),
    }));
  }
}
