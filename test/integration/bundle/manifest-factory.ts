import { buildManifest } from '../../../electron/services/bundle/manifest';
import type { BundleStage } from '../../../electron/services/bundle/stage';
import type { BundleFile, BundleManifest } from '../../../shared/contract/methods/bundles';

/** The manifest factory writeBundleZip / writeBundleDir take, with fixed test metadata and the stage's counts. */
export function manifestFactory(stage: BundleStage): (files: BundleFile[], part?: { index: number; count: number }) => BundleManifest {
  return (files, part) =>
    buildManifest({
      created: new Date(0),
      toolVersion: 't',
      cluster: { context: 'c', server: null, kubernetesVersion: null },
      nodes: ['n'],
      files,
      level: 'standard',
      counts: stage.counts,
      errors: [],
      ...(part ? { part } : {}),
    });
}
