import { describe, expect, it } from 'vitest';
import { AccessOutcome, type CredentialInfo, type EndpointInfo } from '../../../../../shared/contract/methods/access';
import { parseRoute, routeHref, type Route } from '../../../../../renderer/app/router';
import {
  OUTCOME_VIEW,
  addressableName,
  credentialFor,
  outcomeAdvice,
  parsePort,
  scopeText,
  winrmHttps,
} from '../../../../../renderer/features/access/access-model';

function cred(name: string, kind: CredentialInfo['kind'], over: Partial<CredentialInfo> = {}): CredentialInfo {
  return {
    id: `id-${name}`,
    name,
    kind,
    clusterId: 'c',
    scope: 'cluster',
    selector: null,
    username: 'u',
    keyPath: null,
    hasSecret: false,
    secretStoreKind: null,
    priority: 0,
    createdAt: 0,
    ...over,
  };
}

describe('access model', () => {
  it('routes the Access tab and the Credentials screen, and round-trips them', () => {
    const routes: Route[] = [{ name: 'credentials' }, { name: 'node', node: 'win-1', tab: 'access', action: null }];
    for (const r of routes) expect(parseRoute(routeHref(r))).toEqual(r);
    expect(routeHref({ name: 'credentials' })).toBe('#/settings/credentials');
    expect(parseRoute('#/settings/other')).toEqual({ name: 'fleet' });
  });

  it('has a label for every outcome and advice for every outcome that does not work', () => {
    for (const o of AccessOutcome.options) {
      expect(OUTCOME_VIEW[o].label.length).toBeGreaterThan(0);
      for (const t of ['ssh', 'winrm'] as const) {
        const advice = outcomeAdvice(o, t);
        if (o === 'works') expect(advice).toBeNull();
        else expect(advice).toMatch(/\.$/);
      }
    }
    expect(OUTCOME_VIEW['host-key-changed'].tone).toBe('danger');
  });

  it('parses the port field', () => {
    expect(parsePort('')).toEqual({ ok: true, port: undefined });
    expect(parsePort(' 5986 ')).toEqual({ ok: true, port: 5986 });
    expect(parsePort('0').ok).toBe(false);
    expect(parsePort('65536').ok).toBe(false);
    expect(parsePort('22a').ok).toBe(false);
  });

  it('picks the credential the endpoint names, else the first of the transport', () => {
    const list = [cred('node-key', 'ssh-key', { scope: 'node', selector: 'win-1' }), cred('ops', 'winrm-ntlm'), cred('fallback', 'ssh-password')];
    expect(credentialFor('ssh', undefined, list)?.name).toBe('node-key');
    expect(credentialFor('winrm', undefined, list)?.name).toBe('ops');
    const ep = { credential: 'fallback' } as EndpointInfo;
    expect(credentialFor('ssh', ep, list)?.name).toBe('fallback');
    expect(credentialFor('winrm', undefined, [list[0]!])).toBeNull();
  });

  it('describes scopes, HTTPS and which names the contract accepts', () => {
    expect(scopeText({ scope: 'node-group', selector: 'win-*', clusterId: null })).toBe('Node group win-* (every cluster)');
    expect(scopeText({ scope: 'node', selector: 'win-1', clusterId: 'c' })).toBe('Node win-1');
    expect(winrmHttps({ options: {}, url: 'https://h:5986/wsman' })).toBe(true);
    expect(winrmHttps({ options: {}, url: 'http://h:5985/wsman' })).toBe(false);
    expect(addressableName('win-admin')).toBe(true);
    expect(addressableName('demo win-1 (ssh key)')).toBe(false);
  });
});
