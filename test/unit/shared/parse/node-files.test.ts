import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseKubeletConfig, parseSourceVip, parseSubnetEnv } from '../../../../shared/parse/node-files';
import { CTX } from './samples';

const VIP = { source: 'nodes/win-1/files/SourceVip.json', node: 'win-1' };

describe('node files', () => {
  it('subnet.env (CRLF)', () => {
    const f = factsOf(parseSubnetEnv('FLANNEL_NETWORK=10.244.0.0/16\r\nFLANNEL_SUBNET=10.244.1.1/24\r\nFLANNEL_MTU=1450\r\nFLANNEL_IPMASQ=true\r\n', CTX).facts, 'subnet-env')[0]!;
    expect(f.data).toEqual({ network: '10.244.0.0/16', subnet: '10.244.1.1/24', mtu: 1450, ipmasq: true });
    expect(f.line).toBe(2);
    expect(parseSubnetEnv('', CTX).facts).toEqual([]);
  });

  it('SourceVip.json: IPAM result (0.2.0 and 1.0.0), IPAM error, empty, garbage', () => {
    expect(factsOf(parseSourceVip('{"cniVersion":"0.2.0","ip4":{"ip":"10.244.1.2/24","gateway":"10.244.1.1"},"dns":{}}', VIP).facts, 'source-vip')[0]!.data).toEqual({ ip: '10.244.1.2/24', error: null, valid: true });
    expect(factsOf(parseSourceVip('{"cniVersion":"1.0.0","ips":[{"address":"10.244.1.2/24"}]}', VIP).facts, 'source-vip')[0]!.data.ip).toBe('10.244.1.2/24');
    expect(factsOf(parseSourceVip('{"code":999,"msg":"no IP addresses available in range set: 10.244.1.1-10.244.1.254"}', VIP).facts, 'source-vip')[0]!.data).toMatchObject({ valid: false, error: expect.stringMatching(/IPAM error 999/) });
    expect(factsOf(parseSourceVip('', VIP).facts, 'source-vip')[0]!.data.valid).toBe(false);
    expect(factsOf(parseSourceVip('\u0000garbage', VIP).facts, 'source-vip')[0]!.data.valid).toBe(false);
  });

  it('an IPAM result that is not the SourceVip file says nothing about SourceVip', () => {
    expect(parseSourceVip('{"cniVersion":"0.2.0","ip4":{"ip":"10.244.1.2/24"}}', { source: 'result.json', node: null }).facts).toEqual([]);
  });

  it('KubeletConfiguration YAML', () => {
    const y = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsystemReserved:\n  memory: 2Gi\n';
    expect(factsOf(parseKubeletConfig(y, CTX).facts, 'kubelet-config')[0]!.data).toEqual({ systemReserved: { memory: '2Gi' }, kubeReserved: null });
  });
});
