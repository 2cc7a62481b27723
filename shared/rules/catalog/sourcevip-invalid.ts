/** `sourcevip-invalid`: SourceVip.json holds an IPAM error or unreadable content. */
import { factsOf } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const sourcevipInvalid: RuleModule = {
  id: 'sourcevip-invalid',
  severity: 'error',
  description: 'SourceVip.json holds an IPAM error or unreadable content.',
  remediation: {
    summary: 'kube-proxy (overlay) reads its source VIP from SourceVip.json; an IPAM error there leaves services without a source address.',
    steps: ['Stop kube-proxy, delete `C:\\k\\SourceVip.json` and `C:\\k\\SourceVipRequest.json`, and start kube-proxy so the VIP is allocated again.', 'If the IPAM error persists, check the pod subnet (subnet.env) has free addresses.'],
    commands: ['Get-Content C:\\k\\SourceVip.json', 'Stop-Service kube-proxy; Remove-Item C:\\k\\SourceVip.json, C:\\k\\SourceVipRequest.json; Start-Service kube-proxy'],
    links: [LINKS.windowsDebug],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'source-vip')) if (!f.data.valid) hits.push({ title: `SourceVip.json is invalid: ${f.data.error ?? 'unreadable'}`, evidence: [f] });
    return hits;
  },
};
