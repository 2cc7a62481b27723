import { renderReport } from '../../../../shared/report/render';
import type { ReportFacts } from '../../../../shared/report/report-facts';
import { bundleService } from '../../bundle/bundle-service';
import { runKubectlVersion } from '../../bundle/sources';
import { kubeInventory } from '../../kube/inventory';
import { bundleReportFacts, gatherReportFacts } from '../../report/facts';
import type { Handlers } from '../handler';

/**
 * Bundles and reports (DESIGN.md section 6). Preview and export are operations (their signal is the operation's,
 * not the call's: closing a browser tab does not cancel a bundle being written).
 */
export const bundleHandlers: Pick<Handlers, 'bundles:preview' | 'bundles:export' | 'reports:render'> = {
  'bundles:preview': (input, { core }) => ({ operationId: bundleService(core).startPreview(input).operationId }),
  'bundles:export': (input, { core }) => ({ operationId: bundleService(core).startExport({ previewId: input.previewId, spec: input.spec, output: input.output }).operationId }),
  'reports:render': async (input, { core, signal }) => {
    let facts: ReportFacts;
    if (input.bundle) {
      facts = await bundleReportFacts(input.bundle, core.clock.now());
    } else {
      // `kubectl version` with the cluster's kubeconfig when kubectl is installed and we are online.
      let kubectl: string | null = null;
      if (!core.offline) {
        const cluster = input.kubeconfig || input.context ? null : core.repos.clusters.find(input.cluster ?? '') ?? null;
        let kubeconfig = cluster?.kubeconfigPath ?? null;
        let context = cluster?.context ?? null;
        if (input.kubeconfig || input.context) {
          try {
            const { ctx } = kubeInventory(core).resolve({ kubeconfig: input.kubeconfig ?? null, context: input.context ?? null });
            kubeconfig = ctx.sourceFile;
            context = ctx.contextName;
          } catch {
            kubeconfig = null;
          }
        } else if (!cluster) {
          const active = core.repos.clusters.list()[0];
          kubeconfig = active?.kubeconfigPath ?? null;
          context = active?.context ?? null;
        }
        if (kubeconfig) kubectl = await runKubectlVersion(kubeconfig, context, signal ?? AbortSignal.timeout(20_000), core.config.env ?? process.env);
      }
      facts = gatherReportFacts(core, { cluster: input.cluster, kubeconfig: input.kubeconfig, context: input.context, node: input.node! }, { kubectlVersion: kubectl });
    }
    const report = renderReport(facts, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.problem !== undefined ? { problem: input.problem } : {}),
      ...(input.expected !== undefined ? { expected: input.expected } : {}),
      ...(input.repro !== undefined ? { repro: input.repro } : {}),
      ...(input.additional !== undefined ? { additional: input.additional } : {}),
    });
    const text = input.format === 'url' ? report.url : input.format === 'json' ? JSON.stringify(report, null, 2) : report.body;
    return { format: input.format, text, report };
  },
};
