import type { Migration } from './migration';
import { m0001Initial } from './migrations/0001-initial';

/**
 * All migrations in order. Numbering ranges keep parallel work apart: 0001-0009 foundation,
 * 0010-0019 cluster inventory, 0020-0029 transports/credentials, 0030-0039 probes and diagnosis,
 * 0040-0049 bundles and reports, 0050-0059 restarts, 0060-0069 UI settings.
 */
export const MIGRATIONS: readonly Migration[] = [m0001Initial];
