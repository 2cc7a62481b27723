import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../shared/logic/facts';
import { parseComputerInfo, parseSysteminfo, parseWerReport, parseWin32Os, parseWinver } from '../../../../shared/parse/os-info';
import { CTX, sampleText } from './samples';

const os = (r: { facts: import('../../../../shared/logic/facts').Fact[] }) => factsOf(r.facts, 'os-info')[0]?.data;

describe('systeminfo', () => {
  it('strips CI timestamps; "N/A Build" has no UBR', () => {
    const r = parseSysteminfo(sampleText('version-os/systeminfo-ws2019-datacenter-gha-runner.log'), CTX);
    expect(os(r)).toMatchObject({ build: 17763, ubr: null, productName: 'Microsoft Windows Server 2019 Datacenter', installationType: 'Server', isClient: false });
    expect(factsOf(r.facts, 'os-info')[0]!.line).toBe(8);
  });

  it('reads the UTF-16LE copy the same way', () => {
    expect(os(parseSysteminfo(sampleText('encodings/systeminfo-utf16le-bom.txt'), CTX))).toMatchObject({ build: 17763, isClient: false });
  });

  it('reads German labels and a client', () => {
    const de = 'Hostname:                                  PC1\r\nBetriebssystemname:                        Microsoft Windows 10 Pro\r\nBetriebssystemversion:                     10.0.19045 Nicht zutreffend Build 19045\r\nBetriebssystemkonfiguration:               Eigenständige Arbeitsstation\r\n';
    expect(os(parseSysteminfo(de, CTX))).toMatchObject({ build: 19045, isClient: true, installationType: 'Client' });
  });

  it('empty and cut input', () => {
    expect(parseSysteminfo('', CTX).facts).toEqual([]);
    expect(parseSysteminfo('Host Name:                 fv-az50\nOS Name:                   Microsoft Wi', CTX).facts).toEqual([]);
  });
});

describe('Get-ComputerInfo', () => {
  it('OsBuildNumber decides; server SKU', () => {
    expect(os(parseComputerInfo(sampleText('version-os/get-computerinfo-os-props-ws2019-standard-eval.txt'), CTX))).toMatchObject({ build: 17763, productName: 'Microsoft Windows Server 2019 Standard Evaluation', isClient: false });
  });

  it('never trusts WindowsCurrentVersion 6.3; WindowsVersion 1607 → 14393, client', () => {
    const r = parseComputerInfo(sampleText('version-os/get-computerinfo-windowsversion-ubr-client-1607.txt'), CTX);
    expect(os(r)).toMatchObject({ build: 14393, ubr: 577, installationType: 'Client', isClient: true });
    expect(factsOf(r.facts, 'os-info')[0]!.excerpt).toMatch(/WindowsVersion : 1607/);
  });

  it('reads the JSON form', () => {
    expect(os(parseComputerInfo('{"WindowsProductName":"Windows Server 2022 Datacenter","WindowsBuildLabEx":"20348.1.amd64fre.fe_release.210507-1500","WindowsInstallationType":"Server"}', CTX))).toMatchObject({ build: 20348, isClient: false });
  });
});

describe('Win32_OperatingSystem, winver, WER', () => {
  it('reads the os probe JSON', () => {
    expect(os(parseWin32Os('{"Caption":"Microsoft Windows Server 2022 Datacenter","Version":"10.0.20348","BuildNumber":"20348","UBR":2227}', CTX))).toMatchObject({ build: 20348, ubr: 2227, isClient: false });
  });
  it('reads wmic and [Environment]::OSVersion', () => {
    expect(os(parseWin32Os('BuildNumber  Caption                                   OSArchitecture  Version\r\n17763        Microsoft Windows Server 2019 Datacenter  64-bit          10.0.17763\r\n', CTX))).toMatchObject({ build: 17763 });
    expect(os(parseWin32Os('Platform ServicePack Version      VersionString\n-------- ----------- -------      -------------\n Win32NT             10.0.20348.0 Microsoft Windows NT 10.0.20348.0\n', CTX))).toMatchObject({ build: 20348 });
    expect(os(parseWinver('Microsoft Windows NT 10.0.17763.0\r\n', CTX))).toMatchObject({ build: 17763 });
  });
  it('reads a WER report', () => {
    const w = factsOf(parseWerReport(sampleText('netinfo/wer-report-vmcompute-crash-17763.txt'), CTX).facts, 'wer-report')[0]!.data;
    expect(w).toMatchObject({ appName: 'vmcompute.exe', eventType: 'BEX64', exceptionCode: 'c0000409', isFatal: true, osVersion: '10.0.17763.2.0.0.272.7' });
  });
});
