import { useRef, type KeyboardEvent } from 'react';
import { NODE_TABS, navigate, type NodeTab } from '../../app/router';

const TAB_LABEL: Record<NodeTab, string> = {
  overview: 'Overview',
  findings: 'Findings',
  services: 'Services',
  network: 'Network',
  dns: 'DNS',
  logs: 'Logs',
  access: 'Access',
  activity: 'Activity',
};

export function tabId(tab: NodeTab): string {
  return `node-tab-${tab}`;
}
export const TAB_PANEL_ID = 'node-tab-panel';

/** WAI-ARIA tabs: one tab stop, arrows move between tabs; each tab is a route so it survives a reload. */
export function NodeTabs({ node, current, counts }: { node: string; current: NodeTab; counts?: Partial<Record<NodeTab, number>> }) {
  const refs = useRef<Partial<Record<NodeTab, HTMLButtonElement | null>>>({});
  function go(tab: NodeTab, focus: boolean) {
    navigate({ name: 'node', node, tab, action: null });
    if (focus) refs.current[tab]?.focus();
  }
  function onKeyDown(e: KeyboardEvent) {
    const i = NODE_TABS.indexOf(current);
    let next: NodeTab | undefined;
    if (e.key === 'ArrowRight') next = NODE_TABS[(i + 1) % NODE_TABS.length];
    else if (e.key === 'ArrowLeft') next = NODE_TABS[(i - 1 + NODE_TABS.length) % NODE_TABS.length];
    else if (e.key === 'Home') next = NODE_TABS[0];
    else if (e.key === 'End') next = NODE_TABS[NODE_TABS.length - 1];
    if (next) {
      e.preventDefault();
      go(next, true);
    }
  }
  return (
    <div className="tabs" role="tablist" aria-label={`Details of ${node}`} onKeyDown={onKeyDown}>
      {NODE_TABS.map((tab) => {
        const count = counts?.[tab];
        return (
          <button
            key={tab}
            ref={(el) => {
              refs.current[tab] = el;
            }}
            type="button"
            role="tab"
            id={tabId(tab)}
            aria-selected={tab === current}
            aria-controls={TAB_PANEL_ID}
            tabIndex={tab === current ? 0 : -1}
            onClick={() => go(tab, false)}
          >
            {TAB_LABEL[tab]}
            {count !== undefined && count > 0 && <span className="tab-count"> ({count})</span>}
          </button>
        );
      })}
    </div>
  );
}
