/* global process, Request, setTimeout, URL */
// Runs the built main.js against the fake electron and plays a short session; prints one JSON report.
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url).href);
const { app, record } = await import(new URL('./electron.mjs', import.meta.url).href);
const mainJs = process.argv[2];
const report = {};

const waitFor = async (check, what, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; errors: ${record.errors.join(' | ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

try {
  await import(mainJs);
  app.fireReady();
  if (process.env.FAKE_ELECTRON_SECOND_INSTANCE === '1') {
    await new Promise((r) => setTimeout(r, 50));
    report.quitRequested = app.quitRequested;
    report.windows = record.windows.length;
  } else {
    await waitFor(() => record.windows.length === 1, 'the main window');
    const win = record.windows[0];
    const contents = win.webContents;
    report.userData = app.getPath('userData');
    report.order = record.calls.map((c) => `${c.name}${c.afterReady ? '@ready' : ''}`);
    report.webPreferences = { ...win.options.webPreferences };
    report.loaded = contents.url;
    report.menuLabels = record.menu?.template.map((m) => m.label);
    report.sessionHandlers = Object.keys(record.windows[0].webContents.session.handlers).sort();

    const handler = record.protocolHandlers.get('windeck');
    const page = await handler(new Request('windeck://app/index.html'));
    report.protocol = { status: page.status, csp: page.headers.get('content-security-policy'), body: await page.text() };

    const trusted = { senderFrame: { url: 'windeck://app/index.html', parent: null }, sender: contents };
    const call = record.ipcHandlers.get('windeck:call');
    report.info = await call(trusted, 'app:info', {});
    report.foreign = await call({ senderFrame: { url: 'file:///tmp/x.html', parent: null }, sender: contents }, 'app:info', {});
    for (const l of record.ipcListeners.get('windeck:ready') ?? []) l(trusted);
    const before = contents.sent.length;
    report.opsList = await call(trusted, 'ops:list', {});
    report.openDecision = contents.windowOpenHandler({ url: 'https://github.com/a/b/issues/new' });
    report.externalOpened = record.calls.filter((c) => c.name === 'shell.openExternal').map((c) => c.args[0]);
    const nav = {
      url: 'file:///etc/passwd',
      prevented: false,
      preventDefault() {
        this.prevented = true;
      },
    };
    contents.emit('will-navigate', nav);
    report.navigationPrevented = nav.prevented;
    report.eventsBeforeClose = contents.sent.length - before;

    win.close();
    await waitFor(
      () => record.calls.some((c) => c.name === 'app.quit') && app.listenerCount('quit-done') >= 0 && app.quitRequested >= 2,
      'the second quit after disposal',
    );
    report.quitRequested = app.quitRequested;
  }
  report.errors = record.errors;
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
} catch (error) {
  process.stdout.write(JSON.stringify({ crashed: String(error?.stack ?? error), errors: record.errors }) + '\n');
  process.exit(1);
}
