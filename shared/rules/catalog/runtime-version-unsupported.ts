/** `runtime-version-unsupported`: Docker below 19.03, containerd below 1.4, or kubelet cannot talk to the runtime. */
import { factsOf, type Fact } from '../../logic/facts';
import { compareMinor, hitsPerNode, parseVersion, signalsOf, times } from '../helpers';
import { LINKS } from '../links';
import type { RuleHit, RuleModule } from '../rule';

const MIN = { docker: { major: 19, minor: 3, label: '19.03' }, containerd: { major: 1, minor: 4, label: '1.4' } } as const;

/** Why a runtime version is too old, or null. */
export function runtimeTooOld(runtime: string, version: string): string | null {
  const v = parseVersion(version);
  if (!v) return null;
  if (runtime === 'docker' && compareMinor(v, MIN.docker) < 0) return `Docker ${version} is older than ${MIN.docker.label}`;
  if (runtime === 'containerd' && compareMinor(v, MIN.containerd) < 0) return `containerd ${version} is older than ${MIN.containerd.label}`;
  return null;
}

export const runtimeVersionUnsupported: RuleModule = {
  id: 'runtime-version-unsupported',
  severity: 'error',
  description: 'Docker < 19.03, containerd < 1.4, or kubelet cannot talk to the runtime (API version mismatch, daemon not answering).',
  remediation: {
    summary: 'Windows nodes need Docker EE 19.03+ or containerd 1.4+ (HostProcess containers need containerd 1.6+), and kubelet must reach the runtime.',
    steps: [
      'Upgrade the runtime on the node (containerd 1.6 or later is the path forward; dockershim was removed in Kubernetes 1.24).',
      'If kubelet cannot get the runtime version, check that the runtime service runs and that kubelet\'s `--container-runtime-endpoint` points at it (`npipe:////./pipe/containerd-containerd`).',
      'Restart kubelet after the runtime answers.',
    ],
    commands: ['containerd --version', 'docker version', 'Get-Service containerd, docker -ErrorAction SilentlyContinue', 'crictl version'],
    links: [LINKS.containerRuntimes, LINKS.windowsIntro],
  },
  evaluate(facts) {
    const hits: RuleHit[] = [];
    const old: Fact[] = [];
    const reasons: string[] = [];
    for (const f of factsOf(facts, 'runtime-version')) {
      if (f.data.role === 'client') continue;
      if (f.data.os && !/windows/i.test(f.data.os)) continue;
      const why = runtimeTooOld(f.data.runtime, f.data.version);
      if (why) {
        old.push(f);
        reasons.push(why);
      }
    }
    for (const f of factsOf(facts, 'node-info')) {
      if (f.data.os !== 'windows' || !f.data.containerRuntime) continue;
      const m = /^(docker|containerd):\/\/(.+)$/.exec(f.data.containerRuntime);
      if (!m) continue;
      const why = runtimeTooOld(m[1]!, m[2]!);
      if (why) {
        old.push(f);
        reasons.push(`${f.data.name ?? 'the node'}: ${why}`);
      }
    }
    for (const h of hitsPerNode(old, (list) => [...new Set(list.map((x) => reasons[old.indexOf(x)]!))].join('; '))) hits.push(h);
    for (const h of hitsPerNode(signalsOf(facts, 'runtime-unreachable'), (list) => `kubelet cannot talk to the container runtime${times(list)}`)) hits.push(h);
    return hits;
  },
};
