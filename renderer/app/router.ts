import { useEffect, useState } from 'react';

export const NODE_TABS = ['overview', 'findings', 'services', 'network', 'dns', 'logs', 'access', 'activity'] as const;
export type NodeTab = (typeof NODE_TABS)[number];

export const NODE_ACTIONS = ['restart', 'collect', 'report'] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

/** Every screen the app can show. Hash routes, so they work from file:// (Electron) and the web host alike. */
export type Route =
  | { name: 'fleet' }
  | { name: 'node'; node: string; tab: NodeTab; action: NodeAction | null }
  | { name: 'activity' }
  | { name: 'import' }
  | { name: 'pods' }
  | { name: 'credentials' };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', query = ''] = raw.split('?');
  const parts = path.split('/').filter(Boolean);
  const params = new URLSearchParams(query);
  if (parts[0] === 'nodes' && parts[1]) {
    let node: string;
    try {
      node = decodeURIComponent(parts[1]);
    } catch {
      return { name: 'fleet' };
    }
    const tab = params.get('tab');
    const action = parts[2];
    return {
      name: 'node',
      node,
      tab: (NODE_TABS as readonly string[]).includes(tab ?? '') ? (tab as NodeTab) : 'overview',
      action: (NODE_ACTIONS as readonly string[]).includes(action ?? '') ? (action as NodeAction) : null,
    };
  }
  if (parts[0] === 'activity') return { name: 'activity' };
  if (parts[0] === 'import') return { name: 'import' };
  if (parts[0] === 'pods') return { name: 'pods' };
  if (parts[0] === 'settings' && parts[1] === 'credentials') return { name: 'credentials' };
  return { name: 'fleet' };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'fleet':
      return '#/';
    case 'node': {
      const base = `#/nodes/${encodeURIComponent(route.node)}${route.action ? `/${route.action}` : ''}`;
      return route.tab === 'overview' ? base : `${base}?tab=${route.tab}`;
    }
    case 'activity':
      return '#/activity';
    case 'import':
      return '#/import';
    case 'pods':
      return '#/pods';
    case 'credentials':
      return '#/settings/credentials';
  }
}

export function navigate(route: Route): void {
  const href = routeHref(route);
  if (window.location.hash !== href) window.location.hash = href;
}

/** The current route, following hash changes (back/forward work). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
