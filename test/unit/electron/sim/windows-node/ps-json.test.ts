import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputObjectJson, pipelineJson, PsDate, toPs51Json } from '../../../../../electron/sim/windows-node/ps-json';

const SAMPLES = path.join(__dirname, '../../../../fixtures/samples');

describe('PowerShell 5.1 ConvertTo-Json layout', () => {
  it('reproduces the real Get-Service 5.1 output byte for byte (UTF-16LE sample, CRLF)', () => {
    const text = fs.readFileSync(path.join(SAMPLES, 'encodings/constructed-get-service-convertto-json-ps51-utf16le.json')).subarray(2).toString('utf16le');
    const value = JSON.parse(text) as unknown[];
    expect(pipelineJson(value)).toBe(text.endsWith('\r\n') ? text : text + '\r\n');
  });

  it('reproduces a real machine-generated cni.conf (deep nesting aligned under each key)', () => {
    const text = fs.readFileSync(path.join(SAMPLES, 'cni-config/sdn-flannel-overlay-win-overlay-cni.conf'), 'utf8').replace(/\r?\n$/, '');
    expect(toPs51Json(JSON.parse(text))).toBe(text.replace(/\r?\n/g, '\r\n'));
  });

  it('one object is not wrapped; nothing prints nothing; -InputObject keeps arrays', () => {
    expect(pipelineJson([])).toBe('');
    expect(pipelineJson([{ a: 1 }])).toBe('{\r\n    "a":  1\r\n}\r\n');
    expect(inputObjectJson([{ a: 1 }])).toBe('[\r\n    {\r\n        "a":  1\r\n    }\r\n]\r\n');
    expect(inputObjectJson([])).toBe('[\r\n\r\n]\r\n');
    expect(toPs51Json({ a: [], b: {} })).toBe('{\r\n    "a":  [\r\n\r\n          ],\r\n    "b":  {\r\n\r\n          }\r\n}');
  });

  it('escapes like JavaScriptSerializer and prints 5.1 dates and int64 exactly', () => {
    expect(toPs51Json("a<b>&'\"\\\n\u0001é")).toBe('"a\\u003cb\\u003e\\u0026\\u0027\\"\\\\\\n\\u0001é"');
    expect(toPs51Json(new PsDate(1712345678901))).toBe('"\\/Date(1712345678901)\\/"');
    expect(toPs51Json(132450995647125115n)).toBe('132450995647125115');
    expect(toPs51Json({ x: null, y: true, z: 1.5 })).toBe('{\r\n    "x":  null,\r\n    "y":  true,\r\n    "z":  1.5\r\n}');
  });
});
