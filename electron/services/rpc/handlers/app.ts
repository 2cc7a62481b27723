import { CONTRACT_VERSION } from '../../../../shared/contract/version';
import type { Handlers } from '../handler';
import { storePath } from '../../lib/paths';

export interface DemoRegistration {
  kubeconfig: string;
  pid: number;
}

export const appHandlers: Pick<Handlers, 'app:info'> = {
  'app:info': (_input, { core }) => {
    const demo = core.repos.settings.get<DemoRegistration>('demo');
    let running = false;
    if (demo) {
      try {
        process.kill(demo.pid, 0);
        running = true;
      } catch {
        running = false;
      }
    }
    return {
      name: 'Windeck' as const,
      version: core.version,
      contractVersion: CONTRACT_VERSION,
      host: core.host,
      home: core.home,
      storePath: storePath(core.home),
      storeNotice: core.store.notice,
      demo: demo ? { kubeconfig: demo.kubeconfig, running } : null,
    };
  },
};
