/**
 * `hns-state-inconsistent`: HNS says a network "already exists" while the evidence says it should not (the
 * script had just removed it, or a listing does not show it). "Already exists" alone is benign (a restart).
 */
import { factsOf, type Fact } from '../../logic/facts';
import { norm, sameNode, signalsOf } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

function isAlreadyExists(f: Fact): boolean {
  if (f.type === 'log-signal') return f.data.signal === 'hns-network-already-exists';
  if (f.type === 'hns-request') return /already exists/i.test(f.data.error ?? '') || f.data.errorCode === 2151350288;
  return false;
}

export const hnsStateInconsistent: RuleModule = {
  id: 'hns-state-inconsistent',
  severity: 'error',
  description: 'HNS reports a network "already exists" that was just cleaned up or that the listing does not show.',
  remediation: {
    summary: 'HNS\'s view of its networks disagrees with what the scripts did or what it lists: a removal did not complete (raced, or HNS is wedged).',
    steps: [
      'List the HNS networks; remove the stale one explicitly and wait until it is gone before creating it again (setup scripts should check, not assume).',
      'If removal or `Restart-Service hns` fails, reboot the node; HNS state survives service restarts only partly.',
      'Then restart the setup (kubelet start script, flanneld) and confirm the network is created once.',
    ],
    commands: ['Get-HnsNetwork | Select-Object Name, Type, ID', 'Get-HnsNetwork | Where-Object Name -eq "<name>" | Remove-HnsNetwork', 'Restart-Service hns'],
    links: [LINKS.windowsDebug, 'https://github.com/Azure/aks-engine/pull/1322'],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const exists: Fact[] = [...signalsOf(facts, 'hns-network-already-exists'), ...factsOf(facts, 'hns-request').filter(isAlreadyExists)];
    const bySource = new Map<string, Fact[]>();
    for (const f of exists) bySource.set(f.source, [...(bySource.get(f.source) ?? []), f]);
    for (const [source, list] of bySource) {
      const cleanup = signalsOf(facts, 'hns-network-cleanup').filter((c) => c.source === source && c.line !== null && list.some((e) => e.line !== null && e.line > c.line!));
      if (cleanup.length) {
        const named = list.find((f) => f.type === 'hns-request' && f.data.name);
        const name = named && named.type === 'hns-request' ? named.data.name : null;
        hits.push({ title: `HNS says network ${name ? `"${name}" ` : ''}already exists right after the script cleaned up the old network`, evidence: [...cleanup, ...list] });
        continue;
      }
      // A listing that does not show the network HNS says exists.
      for (const f of list) {
        if (f.type !== 'hns-request' || !f.data.name) continue;
        const listings = sameNode(facts, 'hns-network-listing', f.node).filter((l) => !l.data.truncated && !l.data.names.map(norm).includes(norm(f.data.name)));
        if (listings.length) hits.push({ title: `HNS says network "${f.data.name}" already exists, but the HNS listing does not show it`, evidence: [f, ...listings] });
      }
    }
    return hits;
  },
};
