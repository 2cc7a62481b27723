import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseContainerdVersion, parseDockerInfo, parseDockerVersion, parseRuntimeProbeJson } from '../../../../shared/parse/runtime';
import { CTX, sampleText } from './samples';

const rv = (r: { facts: import('../../../../shared/logic/facts').Fact[] }) => factsOf(r.facts, 'runtime-version').map((f) => [f.data.runtime, f.data.role, f.data.version]);

describe('container runtime output', () => {
  it('old two-section docker version', () => {
    expect(rv(parseDockerVersion(sampleText('dns/docker-version-and-container-ipconfig-localdomain-1803.txt'), CTX))).toEqual([
      ['docker', 'server', '17.10.0-ee-preview-3'],
      ['docker', 'client', '17.10.0-ee-preview-3'],
    ]);
  });

  it('newer docker version with Engine and containerd sections', () => {
    const text = 'Client: Mirantis Container Runtime\n Version:           20.10.9\n API version:       1.41\n\nServer: Mirantis Container Runtime\n Engine:\n  Version:          20.10.9\n  API version:      1.41 (minimum version 1.24)\n  OS/Arch:          windows/amd64\n containerd:\n  Version:          1.4.13\n';
    expect(rv(parseDockerVersion(text, CTX))).toEqual([
      ['docker', 'server', '20.10.9'],
      ['docker', 'client', '20.10.9'],
      ['containerd', 'server', '1.4.13'],
    ]);
  });

  it('docker version without a server (daemon down) warns', () => {
    const r = parseDockerVersion('Client:\n Version:      19.03.5\n API version:  1.40\nerror during connect: ...', CTX);
    expect(rv(r)).toEqual([['docker', 'client', '19.03.5']]);
    expect(r.warnings.length).toBe(1);
  });

  it('docker info: engine version and the host build from the kernel', () => {
    const r = parseDockerInfo(sampleText('version-os/docker-info-windows11-reported-as-windows10.txt'), CTX);
    expect(rv(r)).toEqual([['docker', 'server', '20.10.12']]);
    expect(factsOf(r.facts, 'os-info')[0]!.data).toMatchObject({ build: 22000, ubr: 527, isClient: true, origin: 'docker-info' });
  });

  it('containerd --version and the runtime probe', () => {
    expect(rv(parseContainerdVersion('containerd github.com/containerd/containerd v1.7.13 7c3aca7a610df76212171d200ca3811ff6096eb8\n', CTX))).toEqual([['containerd', 'server', '1.7.13']]);
    const probe = { Containerd: { Path: 'C:\\Program Files\\containerd\\containerd.exe', VersionOutput: 'containerd github.com/containerd/containerd v1.6.21 3dce8eb', ConfigPath: 'x' }, Docker: null, SandboxImage: 'registry.k8s.io/pause:3.9', Images: [] };
    expect(rv(parseRuntimeProbeJson(JSON.stringify(probe), CTX))).toEqual([['containerd', 'server', '1.6.21']]);
    expect(parseRuntimeProbeJson('', CTX).facts).toEqual([]);
  });
});
