import type { Migration } from './migration';
import { m0001Initial } from './migrations/0001-initial';
import { m0010ClusterInventory } from './migrations/0010-cluster-inventory';
import { m0011ExecApprovals } from './migrations/0011-exec-approvals';
import { m0012NodeSummaryColumn } from './migrations/0012-node-summary-column';
import { m0013NodeRevisions } from './migrations/0013-node-revisions';
import { m0020NodeAccessAndProbes } from './migrations/0020-node-access-and-probes';
import { m0035NodeProbeSummary } from './migrations/0035-node-probe-summary';
import { m0040BundleJobs } from './migrations/0040-bundle-jobs';

/**
 * All migrations in order. Numbering ranges keep parallel work apart: 0001-0009 foundation,
 * 0010-0019 cluster inventory, 0020-0029 transports/credentials, 0030-0039 probes and diagnosis,
 * 0040-0049 bundles and reports, 0050-0059 restarts, 0060-0069 UI settings.
 */
export const MIGRATIONS: readonly Migration[] = [
  m0001Initial,
  m0010ClusterInventory,
  m0011ExecApprovals,
  m0012NodeSummaryColumn,
  m0013NodeRevisions,
  m0020NodeAccessAndProbes,
  m0035NodeProbeSummary,
  m0040BundleJobs,
];
