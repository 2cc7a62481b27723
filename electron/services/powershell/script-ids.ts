/** Ids of the shipped PowerShell scripts (stable: they appear in the store, bundles and the simulator). */
export const SCRIPT_IDS = [
  'services',
  'service-config',
  'processes',
  'hns-networks',
  'hns-endpoints',
  'hns-policies',
  'net-adapters',
  'dns',
  'os',
  'files',
  'runtime',
  'logs',
  'restart-service',
] as const;

export type ScriptId = (typeof SCRIPT_IDS)[number];

export function isScriptId(value: unknown): value is ScriptId {
  return typeof value === 'string' && (SCRIPT_IDS as readonly string[]).includes(value);
}
