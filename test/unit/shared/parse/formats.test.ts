import { describe, expect, it } from 'vitest';
import { completeTruncatedJson, parseLooseJson, scanJsonPairs, unwrapConsoleLines } from '../../../../shared/parse/json-loose';
import { parseFormatList, psHashValues, splitPsList } from '../../../../shared/parse/ps-list';
import { parseAlignedTable, parseTables } from '../../../../shared/parse/ps-table';
import { flagValue, splitCommandLine } from '../../../../shared/parse/command-line';

describe('loose JSON', () => {
  it('skips an echo line and trailing stderr', () => {
    const j = parseLooseJson(['kubectl version -o json', '{', '  "a": 1', '}', 'The connection to the server was refused']);
    expect(j).toMatchObject({ value: { a: 1 }, startLine: 2, endLine: 4, truncated: false });
  });
  it('completes a cut text', () => {
    expect(JSON.parse(completeTruncatedJson('[{"a": [1, 2], "b": "x')!)).toEqual([{ a: [1, 2], b: 'x' }]);
    expect(JSON.parse(completeTruncatedJson('{"a": 1, "b":')!)).toEqual({ a: 1 });
  });
  it('re-joins console-wrapped lines', () => {
    const w = ['{"Name":"vmxnet3 Ethernet Adapter - Virtual', 'Switch","Type":"Transp', 'arent"}'.padEnd(0)];
    const lines = ['x'.repeat(59) + 'AB', 'CD'.padEnd(61, 'y'), 'E'];
    expect(unwrapConsoleLines(lines)).toBe('x'.repeat(59) + 'AB' + 'CD'.padEnd(61, 'y') + 'E');
    expect(unwrapConsoleLines(w)).toBeNull();
  });
  it('scans pairs with depth from a text that starts mid-object', () => {
    const pairs = scanJsonPairs('Capture"}],"Name":"x","Type":"Transparent"},{"ActivityId":"a","Name":"y"');
    expect(pairs.filter((p) => p.key === 'Name').map((p) => [p.value, p.depth])).toEqual([
      ['x', -2],
      ['y', -2],
    ]);
  });
});

describe('PowerShell list and table formats', () => {
  it('list: records, wrapped values, elisions', () => {
    const recs = parseFormatList(['Name   : a', 'Policy : {x,', '         y}', '. . .', 'Type   : b', '', 'Name   : c', 'Type   : d']);
    expect(recs.map((r) => [r.get('name'), r.get('policy'), r.get('type')])).toEqual([
      ['a', '{x, y}', 'b'],
      ['c', null, 'd'],
    ]);
    expect(splitPsList('{KB1, KB2}')).toEqual(['KB1', 'KB2']);
    expect(psHashValues('@{LastErrorCode=0; LastUpdateTime=1}')).toEqual({ LastErrorCode: '0', LastUpdateTime: '1' });
  });
  it('tables: dash-line columns, prose ends the table', () => {
    const t = parseTables(['Status   Name   DisplayName', '------   ----   -----------', 'Running  a      A service', '1. Install and start things now', 'Stopped  b      B'])[0]!;
    expect(t.rows.map((r) => r.cells['Name'])).toEqual(['a']);
  });
  it('aligned tables without dashes', () => {
    const t = parseAlignedTable(['NAME   STATUS', 'a      Ready', 'b      NotReady'], (l) => l.startsWith('NAME'))[0]!;
    expect(t.rows.map((r) => r.cells['STATUS'])).toEqual(['Ready', 'NotReady']);
  });
});

describe('command lines', () => {
  it('splits quoted Windows command lines and finds flags in every spelling', () => {
    const args = splitCommandLine('"C:\\Program Files\\k\\kubelet.exe" --config "C:\\var\\lib\\kubelet\\config.yaml" --v=2 -hostname-override win-1 --flag');
    expect(args[0]).toBe('C:\\Program Files\\k\\kubelet.exe');
    expect(flagValue(args, '--config')).toBe('C:\\var\\lib\\kubelet\\config.yaml');
    expect(flagValue(args, 'v')).toBe('2');
    expect(flagValue(args, '--hostname-override')).toBe('win-1');
    expect(flagValue(args, '--flag')).toBe('');
    expect(flagValue(args, '--missing')).toBeNull();
  });
});
