/** `secrets-plaintext-on-node` (info): Secrets land unencrypted on the node's disk (BitLocker off). */
import { factsOf } from '../../logic/facts';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

export const secretsPlaintextOnNode: RuleModule = {
  id: 'secrets-plaintext-on-node',
  severity: 'info',
  description: 'Secrets mounted into Windows pods are written to the node\'s disk in clear text, and the volume is not BitLocker-protected.',
  remediation: {
    summary: 'On Windows, Secret volumes are files on the node\'s disk (there is no memory-backed tmpfs); without volume encryption they rest in clear text.',
    steps: ['Turn on BitLocker (or another volume encryption) for the volume that holds the kubelet directory.', 'Restrict who can read C:\\var\\lib\\kubelet on the node.'],
    commands: ['Get-BitLockerVolume | Select-Object MountPoint, VolumeStatus, ProtectionStatus', 'Enable-BitLocker -MountPoint C: -EncryptionMethod XtsAes256 -TpmProtector'],
    links: [LINKS.windowsSecurity],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    for (const f of factsOf(facts, 'bitlocker')) {
      const off = /^(off|0)$/i.test(f.data.protectionStatus ?? '') || /FullyDecrypted/i.test(f.data.volumeStatus ?? '');
      if (off && /^c:?$/i.test(f.data.mountPoint.replace(/\\$/, ''))) hits.push({ title: `BitLocker is off on ${f.data.mountPoint}: Secrets written to the node rest unencrypted`, evidence: [f] });
    }
    return hits;
  },
};
