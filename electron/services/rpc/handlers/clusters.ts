import { consoleSources } from '../../console-source';
import type { Handlers } from '../handler';

export const clusterHandlers: Pick<
  Handlers,
  'clusters:contexts' | 'clusters:add-kubeconfig' | 'clusters:remove-kubeconfig' | 'clusters:select' | 'clusters:sync' | 'clusters:remove'
> = {
  'clusters:contexts': (_input, { core }) => consoleSources(core).contexts(),
  'clusters:add-kubeconfig': (input, { core }) => consoleSources(core).addKubeconfig(input.path),
  'clusters:remove-kubeconfig': (input, { core }) => consoleSources(core).removeKubeconfig(input.path),
  'clusters:select': (input, { core }) => consoleSources(core).select(input.cluster),
  'clusters:sync': (input, { core }) => consoleSources(core).sync(input.cluster),
  'clusters:remove': (input, { core }) => consoleSources(core).remove(input.cluster, input.confirm),
};
