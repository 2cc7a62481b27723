import { describe, expect, it } from 'vitest';
import {
  checkWindowsBuildSupport,
  isClientSku,
  parseKubernetesVersion,
  parseWindowsVersion,
  supportRowFor,
  windowsReleaseName,
  WINDOWS_SUPPORT_TABLE,
} from '../../../../shared/domain/windows-builds';

describe('parseWindowsVersion', () => {
  it('reads kernelVersion, the windows-build label and bare builds', () => {
    expect(parseWindowsVersion('10.0.17763.1397')).toEqual({ major: 10, minor: 0, build: 17763, ubr: 1397 });
    expect(parseWindowsVersion('10.0.17763')).toEqual({ major: 10, minor: 0, build: 17763, ubr: null });
    expect(parseWindowsVersion(' 20348 ')).toEqual({ major: 10, minor: 0, build: 20348, ubr: null });
  });
  it('refuses Linux kernels and junk', () => {
    for (const s of ['5.4.0-1046-azure', '5.3.0-1028-azure', '', 'Windows', '6.1.7601', null, undefined, '10.0.abc']) {
      expect(parseWindowsVersion(s as string)).toBeNull();
    }
  });
});

describe('release names', () => {
  it('maps the builds of WINDOWS-KNOWLEDGE section 1', () => {
    expect(windowsReleaseName(14393)).toBe('Windows Server 2016');
    expect(windowsReleaseName(17763)).toBe('Windows Server 2019');
    expect(windowsReleaseName(18363)).toBe('Windows Server, version 1909');
    expect(windowsReleaseName(19041)).toBe('Windows Server, version 2004');
    expect(windowsReleaseName(19042)).toBe('Windows Server, version 20H2');
    expect(windowsReleaseName(20348)).toBe('Windows Server 2022');
    expect(windowsReleaseName(26100)).toBe('Windows Server 2025');
    expect(windowsReleaseName(99999)).toBe('Windows build 99999');
    expect(windowsReleaseName(null)).toBeNull();
  });
  it('trusts the build over the product name for client editions', () => {
    expect(isClientSku('Windows 10 Pro')).toBe(true);
    expect(isClientSku('Windows Server 2019 Datacenter')).toBe(false);
    expect(isClientSku('Windows Server Datacenter')).toBe(false);
    // Windows 11 reports itself as "Windows 10" in places; the build says 11.
    expect(windowsReleaseName(22631, 'Windows 10 Enterprise')).toBe('Windows 11, version 23H2');
    expect(windowsReleaseName(19041, 'Windows Server Datacenter')).toBe('Windows Server, version 2004');
  });
});

describe('support table', () => {
  it('has a source on every row and covers v1.20 onwards', () => {
    for (const row of WINDOWS_SUPPORT_TABLE) expect(row.source.length).toBeGreaterThan(20);
    expect(supportRowFor('v1.19.7')).toBeNull();
    expect(supportRowFor('v1.20.5')?.builds).toContain(18363);
    expect(supportRowFor('v1.22.0')?.builds).toEqual([17763, 19041, 19042]);
    expect(supportRowFor('v1.32.4')?.builds).toContain(20348);
    expect(supportRowFor('v1.32.4')?.source).toMatch(/kubernetes\/website/);
  });
  it('parses real version strings', () => {
    expect(parseKubernetesVersion('v1.23.3-rc.0.3+531a28b82ee021')).toEqual({ major: 1, minor: 23, patch: 3 });
    expect(parseKubernetesVersion('v1.21.3+rke2r1')).toEqual({ major: 1, minor: 21, patch: 3 });
    expect(parseKubernetesVersion('garbage')).toBeNull();
  });
  it('judges builds per Kubernetes version', () => {
    expect(checkWindowsBuildSupport(17763, 'v1.32.0').verdict).toBe('supported');
    expect(checkWindowsBuildSupport(20348, 'v1.32.0').verdict).toBe('supported');
    expect(checkWindowsBuildSupport(20348, 'v1.22.0')).toMatchObject({ verdict: 'not-listed', severity: 'warning' });
    expect(checkWindowsBuildSupport(26100, 'v1.32.0')).toMatchObject({ verdict: 'not-listed', severity: 'warning' });
    expect(checkWindowsBuildSupport(26100, 'v1.32.0').message).toMatch(/not listed upstream.*check your distribution/);
    expect(checkWindowsBuildSupport(18363, 'v1.23.1')).toMatchObject({ verdict: 'unsupported', severity: 'error' });
    expect(checkWindowsBuildSupport(18363, 'v1.20.1').verdict).toBe('supported');
    expect(checkWindowsBuildSupport(19041, 'v1.25.0').verdict).toBe('unsupported');
    for (const old of [14393, 16299, 17134]) {
      expect(checkWindowsBuildSupport(old, 'v1.32.0')).toMatchObject({ verdict: 'unsupported', severity: 'error' });
      expect(checkWindowsBuildSupport(old, null)).toMatchObject({ verdict: 'unsupported', severity: 'error' });
    }
    expect(checkWindowsBuildSupport(17763, 'v1.32.0', 'Windows 10 Pro')).toMatchObject({ verdict: 'unsupported', severity: 'error' });
    expect(checkWindowsBuildSupport(17763, null)).toMatchObject({ verdict: 'unknown', severity: null });
    expect(checkWindowsBuildSupport(null, 'v1.32.0')).toMatchObject({ verdict: 'unknown', severity: null });
  });
});
