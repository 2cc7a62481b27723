import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseGetServiceJson, parseGetServiceList, parseGetServiceTable } from '../../../../shared/parse/get-service';
import { CTX, sampleText } from './samples';

const services = (r: { facts: import('../../../../shared/logic/facts').Fact[] }) => factsOf(r.facts, 'service').map((f) => [f.data.name, f.data.status, f.data.startType]);

describe('Get-Service table', () => {
  it('reads the markdown-embedded tables and skips the prose between them', () => {
    const r = parseGetServiceTable(sampleText('services/get-service-table-calico-kubelet-kube-proxy-running.txt'), CTX);
    expect(services(r)).toEqual([
      ['CalicoNode', 'Running', null],
      ['CalicoFelix', 'Running', null],
      ['kubelet', 'Running', null],
      ['kube-proxy', 'Running', null],
    ]);
  });

  it('reads the same with CRLF line ends, and keeps line numbers', () => {
    const r = parseGetServiceTable(sampleText('encodings/get-service-table-crlf.txt'), CTX);
    expect(services(r)).toHaveLength(4);
    expect(factsOf(r.facts, 'service')[0]!.line).toBe(5);
  });

  it('reads a StartType column; a cut-off last row keeps what it shows', () => {
    const r = parseGetServiceTable('Status   Name       StartType\r\n------   ----       ---------\r\nStopped  kube-proxy Automatic\r\nRunning  kubel', CTX);
    expect(services(r)).toEqual([
      ['kube-proxy', 'Stopped', 'Automatic'],
      ['kubel', 'Running', null],
    ]);
  });

  it('empty input: no facts, a warning, no throw', () => {
    expect(parseGetServiceTable('', CTX).facts).toEqual([]);
    expect(parseGetServiceTable('', CTX).warnings.length).toBe(1);
  });
});

describe('Get-Service JSON', () => {
  it('PowerShell 5.1: a single object, enums as numbers', () => {
    expect(services(parseGetServiceJson(sampleText('encodings/constructed-get-service-convertto-json-ps51-single-object.json'), CTX))).toEqual([['flanneld', 'StartPending', 'Manual']]);
  });

  it('PowerShell 5.1 saved as UTF-16LE', () => {
    expect(services(parseGetServiceJson(sampleText('encodings/constructed-get-service-convertto-json-ps51-utf16le.json'), CTX))).toEqual([
      ['containerd', 'Running', 'Automatic'],
      ['kubelet', 'Running', 'Automatic'],
      ['kube-proxy', 'Stopped', 'Automatic'],
    ]);
  });

  it('PowerShell 7 with -EnumsAsStrings and with numbers', () => {
    expect(services(parseGetServiceJson(sampleText('encodings/constructed-get-service-convertto-json-ps7-enumsasstrings.json'), CTX))).toEqual([
      ['kubelet', 'Running', 'Automatic'],
      ['containerd', 'Stopped', 'Automatic'],
    ]);
    expect(services(parseGetServiceJson(sampleText('encodings/constructed-get-service-convertto-json-ps7.json'), CTX))).toEqual([
      ['kubelet', 'Running', 'Automatic'],
      ['kubeproxy', 'Running', 'Automatic'],
    ]);
  });

  it('a cut-off array keeps the complete objects; the listing completeness is the caller\'s', () => {
    const r = parseGetServiceJson('[\n  {"Name": "kubelet", "Status": 4, "StartType": 2},\n  {"Name": "kube-pro', CTX, true);
    // The cut object is kept with what it shows (no status), so no rule can read a state into it.
    expect(services(r)).toEqual([
      ['kubelet', 'Running', 'Automatic'],
      ['kube-pro', null, null],
    ]);
    expect(factsOf(r.facts, 'service-listing')[0]!.data.complete).toBe(true);
    expect(r.warnings.join()).toMatch(/cut off/);
  });

  it('garbage and empty input give warnings, not errors', () => {
    expect(parseGetServiceJson('not json', CTX).facts).toEqual([]);
    expect(parseGetServiceJson('', CTX).facts).toEqual([]);
  });
});

describe('Get-Service list format', () => {
  it('reads Name/Status/StartType records', () => {
    const text = '\r\nName                : kubelet\r\nDisplayName         : kubelet\r\nStatus              : Stopped\r\nStartType           : Manual\r\n\r\nName                : containerd\r\nDisplayName         : containerd\r\nStatus              : Running\r\nStartType           : Automatic\r\n';
    expect(services(parseGetServiceList(text, CTX))).toEqual([
      ['kubelet', 'Stopped', 'Manual'],
      ['containerd', 'Running', 'Automatic'],
    ]);
  });
});
