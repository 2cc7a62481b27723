// @vitest-environment happy-dom
import { act, screen } from '@testing-library/react';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeListResult } from '../../../../../shared/contract/methods/nodes';
import type { NodeSummary } from '../../../../../shared/domain/node';
import type { QueryState } from '../../../../../renderer/api/use-query';
import { DEFAULT_SORT, EMPTY_FILTER } from '../../../../../renderer/features/nodes/fleet-model';
import { FleetView, type FleetState } from '../../../../../renderer/features/nodes/fleet-view';

// A real full GC from inside the test (vitest's worker is not started with --expose-gc).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const NODES = 300;
const STATE: FleetState = { filter: EMPTY_FILTER, sort: DEFAULT_SORT, activeName: null };
const onState = () => undefined;

// A FinalizationRegistry, not WeakRefs: a WeakRef made or read in a job keeps its target alive until the job ends.
const gone = new Set<string>();
const collected = new FinalizationRegistry<string>((what) => gone.add(what));

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = '';
});

/** One generation of the node list: every node a new object, as after watch events replaced them all. */
function generation(g: number): QueryState<NodeListResult> {
  const nodes: NodeSummary[] = Array.from({ length: NODES }, (_, i) => ({
    name: `node-${String(i).padStart(4, '0')}`,
    os: 'windows',
    ready: true,
    windowsBuild: 20348,
    windowsRelease: 'Windows Server 2022',
    kubeletVersion: 'v1.32.1',
    containerRuntime: `containerd://1.7.${g}`,
    internalIP: '127.0.10.11',
    podCount: 4,
    health: 'healthy',
    reasons: [],
    syncedAt: Date.now() - 60_000,
  }));
  if (g === 1) {
    collected.register(nodes, 'the first node list array');
    collected.register(nodes[0]!, 'the first node of the first list');
    collected.register(nodes[NODES - 1]!, 'the last node of the first list');
  }
  return {
    status: 'ok',
    data: { cluster: null, nodes, probes: {}, cursor: String(g), full: g === 1, removed: [] },
    error: null,
    loadedAt: Date.now(),
    refreshing: false,
    refetch: () => undefined,
  };
}

/**
 * The view for one generation, built where no closure holds the list: React's development build keeps the call
 * stack of each element's creation (with the closures on it), which would keep the first list alive on its own.
 */
function show(g: number): void {
  const element: ReactElement = <FleetView nodes={generation(g)} findings={null} state={STATE} onState={onState} />;
  act(() => root!.render(element));
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    gc();
  }
}

describe('fleet view: replaced node lists are not kept alive', () => {
  it('lets the first node list and its node objects go once every node was replaced', async () => {
    root = createRoot(document.body.appendChild(document.createElement('div')));
    show(1);
    expect(screen.getByRole('grid', { name: 'Nodes' })).toBeTruthy();
    expect(screen.getAllByText('containerd://1.7.1', { selector: 'td' }).length).toBeGreaterThan(0);

    // Two more generations: React's current and alternate trees then hold only generations 2 and 3.
    for (const g of [2, 3]) {
      show(g);
      await settle();
    }
    expect(screen.getAllByText('containerd://1.7.3', { selector: 'td' }).length).toBeGreaterThan(0);
    expect(screen.queryByText('containerd://1.7.1', { selector: 'td' })).toBeNull();

    // Finalization callbacks run as tasks after a GC found the objects dead.
    const deadline = Date.now() + 5_000;
    while (gone.size < 3 && Date.now() < deadline) await settle();
    expect([...gone].sort()).toEqual(['the first node list array', 'the first node of the first list', 'the last node of the first list']);
  });
});
