// Micro-benchmark of the redaction scan kernel (shared/logic/redact-scan-kernel.wat): ns per byte of its `words`
// and `runs` loops, of the copy of the text into wasm memory and of the JavaScript that checks each hit (redact.ts
// scanLatin1's loop: the slot again, the trigger words' and the anchors' starts, matchAtBytes), on real log text,
// for two versions of the .wat (default: the committed HEAD version against the working tree's), alternating A/B,
// several repetitions. Also checks that both versions give the same runs on every chunk and the same hits once
// those that start no word are dropped (a version with the exact-key and next-two-characters checks reports only
// those), and the same words found by the hit loop. Not part of `npm run bench`.
//
//   node bench/scan-kernel.mjs --logs DIR [--reps 7] [--a old.wat] [--b new.wat] [--chunk 524288] [--mib 64]
//     [--a-words wordsScalar] [--b-words words]   (the export each version's word loop is, default `words`)
//     [--no-check]                               (do not compare the two versions' answers)
//
// DIR: log files (e.g. the logs/ folder `node bench/bundle.mjs --quick --keep` leaves). The chunks are cut at line
// ends every --chunk bytes, as the bundle's entry pipeline hands them to the redactor.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import wabtInit from 'wabt';
import { bundleProgram, root } from './lib/build.mjs';
import { helpAndExit } from './lib/usage.mjs';

const args = process.argv.slice(2);
helpAndExit(import.meta.url, args);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const logs = opt('logs', null);
if (!logs) throw new Error('--logs DIR is required');
const reps = Number(opt('reps', '7'));
const chunkBytes = Number(opt('chunk', String(512 * 1024)));
const maxBytes = Number(opt('mib', '64')) * 1024 * 1024;
const watSource = (p) =>
  p === 'HEAD' ? execFileSync('git', ['show', 'HEAD:shared/logic/redact-scan-kernel.wat'], { cwd: root, encoding: 'utf8' }) : fs.readFileSync(p, 'utf8');
const variants = [
  ['A', opt('a', 'HEAD'), opt('a-words', 'words')],
  ['B', opt('b', path.join(root, 'shared/logic/redact-scan-kernel.wat')), opt('b-words', 'words')],
];

// The tables the product fills in (redact-scan-wasm.ts): fold, starts union of the trigger words and the final scan's anchors.
const helper = await bundleProgram(
  'scan-kernel-tables',
  `import { foldTable, LiteralScanner } from './shared/logic/redact-scan';
   import { TRIGGER_WORDS } from './shared/logic/redact-patterns';
   import { SECRETLINT_SCANNER } from './electron/services/bundle/scan';
   import { slotOf } from './shared/logic/redact-scan';
   export { writeSlotSets, slotKeys, slotNext2 } from './shared/logic/redact-scan-wasm';
   export function tables() {
     const trigger = new LiteralScanner(TRIGGER_WORDS);
     const t = trigger.starts;
     const e = SECRETLINT_SCANNER.starts;
     const either = new Uint8Array(4096);
     for (let i = 0; i < 4096; i++) either[i] = (t[i] !== 0 ? 1 : 0) | (e[i] !== 0 ? 2 : 0);
     return { fold: foldTable().subarray(0, 256), either, trigger, extra: SECRETLINT_SCANNER, slotOf };
   }`,
);
const tablesModule = await import(helper);
const { fold, either, trigger, extra, slotOf } = tablesModule.tables();
const { writeSlotSets, slotKeys, slotNext2 } = tablesModule;
// The exact key and the next two characters of each slot (redact-scan-wasm.ts slotKeys, slotNext2; a version
// without the checks ignores them).
const keys = slotKeys(either, [trigger, extra]);
const next2 = slotNext2(either, [trigger, extra]);
/** Whether the offset whose three characters have `key` and whose next two are `pair` (folded; 0 past the end) may start a word. */
const isStart = (key, pair) => {
  const slot = slotOf(key);
  if (either[slot] === 0 || (keys[slot] !== key && keys[slot] !== -1)) return false;
  for (let k = 0; k < 4; k++) if (((next2[slot * 8 + k] ^ pair) & next2[slot * 8 + 4 + k]) === 0) return true;
  return false;
};

const wabt = await wabtInit();
function instantiate(source) {
  const mod = wabt.parseWat('k.wat', source, { simd: true });
  mod.validate();
  const bytes = mod.toBinary({ log: false, write_debug_names: false }).buffer;
  mod.destroy();
  const k = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports;
  // Room for the tables before the text.
  k.memory.grow(Math.ceil(Math.max(0, TEXT_AT - k.memory.buffer.byteLength) / 65536));
  const mem = () => new Uint8Array(k.memory.buffer);
  const m = mem();
  // As redact-scan-wasm.ts fills it (the constants of `words` come with the module's data segment).
  m.set(fold, 0);
  for (let c = 48; c <= 57; c++) m[256 + c] = 1;
  m[256 + 43] = 1;
  m[256 + 47] = 1;
  for (let c = 65; c <= 90; c++) m[256 + c] = 2;
  for (let c = 97; c <= 122; c++) m[256 + c] = 4;
  m.set(either, 1024);
  new Int32Array(m.buffer, KEYS_AT, 4096).set(keys);
  new Uint16Array(m.buffer, NEXT2_AT, next2.length).set(next2);
  // `words`' slot sets (a version without them ignores [512, 656)).
  if (!writeSlotSets(m, either)) throw new Error('the slot sets do not fit');
  return { k, mem };
}

const KEYS_AT = 8192;
const NEXT2_AT = 24576;

// The corpus, in chunks of whole lines.
const chunks = [];
let total = 0;
for (const f of fs.readdirSync(logs).sort()) {
  const b = fs.readFileSync(path.join(logs, f));
  for (let at = 0; at < b.length && total < maxBytes;) {
    let end = Math.min(b.length, at + chunkBytes);
    if (end < b.length) end = b.lastIndexOf(10, end - 1) + 1 || end;
    chunks.push(b.subarray(at, end));
    total += end - at;
    at = end;
  }
}
// After the next two characters' table (a version without it does not read [24576, 90112)).
const TEXT_AT = 90112;
const maxChunk = Math.max(...chunks.map((c) => c.length));
const hitsAt = (TEXT_AT + maxChunk + 7) & ~7;
const hitsCap = maxChunk;
const runsAt = hitsAt + hitsCap * 4;
const need = runsAt + (maxChunk >> 5) * 8 + 512;

const inst = variants.map(([name, file, wordsExport]) => {
  const v = { name, file, wordsExport, ...instantiate(watSource(file)) };
  v.words = v.k[wordsExport];
  const have = v.k.memory.buffer.byteLength;
  if (have < need) v.k.memory.grow(Math.ceil((need - have) / 65536));
  return v;
});

/**
 * redact.ts scanLatin1's loop over the hits of chunk `c` (`count` of them at hitsAt in `v`'s memory): the words
 * found (trigger and anchor matches), as a number that changes with any of them.
 */
function hitLoop(v, c, count) {
  const hits = new Int32Array(v.k.memory.buffer, hitsAt, count);
  const n = c.length;
  const starts = trigger.starts;
  const extraStarts = extra.starts;
  let free = 0;
  let extraFree = 0;
  let found = 0;
  for (let h = 0; h < count; h++) {
    const i = hits[h];
    if (i < 2) continue;
    const at = i - 2;
    const slot = slotOf((fold[c[at]] << 14) | (fold[c[at + 1]] << 7) | fold[c[i]]);
    if (starts[slot] !== 0 && at >= free) {
      const hit = trigger.matchAtBytes(c, n, at, starts[slot]);
      if (hit >= 0) {
        found = (found * 31 + at * 7 + hit) | 0;
        free = at + (hit & 255);
      }
    }
    if (extraStarts[slot] !== 0 && at >= extraFree) {
      const hit = extra.matchAtBytes(c, n, at, extraStarts[slot]);
      if (hit >= 0) {
        found = (found * 17 + at * 5 + hit) | 0;
        extraFree = at + (hit & 255);
      }
    }
  }
  return found;
}

/** The hits of chunk `c` in `v`'s memory (`count` of them) that may start a word (`isStart`). */
function startHits(v, c, count) {
  return Array.from(new Int32Array(v.k.memory.buffer, hitsAt, count)).filter(
    (i) =>
      i >= 2 &&
      isStart(
        (fold[c[i - 2]] << 14) | (fold[c[i - 1]] << 7) | fold[c[i]],
        (i + 1 < c.length ? fold[c[i + 1]] : 0) | ((i + 2 < c.length ? fold[c[i + 2]] : 0) << 8),
      ),
  );
}

// Same answers on every chunk.
const hitTotals = [0, 0];
let startTotal = 0;
let runTotal = 0;
for (const c of chunks) {
  const got = inst.map((v) => {
    v.mem().set(c, TEXT_AT);
    const count = v.words(TEXT_AT, 0, c.length, hitsAt, hitsCap);
    const starts = startHits(v, c, count);
    const found = hitLoop(v, c, count);
    const rc = v.k.runs(TEXT_AT, 0, c.length, runsAt, maxChunk >> 5);
    const runs = Buffer.from(new Uint8Array(v.k.memory.buffer, runsAt, Math.max(0, rc) * 8));
    return { count, starts, found, rc, runs };
  });
  if (
    !args.includes('--no-check') &&
    (got[0].count < 0 ||
      got[1].count < 0 ||
      got[0].starts.join() !== got[1].starts.join() ||
      got[0].found !== got[1].found ||
      got[0].rc !== got[1].rc ||
      !got[0].runs.equals(got[1].runs))
  )
    throw new Error('A and B differ on a chunk');
  hitTotals[0] += got[0].count;
  hitTotals[1] += got[1].count;
  startTotal += got[0].starts.length;
  runTotal += got[0].rc;
}

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
/**
 * One pass over the corpus (process CPU time): what = 'copy' | 'words' | 'runs' | 'all' | 'scan' (each copies the
 * chunks too; scan = all and the JavaScript hit loop).
 */
function pass(v, what) {
  const t0 = cpuNs();
  for (const c of chunks) {
    v.mem().set(c, TEXT_AT);
    const count = what === 'words' || what === 'all' || what === 'scan' ? v.words(TEXT_AT, 0, c.length, hitsAt, hitsCap) : 0;
    if (what === 'runs' || what === 'all' || what === 'scan') v.k.runs(TEXT_AT, 0, c.length, runsAt, maxChunk >> 5);
    if (what === 'scan') hitLoop(v, c, count);
  }
  return cpuNs() - t0;
}

// Warm up (tier-up to TurboFan).
for (const v of inst) for (let r = 0; r < 3; r++) pass(v, 'all');
const results = {};
for (const v of inst) results[v.name] = { copy: [], words: [], runs: [], all: [], scan: [] };
for (let r = 0; r < reps; r++) {
  for (const v of r % 2 === 0 ? inst : [...inst].reverse()) {
    const res = results[v.name];
    // words / runs: their pass minus the copy-only pass next to it.
    const copy = pass(v, 'copy');
    res.copy.push(copy / total);
    res.words.push((pass(v, 'words') - copy) / total);
    res.runs.push((pass(v, 'runs') - copy) / total);
    res.all.push(pass(v, 'all') / total);
    res.scan.push(pass(v, 'scan') / total);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const min = (xs) => Math.min(...xs);
const fmt = (x) => x.toFixed(3);
console.error(
  `corpus ${logs}: ${(total / 1048576).toFixed(1)} MiB in ${chunks.length} chunks; ${runTotal} runs; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`,
);
for (const [k, v] of inst.entries()) {
  const perMiB = (x) => ((x / total) * 1048576).toFixed(0);
  console.error(
    `${v.name}: ${hitTotals[k]} word hits (${perMiB(hitTotals[k])}/MiB, 1 per ${(total / hitTotals[k]).toFixed(0)} bytes), of which ${startTotal} (${perMiB(startTotal)}/MiB) start a word`,
  );
}
console.error(
  'CPU ns/byte, median (min) of',
  reps,
  'alternating reps; copy = mem.set alone; words, runs = their pass minus the copy; all = copy + words + runs; scan = all + the JS hit loop',
);
for (const v of inst) {
  const res = results[v.name];
  console.error(
    `${v.name} ${v.file} (${v.wordsExport}): ` +
      ['copy', 'words', 'runs', 'all', 'scan'].map((k) => `${k} ${fmt(median(res[k]))} (${fmt(min(res[k]))})`).join(', '),
  );
}
const ratio = (k) => median(results.B[k].map((b, r) => b / results.A[k][r]));
console.error(
  `B / A, median of the paired reps: words ${ratio('words').toFixed(2)}, runs ${ratio('runs').toFixed(2)}, all ${ratio('all').toFixed(2)}, scan ${ratio('scan').toFixed(2)}`,
);
console.log(
  JSON.stringify({
    bytes: total,
    chunks: chunks.length,
    hits: hitTotals,
    startHits: startTotal,
    runs: runTotal,
    variants: inst.map((v) => ({ name: v.name, file: v.file, ...results[v.name] })),
  }),
);
