// @vitest-environment happy-dom
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Services } from '../../../../../electron/services/create-services';
import { KeyedSecretStore } from '../../../../../electron/services/lib/secret-store';
import { startWindowsNodeSimulator, type WindowsNodeSimulator } from '../../../../../electron/sim/windows-node/simulator';
import type { CredentialInfo, EndpointInfo } from '../../../../../shared/contract/methods/access';
import { WindeckClient } from '../../../../../renderer/api/client';
import { App } from '../../../../../renderer/app/app';
import { testServices } from '../../../../helpers/services';
import { tempDir } from '../../../../helpers/temp-dir';
import { inProcessTransport } from '../../in-process-transport';
import { nodeModel, seedCluster } from '../../seed';

/**
 * The Access tab and the Credentials screen against the real backend (dispatch, handlers, SQLite, secret store,
 * transports) through the in-process transport; the SSH side of the access check dials real loopback sockets.
 */

const SECRET_KEY = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1';
const SECRET = 'pa$$ w0rd "quoted"';

let env: ReturnType<typeof testServices>;
let userHome: ReturnType<typeof tempDir>;
const stops: Array<() => Promise<void> | void> = [];

function start(opts: { secretStore: boolean }) {
  userHome = tempDir('windeck-user-');
  env = testServices({
    // A clean user home: no ~/.ssh/config, known_hosts or ssh-agent from the machine running the tests.
    env: { HOME: userHome.dir, PATH: process.env.PATH ?? '' },
    secretStore: opts.secretStore ? new KeyedSecretStore(SECRET_KEY) : null,
  });
  return env.services;
}

async function call<T>(services: Services, method: string, input: unknown): Promise<T> {
  const r = await services.dispatch(method, input, { host: 'test' });
  if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

function renderApp(services: Services, hash: string) {
  window.location.hash = hash;
  render(<App client={new WindeckClient(inProcessTransport(services))} />);
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeEach(() => {
  window.localStorage.clear();
});
afterEach(async () => {
  cleanup();
  for (const s of stops.splice(0).reverse()) await s();
  await env.cleanup();
  userHome.cleanup();
});

describe('Credentials screen against the real backend', () => {
  it('lists, adds (secret sent once, field cleared, never shown) and removes a credential after confirmation', async () => {
    const services = start({ secretStore: true });
    seedCluster(services, { nodes: [nodeModel('win-1')] });
    renderApp(services, '#/settings/credentials');
    await screen.findByRole('heading', { name: 'Credentials', level: 2 });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Credentials' }).getAttribute('aria-current')).toBe('page');
    await screen.findByText(/No credentials yet/);

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'win-admin' } });
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'ssh-password' } });
    fireEvent.change(screen.getByLabelText('User'), { target: { value: 'Administrator' } });
    fireEvent.click(screen.getByLabelText('Node group'));
    fireEvent.change(screen.getByLabelText(/Node-name pattern/), { target: { value: 'win-*' } });
    const secret = screen.getByLabelText('Password') as HTMLInputElement;
    expect(secret.type).toBe('password');
    fireEvent.change(secret, { target: { value: SECRET } });
    fireEvent.click(screen.getByRole('button', { name: 'Save credential' }));

    await screen.findByText(/Saved win-admin: SSH password, Node group win-\*, secret sealed/);
    expect((screen.getByLabelText('Password') as HTMLInputElement).value).toBe('');
    const table = await screen.findByRole('region', { name: 'Credential sets' });
    const row = within(table).getByRole('row', { name: /win-admin/ });
    expect(row.textContent).toContain('SSH password');
    expect(row.textContent).toContain('Administrator');
    expect(row.textContent).toContain('Node group win-*');
    expect(row.textContent).toContain('Stored (env-key)');
    expect(document.body.innerHTML).not.toContain('w0rd');

    // Real backend state: sealed, not in clear.
    const listed = await call<CredentialInfo[]>(services, 'credentials:list', {});
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'win-admin', kind: 'ssh-password', scope: 'node-group', selector: 'win-*', hasSecret: true });
    const blob = services.core.store.db.prepare('SELECT secret_blob FROM credentials').pluck().get() as Buffer;
    expect(blob.includes(Buffer.from('w0rd'))).toBe(false);

    // Remove: first a confirmation, then gone from the screen and the store.
    fireEvent.click(within(row).getByRole('button', { name: 'Remove… credential win-admin' }));
    const confirm = screen.getByRole('group', { name: 'Confirm removing credential win-admin' });
    expect(await call<CredentialInfo[]>(services, 'credentials:list', {})).toHaveLength(1);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Remove win-admin' }));
    await screen.findByText(/No credentials yet/);
    expect(await call<CredentialInfo[]>(services, 'credentials:list', {})).toEqual([]);
  });

  it('shows a CONFLICT in the row when an endpoint uses the credential, and can remove it anyway', async () => {
    const services = start({ secretStore: true });
    const cluster = seedCluster(services, { nodes: [nodeModel('win-1')] });
    await call(services, 'credentials:set', { cluster, name: 'used', kind: 'ssh-agent', scope: 'cluster', username: 'admin' });
    await call(services, 'endpoints:set', { cluster, node: 'win-1', transport: 'ssh', host: '127.0.0.1', credential: 'used' });
    renderApp(services, '#/settings/credentials');
    const row = within(await screen.findByRole('region', { name: 'Credential sets' })).getByRole('row', { name: /used/ });
    expect(row.textContent).toContain('Not needed');
    fireEvent.click(within(row).getByRole('button', { name: 'Remove… credential used' }));
    fireEvent.click(within(row).getByRole('button', { name: 'Remove used' }));
    const alert = await within(row).findByRole('alert');
    expect(alert.textContent).toContain('CONFLICT');
    expect(alert.textContent).toContain('win-1 (ssh)');
    expect(await call<CredentialInfo[]>(services, 'credentials:list', {})).toHaveLength(1);
    fireEvent.click(within(row).getByRole('button', { name: 'Remove anyway used and clear it from those endpoints' }));
    await screen.findByText(/No credentials yet/);
    const [ep] = await call<EndpointInfo[]>(services, 'endpoints:list', { cluster, node: 'win-1' });
    expect(ep).toMatchObject({ transport: 'ssh', credential: null });
  });

  it('says plainly that no secret store exists (STORE_UNAVAILABLE), saves nothing, and can save without the secret', async () => {
    const services = start({ secretStore: false });
    seedCluster(services, { nodes: [nodeModel('win-1')] });
    renderApp(services, '#/settings/credentials');
    await screen.findByText(/No credentials yet/);
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'winrm-ops' } });
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'winrm-ntlm' } });
    fireEvent.change(screen.getByLabelText('User'), { target: { value: 'CORP\\ops' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: SECRET } });
    fireEvent.click(screen.getByRole('button', { name: 'Save credential' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('No secret store on this host: nothing was saved');
    expect(alert.textContent).toContain('STORE_UNAVAILABLE');
    expect(alert.textContent).toContain('WINDECK_SECRET_KEY');
    expect((screen.getByLabelText('Password') as HTMLInputElement).value).toBe('');
    expect(await call<CredentialInfo[]>(services, 'credentials:list', {})).toEqual([]);

    fireEvent.click(within(alert).getByRole('button', { name: 'Save without the secret' }));
    await screen.findByText(/Saved winrm-ops: WinRM NTLM, Cluster-wide, no secret stored/);
    const row = within(await screen.findByRole('region', { name: 'Credential sets' })).getByRole('row', { name: /winrm-ops/ });
    expect(row.textContent).toContain('None stored');
    const listed = await call<CredentialInfo[]>(services, 'credentials:list', {});
    expect(listed[0]).toMatchObject({ name: 'winrm-ops', kind: 'winrm-ntlm', username: 'CORP\\ops', hasSecret: false });
  });
});

describe('node Access tab against the real backend', () => {
  it('sets an SSH and a WinRM endpoint override, shows where each came from, and removes one', async () => {
    const services = start({ secretStore: true });
    const cluster = seedCluster(services, { nodes: [nodeModel('win-1', { internalIP: '127.0.10.11' })] });
    await call(services, 'credentials:set', { cluster, name: 'ops', kind: 'winrm-ntlm', scope: 'cluster', username: 'ops', secret: 'x' });
    renderApp(services, '#/nodes/win-1?tab=access');
    expect((await screen.findByRole('tab', { name: 'Access' })).getAttribute('aria-selected')).toBe('true');
    const ssh = await screen.findByRole('listitem', { name: 'SSH' });
    expect(ssh.textContent).toContain('No override');
    expect(ssh.textContent).toContain('127.0.10.11');
    const winrm = screen.getByRole('listitem', { name: 'WinRM' });
    expect(winrm.textContent).toContain('Not configured');
    expect(winrm.textContent).toContain('ops');

    // SSH override.
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: '127.0.0.1' } });
    fireEvent.change(screen.getByLabelText('Port (optional)'), { target: { value: '2222' } });
    fireEvent.change(screen.getByLabelText(/User without a credential/), { target: { value: 'Administrator' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save endpoint' }));
    await screen.findByText('Saved: SSH to 127.0.0.1:2222.');
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'SSH' }).textContent).toContain('127.0.0.1:2222'));
    expect(screen.getByRole('listitem', { name: 'SSH' }).textContent).toContain('Override set in Windeck');

    // WinRM over HTTPS with a pinned thumbprint and a named credential.
    fireEvent.change(screen.getByLabelText('Transport'), { target: { value: 'winrm' } });
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'win-1.corp.example' } });
    fireEvent.click(screen.getByLabelText(/Use HTTPS/));
    fireEvent.change(screen.getByLabelText(/Pinned certificate/), { target: { value: 'ab'.repeat(32) } });
    fireEvent.change(screen.getByLabelText('Credential'), { target: { value: 'ops' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save endpoint' }));
    await screen.findByText('Saved: WinRM to https://win-1.corp.example:5986/wsman with ops.');
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'WinRM' }).textContent).toContain('https://win-1.corp.example:5986/wsman'));
    expect(screen.getByRole('listitem', { name: 'WinRM' }).textContent).toContain('AB'.repeat(32));

    const stored = await call<EndpointInfo[]>(services, 'endpoints:list', { cluster, node: 'win-1' });
    expect(stored.map((e) => [e.transport, e.host, e.port, e.source, e.credential])).toEqual(
      expect.arrayContaining([
        ['ssh', '127.0.0.1', 2222, 'override', null],
        ['winrm', 'win-1.corp.example', 5986, 'override', 'ops'],
      ]),
    );
    expect(stored.find((e) => e.transport === 'ssh')!.options).toEqual({ username: 'Administrator' });

    // A bad value is refused by the backend and the reason is shown in the form.
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'bad host;rm' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save endpoint' }));
    expect((await screen.findByRole('alert')).textContent).toContain('VALIDATION');

    // Remove the SSH override (after confirming).
    fireEvent.click(within(screen.getByRole('listitem', { name: 'SSH' })).getByRole('button', { name: 'Remove… the SSH endpoint of win-1' }));
    fireEvent.click(
      within(screen.getByRole('group', { name: 'Confirm removing the SSH endpoint of win-1' })).getByRole('button', { name: 'Remove SSH endpoint' }),
    );
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'SSH' }).textContent).toContain('No override'));
    expect((await call<EndpointInfo[]>(services, 'endpoints:list', { cluster, node: 'win-1' })).map((e) => e.transport)).toEqual(['winrm']);
  });

  it('check access on a node with nothing configured says "not configured" per transport, then "refused" for a closed port', async () => {
    const services = start({ secretStore: true });
    const cluster = seedCluster(services, { nodes: [nodeModel('win-1', { internalIP: '127.0.10.11' })] });
    renderApp(services, '#/nodes/win-1?tab=access');
    fireEvent.click(await screen.findByRole('button', { name: 'Check access' }));
    const table = await screen.findByRole('region', { name: 'Access check of win-1' }, { timeout: 15_000 });
    expect(screen.getByText('No transport reaches win-1.')).toBeTruthy();
    const sshRow = within(table).getByRole('row', { name: /^SSH/ });
    expect(sshRow.textContent).toContain('Not configured');
    expect(sshRow.textContent).toContain('No SSH credential applies to win-1');
    expect(sshRow.textContent).toContain('127.0.10.11:22');
    const winrmRow = within(table).getByRole('row', { name: /^WinRM/ });
    expect(winrmRow.textContent).toContain('Not configured');
    expect(winrmRow.textContent).toContain('No WinRM endpoint is registered for win-1');

    // A credential and an endpoint to a port nothing listens on: refused, with the reason sentence.
    const port = await closedPort();
    await call(services, 'credentials:set', { cluster, name: 'pw', kind: 'ssh-password', scope: 'node', selector: 'win-1', username: 'admin', secret: SECRET });
    await call(services, 'endpoints:set', { cluster, node: 'win-1', transport: 'ssh', host: '127.0.0.1', port });
    fireEvent.click(screen.getByRole('button', { name: 'Check access again' }));
    await waitFor(
      () => expect(within(screen.getByRole('region', { name: 'Access check of win-1' })).getByRole('row', { name: /^SSH/ }).textContent).toContain('Refused'),
      {
        timeout: 15_000,
      },
    );
    const refused = within(screen.getByRole('region', { name: 'Access check of win-1' })).getByRole('row', { name: /^SSH/ });
    expect(refused.textContent).toContain(`127.0.0.1:${port}`);
    expect(refused.textContent).toContain('pw (admin)');
    expect(refused.textContent).toMatch(/refused/i);
    expect(refused.textContent).toContain('Nothing listens on that port');
    expect(document.body.innerHTML).not.toContain('w0rd');
  });

  it('an unknown SSH host key is shown with its fingerprint; "Accept this key" trusts exactly that key and the check then works', async () => {
    const services = start({ secretStore: true });
    const cluster = seedCluster(services, { nodes: [nodeModel('win-a', { internalIP: '127.0.62.1' })] });
    const sim: WindowsNodeSimulator = await startWindowsNodeSimulator({ name: 'win-a', address: '127.0.62.1' });
    stops.push(() => sim.stop());
    const keyPath = path.join(userHome.dir, 'win-a.key');
    fs.writeFileSync(keyPath, sim.credentials.privateKey, { mode: 0o600 });
    await call(services, 'credentials:set', {
      cluster,
      name: 'a-key',
      kind: 'ssh-key',
      scope: 'node',
      selector: 'win-a',
      username: sim.credentials.username,
      keyPath,
    });
    await call(services, 'endpoints:set', { cluster, node: 'win-a', transport: 'ssh', host: sim.ssh.host, port: sim.ssh.port });

    renderApp(services, '#/nodes/win-a?tab=access');
    await screen.findByText(/No SSH host key of win-a is accepted/);
    fireEvent.click(await screen.findByRole('button', { name: 'Check access' }));
    const table = await screen.findByRole('region', { name: 'Access check of win-a' }, { timeout: 15_000 });
    const row = within(table).getByRole('row', { name: /^SSH/ });
    expect(row.textContent).toContain('Host key unknown');
    expect(row.textContent).toContain(sim.ssh.hostKeyFingerprint);
    expect(sim.ssh.server.authAttempts).toEqual([]);

    fireEvent.click(within(row).getByRole('button', { name: `Accept this key ${sim.ssh.hostKeyFingerprint} for win-a` }));
    await screen.findByText(`win-a is reachable over SSH.`, undefined, { timeout: 15_000 });
    const keys = await screen.findByRole('region', { name: 'Host keys of win-a' });
    expect(keys.textContent).toContain(sim.ssh.hostKeyFingerprint);
    const works = within(screen.getByRole('region', { name: 'Access check of win-a' })).getByRole('row', { name: /^SSH/ });
    expect(works.textContent).toContain('Works');
    const stored = await call<Array<{ fingerprint: string; node: string | null }>>(services, 'hostkeys:list', {});
    expect(stored).toEqual([expect.objectContaining({ fingerprint: sim.ssh.hostKeyFingerprint, node: 'win-a' })]);

    // The node is reinstalled: the key changes. Shown as danger with what to do; no "accept" shortcut.
    const attempts = sim.ssh.server.authAttempts.length;
    sim.setFaults({ hostKeyChange: true });
    fireEvent.click(screen.getByRole('button', { name: 'Check access again' }));
    await waitFor(
      () =>
        expect(within(screen.getByRole('region', { name: 'Access check of win-a' })).getByRole('row', { name: /^SSH/ }).textContent).toContain(
          'Host key changed',
        ),
      { timeout: 15_000 },
    );
    const changed = within(screen.getByRole('region', { name: 'Access check of win-a' })).getByRole('row', { name: /^SSH/ });
    expect(changed.className).toContain('access-row-danger');
    expect(changed.textContent).toContain('Do not connect until you know why the key changed');
    const presented = /SHA256:[A-Za-z0-9+/]{43}/.exec(changed.querySelector('.access-fingerprint')?.textContent ?? '')?.[0];
    expect(presented).toBeDefined();
    expect(presented).not.toBe(sim.ssh.hostKeyFingerprint);
    expect(within(changed).queryByRole('button', { name: /Accept this key/ })).toBeNull();
    expect(sim.ssh.server.authAttempts.length).toBe(attempts);

    // Forget the old key (after confirming): the new key is then "unknown", with its own accept action.
    fireEvent.click(screen.getByRole('button', { name: `Forget… the host key ${sim.ssh.hostKeyFingerprint}` }));
    fireEvent.click(
      within(screen.getByRole('group', { name: `Confirm forgetting the host key ${sim.ssh.hostKeyFingerprint}` })).getByRole('button', {
        name: 'Forget this key',
      }),
    );
    await screen.findByText(/No SSH host key of win-a is accepted/);
    expect(await call<unknown[]>(services, 'hostkeys:list', {})).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Check access again' }));
    await screen.findByRole('button', { name: `Accept this key ${presented} for win-a` }, { timeout: 15_000 });
  });
});
