// Static security scan of the desktop app: @doyensec/electronegativity over the built Electron main, preload and
// renderer, plus Windeck's own checks of the same output. Exit 0 when clean, 1 on a HIGH finding, a file the
// scanner could not parse, or a failed Windeck check (so a broken scan can never look like a clean one).
//
//   node build/electron-scan.mjs              build main/preload/renderer into a temp dir from source, then scan
//   node build/electron-scan.mjs --dist DIR   scan an existing build (DIR/electron/main.js, DIR/renderer/...)
//   add --json for a machine-readable report on stdout (used by test/unit/electron/main/security-scan.test.ts)
//
// Runs offline: the tool's network calls (translations, release notes) are disabled by electron-scan-offline.cjs,
// and the AVAILABLE_SECURITY_FIXES check (which needs the network) is excluded.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const require = createRequire(import.meta.url);

/** Checks left out, with the reason (printed in every report). */
export const EXCLUDED_CHECKS = {
  AvailableSecurityFixesGlobalCheck: 'needs the network (downloads Electron release notes); Electron is pinned in package.json',
};

/**
 * MEDIUM findings a person reviewed, with the reason. A MEDIUM finding not listed here fails the scan, so a new
 * one gets looked at; HIGH findings always fail.
 */
export const REVIEWED_MEDIUM = {
  OPEN_EXTERNAL_JS_CHECK:
    'the one shell.openExternal call (main.ts openExternal) only runs for URLs that pass isAllowedExternalUrl (policies.ts, hostile-URL corpus in policies.test.ts)',
  CUSTOM_ARGUMENTS_JS_CHECK:
    'the one appendSwitch (chromium-flags.ts applyRendererFlags) adds a fixed V8 heap-size flag to --js-flags (no security switch, no value from outside; chromium-flags.test.ts)',
};

function electronVersion() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return String(pkg.devDependencies?.electron ?? '').replace(/^[^0-9]*/, '');
}

/** Build main, preload and renderer from source into `out` (same shapes as build/build.mjs). */
async function buildInto(out) {
  const { build } = await import('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: (await import('./node-externals.mjs')).nodeExternals(),
    plugins: [(await import('./node-externals.mjs')).withoutZodLocales],
    logLevel: 'error',
    loader: { '.ps1': 'text' },
    define: { WINDECK_VERSION: '"scan"' },
  };
  await build({ ...common, format: 'esm', entryPoints: [path.join(root, 'electron/main/main.ts')], outfile: path.join(out, 'electron/main.js') });
  await build({ ...common, format: 'cjs', entryPoints: [path.join(root, 'electron/preload/preload.ts')], outfile: path.join(out, 'electron/preload.cjs') });
  const viteConfig = path.join(root, 'build/vite.renderer.config.ts');
  if (fs.existsSync(viteConfig)) {
    const { build: viteBuild } = await import('vite');
    await viteBuild({ configFile: viteConfig, logLevel: 'error', build: { outDir: path.join(out, 'renderer'), emptyOutDir: true, sourcemap: false } });
  }
}

/** Copy just what ships (JS, HTML; no source maps, which would be scanned as code) into the scan input. */
function stageInput(dist, input) {
  const files = [];
  const copy = (from, to) => {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    files.push(path.relative(input, to));
  };
  for (const name of ['main.js', 'preload.cjs']) {
    const from = path.join(dist, 'electron', name);
    if (!fs.existsSync(from)) throw new Error(`missing ${from}: run \`npm run build\` first`);
    // electronegativity picks files by extension (.js, .html, ...); give the CommonJS preload a .js name.
    copy(from, path.join(input, 'electron', name.replace(/\.cjs$/, '.js')));
  }
  const renderer = path.join(dist, 'renderer');
  if (!fs.existsSync(path.join(renderer, 'index.html'))) throw new Error(`missing ${renderer}/index.html: the renderer is not built`);
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(m?js|html?)$/.test(entry.name)) copy(full, path.join(input, 'renderer', path.relative(renderer, full)));
    }
  };
  walk(renderer);
  return files;
}

/** Scan HTML as the window receives it: through the windeck:// protocol handler (which adds the CSP meta tag). */
async function serveHtmlThroughProtocol(dist, input, work) {
  const { build } = await import('esbuild');
  const handlerFile = path.join(work, 'app-protocol.mjs');
  await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'error',
    entryPoints: [path.join(root, 'electron/main/app-protocol.ts')],
    outfile: handlerFile,
  });
  const { createAppProtocolHandler } = await import(pathToFileURL(handlerFile).href);
  const handle = createAppProtocolHandler({ rootDir: path.join(dist, 'renderer') });
  const stagedRenderer = path.join(input, 'renderer');
  const htmlFiles = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.html?$/.test(entry.name)) htmlFiles.push(full);
    }
  };
  walk(stagedRenderer);
  for (const file of htmlFiles) {
    const urlPath = path.relative(stagedRenderer, file).split(path.sep).map(encodeURIComponent).join('/');
    const response = await handle(new Request(`windeck://app/${urlPath}`));
    if (response.status !== 200) throw new Error(`the windeck:// handler answered ${response.status} for ${urlPath}`);
    fs.writeFileSync(file, await response.text());
  }
}

function writeScanPackageJson(input) {
  // The tool reads the Electron version from a package.json next to the code.
  fs.writeFileSync(
    path.join(input, 'package.json'),
    JSON.stringify({ name: 'windeck-scan', version: '0.0.0', devDependencies: { electron: electronVersion() } }),
  );
}

/** Run electronegativity in a child process with the offline hook; answers its issues and parse errors. */
function runElectronegativity(input) {
  const toolDir = path.dirname(require.resolve('@doyensec/electronegativity/package.json'));
  const outFile = path.join(input, '..', 'electronegativity.json');
  const worker = `
    const run = require(${JSON.stringify(path.join(toolDir, 'dist/runner.js'))});
    const fs = require('node:fs');
    const log = console.log; console.log = () => {};
    run({ input: ${JSON.stringify(input)}, output: undefined, isSarif: false, customScan: [], excludeFromScan: ${JSON.stringify(Object.keys(EXCLUDED_CHECKS))},
          severitySet: undefined, confidenceSet: undefined, isRelative: true, isVerbose: false, electronUpgrade: undefined,
          electronVersionOverride: ${JSON.stringify(electronVersion())}, parserPlugins: [] }, false)
      .then((r) => {
        const issues = r.issues.map((i) => ({ id: i.id, file: i.file, line: i.location && i.location.line, column: i.location && i.location.column,
          severity: i.severity && i.severity.name, confidence: i.confidence && i.confidence.name, manualReview: !!i.manualReview, description: i.description, sample: i.sample }));
        fs.writeFileSync(${JSON.stringify(outFile)}, JSON.stringify({ checks: r.globalChecks + r.atomicChecks, issues, errors: r.errors }));
        console.log = log;
      })
      .catch((e) => { console.error(e && e.stack || String(e)); process.exit(2); });
  `;
  const netLog = path.join(input, '..', 'network-attempts.log');
  const child = spawnSync(process.execPath, ['--require', path.join(here, 'electron-scan-offline.cjs'), '-e', worker], {
    encoding: 'utf8',
    cwd: input,
    timeout: 300_000,
    env: { ...process.env, WINDECK_SCAN_NET_LOG: netLog, LANG: 'en-US' },
  });
  if (child.status !== 0 || !fs.existsSync(outFile)) {
    throw new Error(`electronegativity did not run (exit ${child.status}): ${(child.stderr || child.stdout || '').slice(0, 2000)}`);
  }
  const attempts = fs.existsSync(netLog) ? fs.readFileSync(netLog, 'utf8').split('\n').filter(Boolean) : [];
  return { ...JSON.parse(fs.readFileSync(outFile, 'utf8')), network: attempts };
}

/** Windeck's own checks of the built output: the things electronegativity does not look at. */
export function windeckChecks(input) {
  const problems = [];
  const read = (rel) => fs.readFileSync(path.join(input, rel), 'utf8');
  const preload = read('electron/preload.js');
  const requires = [...preload.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  if (requires.some((r) => r !== 'electron')) problems.push(`the sandboxed preload requires more than electron: ${[...new Set(requires)].join(', ')}`);
  const exposes = [...preload.matchAll(/exposeInMainWorld\(\s*["']([^"']+)["']/g)].map((m) => m[1]);
  if (exposes.length !== 1 || exposes[0] !== 'windeck')
    problems.push(`the preload must expose exactly window.windeck, found: ${exposes.join(', ') || 'nothing'}`);
  if (/exposeInMainWorld\(\s*["'][^"']+["']\s*,\s*(?:[\w$]+\.)?ipcRenderer\s*\)/.test(preload)) problems.push('the preload exposes ipcRenderer itself');
  const main = read('electron/main.js');
  for (const [needle, what] of [
    [/sandbox:\s*true/, 'sandbox: true'],
    [/contextIsolation:\s*true/, 'contextIsolation: true'],
    [/nodeIntegration:\s*false/, 'nodeIntegration: false'],
    [/webSecurity:\s*true/, 'webSecurity: true'],
    [/setPermissionRequestHandler\(/, 'a permission request handler'],
    [/setWindowOpenHandler\(/, 'a window open handler'],
    [/["']will-navigate["']/, 'a will-navigate guard'],
    [/enableSandbox\(\)/, 'app.enableSandbox()'],
    [/registerSchemesAsPrivileged\(/, 'the windeck:// scheme'],
  ]) {
    if (!needle.test(main)) problems.push(`the main bundle lacks ${what}`);
  }
  for (const [needle, what] of [
    [/nodeIntegration:\s*true/, 'nodeIntegration: true'],
    [/contextIsolation:\s*false/, 'contextIsolation: false'],
    [/sandbox:\s*false/, 'sandbox: false'],
    [/webSecurity:\s*false/, 'webSecurity: false'],
    [/allowRunningInsecureContent:\s*true/, 'allowRunningInsecureContent: true'],
    [/\bloadFile\(|file:\/\/\$\{|["']file:\/\//, 'a file:// page load'],
    [/ELECTRON_DISABLE_SECURITY_WARNINGS/, 'disabled security warnings'],
  ]) {
    if (needle.test(main)) problems.push(`the main bundle contains ${what}`);
  }
  const openExternalCalls = (main.match(/\bopenExternal\(/g) ?? []).length;
  // One definition (`function openExternal(`) plus one call of shell.openExternal inside it; more means a new path.
  if ((main.match(/shell\.openExternal\(/g) ?? []).length !== 1)
    problems.push(`shell.openExternal must be called from exactly one place (found ${(main.match(/shell\.openExternal\(/g) ?? []).length})`);
  if (openExternalCalls === 0) problems.push('no openExternal guard found in the main bundle');
  const html = read('renderer/index.html');
  for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
    if (!/\bsrc=/.test(tag)) problems.push("the renderer has an inline <script>, which the CSP (script-src 'self') blocks");
    if (/src=["']?(https?:)?\/\//i.test(tag)) problems.push(`the renderer loads a remote script: ${tag.slice(0, 120)}`);
  }
  if (/<link\b[^>]*href=["']?(https?:)?\/\//i.test(html)) problems.push('the renderer loads a remote stylesheet or resource');
  if (/\son[a-z]+\s*=/i.test(html.replace(/<script[\s\S]*?<\/script>/gi, '')))
    problems.push('the renderer HTML has inline event handlers (blocked by the CSP)');
  return problems;
}

/** True when the TypeScript source loads electron at runtime (a value import, require() or import()). */
export function importsElectronAtRuntime(fileName, text) {
  const ts = require('typescript');
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  let found = false;
  const isElectron = (node) => node && ts.isStringLiteralLike(node) && node.text === 'electron';
  const visit = (node) => {
    if (found) return;
    if (ts.isImportDeclaration(node) && isElectron(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypeNames = named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      // `import 'electron'` (no clause) runs it; `import type` / all `type` names do not.
      if (!clause || !(clause.isTypeOnly || (allTypeNames && !clause.name))) found = true;
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      !node.isTypeOnly &&
      ts.isExternalModuleReference(node.moduleReference) &&
      isElectron(node.moduleReference.expression)
    ) {
      found = true;
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && isElectron(node.moduleSpecifier)) {
      found = true;
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      isElectron(node.arguments[0])
    ) {
      found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Source rule (STYLE.md section 1): only the two entry files import electron at runtime; the rest is testable. */
export function electronImportCheck() {
  const problems = [];
  const allowed = new Set(['electron/main/main.ts', 'electron/preload/preload.ts']);
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && rel !== 'test/fixtures') walk(rel);
      } else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(path.join(root, rel), 'utf8');
        if (text.includes('electron') && importsElectronAtRuntime(rel, text) && !allowed.has(rel)) {
          problems.push(`${rel} imports electron at runtime (only ${[...allowed].join(' and ')} may; use \`import type\` and a port)`);
        }
      }
    }
  };
  for (const dir of ['electron', 'shared', 'renderer', 'test']) if (fs.existsSync(path.join(root, dir))) walk(dir);
  for (const rel of allowed) {
    if (fs.existsSync(path.join(root, rel)) && !importsElectronAtRuntime(rel, fs.readFileSync(path.join(root, rel), 'utf8')))
      problems.push(`the import check did not recognise the electron import of ${rel}`);
  }
  return problems;
}

export async function scan({ dist } = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'windeck-scan-'));
  try {
    let from = dist;
    if (!from) {
      from = path.join(work, 'dist');
      await buildInto(from);
    }
    const input = path.join(work, 'input');
    const files = stageInput(path.resolve(from), input);
    await serveHtmlThroughProtocol(path.resolve(from), input, work);
    writeScanPackageJson(input);
    const tool = runElectronegativity(input);
    const high = tool.issues.filter((i) => i.severity === 'HIGH');
    const unreviewed = tool.issues.filter((i) => i.severity === 'MEDIUM' && !Object.hasOwn(REVIEWED_MEDIUM, i.id));
    const parseErrors = tool.errors.filter((e) => !e.tolerable);
    const own = [...windeckChecks(input), ...electronImportCheck()];
    const ok = high.length === 0 && unreviewed.length === 0 && parseErrors.length === 0 && own.length === 0 && tool.checks > 0 && files.length >= 3;
    // `got` calls answered offline are expected (translations); a real socket attempt means the wrapping leaked.
    const leaked = tool.network.filter((line) => !line.startsWith('got '));
    if (leaked.length > 0) own.push(`electronegativity tried to reach the network (blocked): ${leaked.join(', ')}`);
    return {
      ok: ok && leaked.length === 0,
      files,
      checks: tool.checks,
      network: tool.network,
      excluded: EXCLUDED_CHECKS,
      reviewed: REVIEWED_MEDIUM,
      issues: tool.issues,
      high,
      unreviewed,
      parseErrors,
      windeck: own,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function printReport(report) {
  const out = (line = '') => process.stdout.write(line + '\n');
  out(`electronegativity: ${report.checks} checks over ${report.files.length} files (${report.files.join(', ')})`);
  for (const [check, why] of Object.entries(report.excluded)) out(`  excluded ${check}: ${why}`);
  const bySeverity = (s) => report.issues.filter((i) => i.severity === s);
  for (const severity of ['HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL']) {
    const list = bySeverity(severity);
    out(`  ${severity}: ${list.length}`);
    for (const i of list) {
      const note = severity === 'MEDIUM' ? (Object.hasOwn(report.reviewed, i.id) ? ` reviewed: ${report.reviewed[i.id]}` : ' NOT REVIEWED') : '';
      out(`    ${i.id} ${i.file}:${i.line}:${i.column} [${i.confidence}${i.manualReview ? ', review' : ''}]${note}`);
    }
  }
  for (const e of report.parseErrors) out(`  could not parse ${e.file}: ${e.message}`);
  out(`windeck checks: ${report.windeck.length === 0 ? 'all passed' : `${report.windeck.length} failed`}`);
  for (const p of report.windeck) out(`  ${p}`);
  out(report.ok ? 'security scan: PASS (no HIGH findings, every MEDIUM reviewed)' : 'security scan: FAIL');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const distAt = args.indexOf('--dist');
  const report = await scan(distAt >= 0 ? { dist: args[distAt + 1] } : {});
  if (args.includes('--json')) process.stdout.write(JSON.stringify(report) + '\n');
  else printReport(report);
  process.exitCode = report.ok ? 0 : 1;
}
