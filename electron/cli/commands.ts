import type { CommandDef } from './command';
import { serveCommand } from './commands/serve';
import { collectCommand } from './commands/collect';
import { reportCommand } from './commands/report';
import { diagnoseCommand } from './commands/diagnose';
import { restartCommand } from './commands/restart';
import { probeCommand } from './commands/probe';
import { demoCommand } from './commands/demo';
import { nodesCommand } from './commands/nodes';
import { lintWorkloadsCommand } from './commands/lint-workloads';
import { accessCommand } from './commands/access';
import { credentialsCommand } from './commands/credentials';
import { endpointsCommand } from './commands/endpoints';

/** The commands of DESIGN.md section 10, in help order. A command not built yet sets `notYet` instead of `run`. */
export const COMMANDS: readonly CommandDef[] = [
  serveCommand,
  demoCommand,
  nodesCommand,
  probeCommand,
  accessCommand,
  credentialsCommand,
  endpointsCommand,
  diagnoseCommand,
  collectCommand,
  reportCommand,
  restartCommand,
  lintWorkloadsCommand,
];
