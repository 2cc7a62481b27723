import { describe, expect, it } from 'vitest';
import { classify, classifyText, INPUT_KINDS } from '../../../../shared/parse/classify';
import { parseText } from '../../../../shared/parse/parse-text';
import { expectations, sampleBytes, sampleText } from './samples';

/** The kind each sample must get (content only). */
const KINDS: Record<string, string> = {
  'cni-config/generated-cni-config-win-overlay-convertto-json.txt': 'cni-config',
  'cni-config/sdn-flannel-l2bridge-host-gw-net-conf.json': 'flannel-net-conf',
  'dns/docker-version-and-container-ipconfig-localdomain-1803.txt': 'docker-version',
  'dns/nslookup-timeout-windows-pod-rancher-kubedns.txt': 'nslookup',
  'encodings/constructed-get-service-convertto-json-ps51-utf16le.json': 'get-service-json',
  'encodings/get-service-table-crlf.txt': 'get-service-table',
  'encodings/systeminfo-utf16le-bom.txt': 'systeminfo',
  'hns/hnsdiag-list-endpoints-win2004-flannel.txt': 'hnsdiag-list',
  'hns/get-hnsnetwork-list-external-overlay-kubecluster.txt': 'get-hnsnetwork-list',
  'hns/get-hnsendpoint-list-nsx-agent0.txt': 'get-hnsendpoint-list',
  'hns/hns-networks-raw-json-transparent-vmxnet3-wrapped.txt': 'hns-json',
  'logs/kubelet-log-pause-os-mismatch-0xc0370101.log': 'kubelet-log',
  'logs/kube-proxy-1709-remote-endpoint-switch-port-not-found.log': 'kube-proxy-log',
  'logs/flanneld-hostgw-hot-attach-cbr0_ep-failed-after-update.log': 'flanneld-log',
  'logs/containerd-flannel-sandbox-failed-to-find-hnsendpoint.txt': 'pod-events',
  'logs/new-hnsnetwork-external-overlay-adapter-not-found-vmware.txt': 'hns-request-log',
  'logs/k2s-l2bridge-create-already-exists-hns-restart-failed-ws2022.log': 'k2s-log',
  'logs/runhcs-etw-hcs-system-start-context-deadline-exceeded.txt': 'etw-json-log',
  'logs/calico-node-windows-startup-vxlan-mgmt-ip.log': 'calico-log',
  'netinfo/eventlog-hyperv-container-template-limit-12003.txt': 'eventlog',
  'netinfo/ipconfig-azure-node-before-join-kubecluster.txt': 'ipconfig',
  'netinfo/wer-report-vmcompute-crash-17763.txt': 'wer-report',
  'netinfo/winevent-hyperv-compute-2010-xml.txt': 'winevent-xml',
  'nodes/describe-node-ws2019-eval-docker-systeminfo.txt': 'kubectl-describe-node',
  'nodes/get-nodes-wide-rke2-ws2019-containerd-1.5.4.txt': 'kubectl-get-nodes-wide',
  'services/sc-query-kubelet-running-node-not-registered.txt': 'sc-query',
  'version-os/docker-info-windows11-reported-as-windows10.txt': 'docker-info',
  'version-os/get-computerinfo-windowsversion-ubr-client-1607.txt': 'get-computerinfo',
  'version-os/kubectl-version-1.26-deprecation-warning-and-skew.txt': 'kubectl-version',
  'version-os/kubectl-version-o-json-1.9-alpha.json': 'kubectl-version-json',
};

describe('classify', () => {
  it('recognizes every sample by content, and parses each without a thrown error', () => {
    for (const e of expectations()) {
      const bytes = sampleBytes(e.file);
      const c = classify('renamed.bin', bytes);
      expect(c.kind, e.file).not.toBe('unknown');
      expect(INPUT_KINDS).toContain(c.kind);
      const r = parseText(sampleText(e.file), { source: e.file, node: null }, c);
      expect(r.warnings.filter((w) => /parser failed|scan failed/.test(w)), e.file).toEqual([]);
    }
  });

  it('gives the expected kind to representative samples', () => {
    for (const [file, kind] of Object.entries(KINDS)) expect(classify('x', sampleBytes(file)).kind, file).toBe(kind);
  });

  it('lists every kind in a multi-output paste, first one first', () => {
    const c = classifyText(sampleText('dns/ipconfig-all-pod-suffix-list-vs-cni-conf-nsx.txt'));
    expect(c.kind).toBe('cni-config');
    expect(c.kinds).toContain('ipconfig-all');
  });

  it('ignores the file name (a misleading name does not change the kind)', () => {
    const bytes = sampleBytes('encodings/get-service-table-crlf.txt');
    expect(classify('kubelet.log', bytes).kind).toBe(classify('whatever.json', bytes).kind);
  });

  it('says unknown for prose, empty for blank files, and names archives by magic number', () => {
    expect(classifyText('Dear team, the node is slow today.\nThanks').kind).toBe('unknown');
    expect(classifyText('\r\n   \n').kind).toBe('empty');
    expect(classify('a', Buffer.from('PK\x03\x04rest', 'binary')).kind).toBe('zip-archive');
    expect(classify('a', Buffer.from([0x1f, 0x8b, 8, 0])).kind).toBe('gzip');
    expect(classify('a', Buffer.from('ElfFile\0xxxxxxxx', 'binary')).kind).toBe('evtx');
    expect(classify('a', Buffer.from([0, 1, 2, 3, 4, 0, 0, 9])).kind).toBe('binary');
  });

  it('recognizes collectlogs.ps1 outputs', () => {
    expect(classifyText('Microsoft Windows NT 10.0.17763.0\r\n\r\n\r\nSource  Description  HotFixID').kind).toBe('winver');
    expect(classifyText('Name     Type      Id                                   AddressPrefix\n----     ----      --                                   -------------\ncbr0     L2Bridge  6F7E13A2-8ADE-48EE-844E-AC0B0AFF235D {10.244.1.0/24}\n').kind).toBe('get-hnsnetwork-table');
    expect(classifyText('===========================================================================\nInterface List\n  6...00 15 5d 1b 02 0a ......Microsoft Hyper-V Network Adapter\nIPv4 Route Table\nNetwork Destination        Netmask          Gateway       Interface  Metric\n').kind).toBe('route-print');
    expect(classifyText('CONTAINER ID   IMAGE     COMMAND   CREATED   STATUS    PORTS     NAMES\n').kind).toBe('docker-ps');
  });
});
