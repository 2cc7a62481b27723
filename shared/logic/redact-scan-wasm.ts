import { base64Decode } from './redact-codec';
import { REDACT_SCAN_KERNEL_WASM } from './redact-scan-kernel';
import { foldTable } from './redact-scan';

/**
 * The WebAssembly kernel of redact.ts' scanText (redact-scan-kernel.wat): the word loop and the base64 runs of a
 * Latin-1 text (one byte per character) given as its bytes. About ten times faster than the same loops in
 * JavaScript on log text (they are latency-bound there), and they run over every byte of every log of a bundle.
 * `kernelScan` returns null whenever it cannot answer (no WebAssembly, a text too large, more hits than its
 * arrays hold): the caller then scans in JavaScript, with the same result. No node:*, no DOM.
 */

/** The little of the WebAssembly API used here (shared/ compiles without DOM or Node types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface KernelExports {
  memory: WasmMemory;
  words(text: number, from: number, n: number, out: number, cap: number): number;
  runs(text: number, from: number, n: number, out: number, cap: number): number;
}

const FOLD_AT = 0;
const B64_AT = 256;
const EITHER_AT = 1024;
const TEXT_AT = 8192;
/** Larger texts are scanned in JavaScript (the kernel's memory never shrinks). */
const KERNEL_TEXT_MAX = 8 * 1024 * 1024;

let kernel: KernelExports | null | undefined;
/** The starts table last copied into the kernel's memory. */
let loadedEither: Uint8Array | null = null;

function load(): KernelExports | null {
  if (kernel !== undefined) return kernel;
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    const bytes = base64Decode(REDACT_SCAN_KERNEL_WASM);
    if (!wasm || !bytes) return (kernel = null);
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    const k = instance.exports as unknown as KernelExports;
    const mem = new Uint8Array(k.memory.buffer);
    const fold = foldTable();
    for (let c = 0; c < 256; c++) mem[FOLD_AT + c] = fold[c] as number;
    for (let c = 48; c <= 57; c++) mem[B64_AT + c] = 1;
    mem[B64_AT + 43] = 1;
    mem[B64_AT + 47] = 1;
    for (let c = 65; c <= 90; c++) mem[B64_AT + c] = 2;
    for (let c = 97; c <= 122; c++) mem[B64_AT + c] = 4;
    kernel = k;
  } catch {
    kernel = null;
  }
  return kernel;
}

/** For the tests: scan in JavaScript only (`false`) or with the kernel again (`true`). */
export function setScanKernelEnabled(enabled: boolean): void {
  kernel = enabled ? undefined : null;
  loadedEither = null;
}

export interface KernelScan {
  /** Offsets noted by the word loop (see scanText), `count` of them; a view of the kernel's memory. */
  hits: Int32Array;
  count: number;
  runs: Array<[number, number]>;
}

/**
 * The word-loop offsets (the starts table `either`) and base64 runs of text[from, n), where `pieces` joined are
 * the text's Latin-1 bytes (`n` of them). The result's `hits` is valid until the next call.
 */
export function kernelScan(pieces: readonly Uint8Array[], n: number, from: number, either: Uint8Array): KernelScan | null {
  if (n > KERNEL_TEXT_MAX || either.length !== 4096) return null;
  const k = load();
  if (!k) return null;
  let total = 0;
  for (const p of pieces) total += p.length;
  if (total !== n) return null;
  const span = n - from;
  // Log text has a hit every ~80 characters and a kept base64 run every few hundred; more (hostile text) is
  // scanned in JavaScript instead. Small arrays keep the memory (RSS) of each worker small.
  const hitsCap = Math.min(span, (span >> 4) + 4096);
  const runsCap = (span >> 5) + 64;
  const hitsAt = (TEXT_AT + n + 7) & ~7;
  const runsAt = hitsAt + hitsCap * 4;
  const need = runsAt + runsCap * 8;
  if (k.memory.buffer.byteLength < need) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  const mem = new Uint8Array(k.memory.buffer);
  if (loadedEither !== either) {
    mem.set(either, EITHER_AT);
    loadedEither = either;
  }
  let at = TEXT_AT;
  for (const p of pieces) {
    mem.set(p, at);
    at += p.length;
  }
  const count = k.words(TEXT_AT, from, n, hitsAt, hitsCap);
  if (count < 0) return null;
  const runCount = k.runs(TEXT_AT, from, n, runsAt, runsCap);
  if (runCount < 0) return null;
  const view = new Int32Array(k.memory.buffer);
  const runs: Array<[number, number]> = [];
  for (let r = 0, o = runsAt >> 2; r < runCount; r++, o += 2) runs.push([view[o] as number, view[o + 1] as number]);
  return { hits: view.subarray(hitsAt >> 2, (hitsAt >> 2) + count), count, runs };
}
