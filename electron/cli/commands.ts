import type { CommandDef } from './command';
import { serveCommand } from './commands/serve';

const later = (name: string, summary: string, usage: string, issue: string): CommandDef => ({
  name,
  summary,
  usage,
  flags: {},
  notYet: `\`windeck ${name}\` is not implemented yet (${issue}).`,
});

/** The commands of DESIGN.md section 10, in help order. Replace a `later(...)` entry with the real command. */
export const COMMANDS: readonly CommandDef[] = [
  serveCommand,
  later('demo', 'Run the simulated demo cluster in the foreground', 'windeck demo [--nodes N] [--windows M] [--scenario NAME]', 'cluster inventory'),
  later('nodes', 'Node inventory with health (live, else from the store)', 'windeck nodes', 'cluster inventory'),
  later('probe', 'Run probes on a Windows node over SSH or WinRM', 'windeck probe NODE [--probe ID ...]', 'node transports'),
  later('diagnose', 'Diagnose a node, a bundle or a folder of files', 'windeck diagnose NODE | --bundle PATH | --from DIR [--fail-on SEVERITY]', 'diagnostics'),
  later('collect', 'Collect a redacted log bundle from nodes', 'windeck collect NODE ... -o FILE.zip|DIR/ [--since 30m|2h|1d] [--redact standard|strict]', 'bundles'),
  later('report', 'Draft a SIG-Windows GitHub bug report', 'windeck report NODE | --bundle PATH [--format md|json|url] [--problem TEXT] [--expected TEXT] [--repro TEXT]', 'reports'),
  later('restart', 'Guided restart of a node component', 'windeck restart NODE COMPONENT [--dry-run] [--yes]', 'guided restarts'),
  later('lint-workloads', 'Check workloads that can land on Windows nodes', 'windeck lint-workloads [-n NAMESPACE]', 'cluster inventory'),
];
