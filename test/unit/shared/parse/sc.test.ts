import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseSc } from '../../../../shared/parse/sc';
import { CTX, sampleText } from './samples';

const QC = `[SC] QueryServiceConfig SUCCESS

SERVICE_NAME: kubelet
        TYPE               : 10  WIN32_OWN_PROCESS
        START_TYPE         : 2   AUTO_START  (DELAYED)
        ERROR_CONTROL      : 1   NORMAL
        BINARY_PATH_NAME   : "C:\\k\\kubelet.exe" --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS --hostname-override=win-1
        LOAD_ORDER_GROUP   :
        DISPLAY_NAME       : kubelet
`;

describe('sc query / sc qc', () => {
  it('reads STATE from the real paste (markdown fences around it)', () => {
    const r = parseSc(sampleText('services/sc-query-kubelet-running-node-not-registered.txt'), CTX);
    const s = factsOf(r.facts, 'service');
    expect(s.map((f) => [f.data.name, f.data.status])).toEqual([['kubelet', 'Running']]);
    expect(s[0]!.line).toBe(5);
  });

  it('reads START_TYPE with (DELAYED) and the binary path arguments', () => {
    const r = parseSc(QC, CTX);
    expect(factsOf(r.facts, 'service')[0]!.data).toMatchObject({ name: 'kubelet', startType: 'Automatic', delayedAutoStart: true, status: null });
    const args = factsOf(r.facts, 'component-args')[0]!.data;
    expect(args.component).toBe('kubelet');
    expect(args.args).toContain('--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS');
  });

  it('reads localized labels (German) by their numbers', () => {
    const de = 'SERVICE_NAME: kube-proxy\r\n        TYP                : 10  WIN32_OWN_PROCESS\r\n        STATUS             : 1  STOPPED\r\n';
    expect(factsOf(parseSc(de, CTX).facts, 'service')[0]!.data.status).toBe('Stopped');
  });

  it('truncated and empty input never throw', () => {
    expect(factsOf(parseSc('SERVICE_NAME: kubelet\n        TYPE   : 10', CTX).facts, 'service')).toEqual([]);
    expect(parseSc('', CTX).facts).toEqual([]);
  });
});
