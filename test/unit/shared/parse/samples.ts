/** Access to the byte-exact sample copies in test/fixtures/samples (see SOURCES.md there). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeBytes } from '../../../../shared/parse/text';

export const SAMPLES_DIR = fileURLToPath(new URL('../../../fixtures/samples/', import.meta.url));

export function sampleBytes(rel: string): Buffer {
  return readFileSync(SAMPLES_DIR + rel);
}

/** A sample decoded the way the product decodes it (BOM, UTF-16). */
export function sampleText(rel: string): string {
  return decodeBytes(sampleBytes(rel)).text;
}

export interface Expectation {
  file: string;
  mustFire: string[];
  mustNotFire: string[];
  maxErrors: number | null;
  why: string;
}

export function expectations(): Expectation[] {
  return JSON.parse(readFileSync(SAMPLES_DIR + 'EXPECTATIONS.json', 'utf8')) as Expectation[];
}

export const CTX = { source: 'test', node: null } as const;
