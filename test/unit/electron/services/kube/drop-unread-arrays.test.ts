import { describe, expect, it } from 'vitest';
import { dropUnreadArrays, unreadArraysFor } from '../../../../../electron/services/kube/drop-unread-arrays';

/** Reference: every property named in `keys` whose value is an array becomes [] (at any depth). */
function reference(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => reference(v, keys));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keys.includes(k) && Array.isArray(v) ? [] : reference(v, keys)]));
  }
  return value;
}

/** A small deterministic PRNG so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NASTY = ['"managedFields":[', '\\', '\\"', '"images":[1]', '[', ']', '{', '}', 'k:{"type":"Ready"}', 'é', '\u2028', '"', ':', ','];

function randomValue(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth > 4 || pick < 0.3) {
    const parts = Array.from({ length: Math.floor(r() * 4) }, () => NASTY[Math.floor(r() * NASTY.length)]);
    return r() < 0.7 ? parts.join('') : Math.floor(r() * 1000);
  }
  if (pick < 0.55) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const keys = ['managedFields', 'images', 'metadata', 'status', 'name', 'f:status', 'k:{"type":"Ready"}', '"images":['];
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, () => [keys[Math.floor(r() * keys.length)]!, randomValue(r, depth + 1)]));
}

describe('dropUnreadArrays', () => {
  it('drops managedFields and node images, keeps everything else byte-for-byte meaningful', () => {
    const node = {
      kind: 'Node',
      metadata: {
        name: 'win-1',
        annotations: { note: 'text with "managedFields":[1,2] and ] } [ { inside' },
        managedFields: [{ manager: 'kubelet.exe', fieldsV1: { 'f:status': { 'k:{"type":"Ready"}': { '.': {} } } } }],
      },
      status: { images: [{ names: ['mcr.microsoft.com/windows/servercore:ltsc2022'], sizeBytes: 1 }], nodeInfo: { kubeletVersion: 'v1.31.2' } },
    };
    const text = JSON.stringify({ type: 'MODIFIED', object: node });
    const out = dropUnreadArrays(text, unreadArraysFor('/api/v1/nodes'));
    expect(out.length).toBeLessThan(text.length);
    expect(JSON.parse(out)).toEqual({ type: 'MODIFIED', object: reference(node, ['managedFields', 'images']) });
    expect(JSON.parse(out).object.metadata.annotations.note).toBe(node.metadata.annotations.note);
  });

  it('keeps images for pods and any other resource; drops only managedFields there', () => {
    expect(unreadArraysFor('/api/v1/pods')).toEqual(['managedFields']);
    expect(unreadArraysFor('/api/v1/namespaces/kube-system/pods')).toEqual(['managedFields']);
    expect(unreadArraysFor('/api/v1/nodes')).toContain('images');
    expect(unreadArraysFor('/api/v1/nodes?limit=500')).toContain('images');
  });

  it('drops every occurrence in a list body', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `p${i}`, managedFields: [{ i }] }, spec: { containers: [{ image: 'x' }] } }));
    const text = JSON.stringify({ kind: 'PodList', metadata: { continue: 'abc' }, items });
    expect(JSON.parse(dropUnreadArrays(text, ['managedFields']))).toEqual(
      reference({ kind: 'PodList', metadata: { continue: 'abc' }, items }, ['managedFields']),
    );
  });

  it('matches a reference implementation on 3,000 random documents with hostile strings and keys', () => {
    const r = rng(20261130);
    for (let i = 0; i < 3000; i++) {
      const doc = randomValue(r, 0);
      const text = JSON.stringify(doc);
      expect(JSON.parse(dropUnreadArrays(text, ['managedFields', 'images'])), `seed case ${i}: ${text}`).toEqual(reference(doc, ['managedFields', 'images']));
    }
  });

  it('leaves text of another shape unchanged: pretty-printed, or an array that never closes', () => {
    const pretty = JSON.stringify({ metadata: { managedFields: [1] } }, null, 2);
    expect(dropUnreadArrays(pretty, ['managedFields'])).toBe(pretty);
    const cut = '{"metadata":{"managedFields":[{"a":"b"},';
    expect(dropUnreadArrays(cut, ['managedFields'])).toBe(cut);
    const openString = '{"metadata":{"managedFields":["never closed]}}';
    expect(dropUnreadArrays(openString, ['managedFields'])).toBe(openString);
  });

  // The API server's shape (managedFields last in metadata, then "spec") takes a shortcut that never scans the
  // array's characters: these are the texts where a shortcut that trusted the first `]` would cut in the wrong place.
  it('cuts managedFields at its real end when strings or nested arrays hold brackets and "spec"', () => {
    const hostile = [
      ']},"spec":{"x":1}',
      'a]',
      ']}',
      // As a key: `"f:x]},":{}` has `]},"` followed by `:` (a closing quote), not by a key's first letter.
      'x]},',
      '"]},"',
      '\\',
      '\\"]},"spec"',
      'k:{"name":"]},\\"spec\\":{"}',
    ];
    const entries: unknown[] = [
      ...hostile.map((h) => ({ manager: h, fieldsV1: { [`f:${h}`]: {} } })),
      { manager: 'nested', fieldsV1: { 'f:a': { list: [1, [2]] } } },
      { manager: 'nested-last', fieldsV1: { 'f:b': {} }, extra: [{ inner: ']},"spec":' }] },
    ];
    for (let i = 0; i <= entries.length; i++) {
      // One hostile entry at a time and all of them; with and without a trailing array-free entry.
      const mf = i === entries.length ? entries : [entries[i], { manager: 'kubelet.exe', fieldsV1: { 'f:status': {} } }];
      const node = {
        kind: 'Node',
        apiVersion: 'v1',
        metadata: { name: 'win-1', labels: { a: 'b' }, managedFields: mf },
        spec: { podCIDRs: ['10.0.0.0/24'] },
        status: { images: [{ names: ['x'], sizeBytes: 1 }], nodeInfo: { kubeletVersion: 'v1.31.2' } },
      };
      const text = JSON.stringify({ type: 'MODIFIED', object: node });
      const out = dropUnreadArrays(text, ['managedFields', 'images']);
      expect(JSON.parse(out), text).toEqual({ type: 'MODIFIED', object: reference(node, ['managedFields', 'images']) });
    }
  });

  it('matches the reference on 2,000 random Kubernetes-shaped objects (managedFields last in metadata)', () => {
    const r = rng(11302026);
    for (let i = 0; i < 2000; i++) {
      const mf = Array.from({ length: Math.floor(r() * 4) }, () => ({ manager: randomValue(r, 3), fieldsV1: randomValue(r, 1) }));
      const obj = {
        kind: 'Node',
        metadata: { name: `n${i}`, annotations: { a: randomValue(r, 4) }, managedFields: mf },
        spec: randomValue(r, 2),
        status: { images: randomValue(r, 3) },
      };
      const text = JSON.stringify({ type: 'MODIFIED', object: obj });
      expect(JSON.parse(dropUnreadArrays(text, ['managedFields', 'images'])), `case ${i}: ${text}`).toEqual({
        type: 'MODIFIED',
        object: reference(obj, ['managedFields', 'images']),
      });
    }
  });
});
