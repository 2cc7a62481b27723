/**
 * The registered rules driven by file and probe evidence (WINDOWS-KNOWLEDGE.md section 4). The cluster-only
 * rules (node-not-ready, workload-*, service-backends-over-64, and version-skew over live Node objects) come
 * from shared/rules/cluster/; run both with `evaluate(facts, { rules: [...CATALOG_RULES, ...theirs] })`.
 */
import { cniExceptionlistMisconfigured } from './catalog/cni-exceptionlist-misconfigured';
import { componentNotAService } from './catalog/component-not-a-service';
import { dnsClusterLookupFailed } from './catalog/dns-cluster-lookup-failed';
import { dnsPartialNameUnsupported } from './catalog/dns-partial-name-unsupported';
import { dnsSuffixListIncomplete } from './catalog/dns-suffix-list-incomplete';
import { flannelSubnetEnvMissing } from './catalog/flannel-subnet-env-missing';
import { flannelWaitingForNetwork } from './catalog/flannel-waiting-for-network';
import { hnsAdapterNotFound } from './catalog/hns-adapter-not-found';
import { hnsEndpointCreationFailed } from './catalog/hns-endpoint-creation-failed';
import { hnsManagementIpMismatch } from './catalog/hns-management-ip-mismatch';
import { hnsNetworkMissing } from './catalog/hns-network-missing';
import { hnsStateInconsistent } from './catalog/hns-state-inconsistent';
import { icmpExternalUnsupported } from './catalog/icmp-external-unsupported';
import { kubeProxyHostnameOverrideMissing } from './catalog/kube-proxy-hostname-override-missing';
import { kubeletPriorityClassLow } from './catalog/kubelet-priority-class-low';
import { kubeletReserveMissing } from './catalog/kubelet-reserve-missing';
import { nodeportLocalUnsupported } from './catalog/nodeport-local-unsupported';
import { pauseImageOsMismatch } from './catalog/pause-image-os-mismatch';
import { portForwardWincatMissing } from './catalog/port-forward-wincat-missing';
import { runtimeVersionUnsupported } from './catalog/runtime-version-unsupported';
import { secretsPlaintextOnNode } from './catalog/secrets-plaintext-on-node';
import { serviceNotAutomatic } from './catalog/service-not-automatic';
import { serviceNotRunning } from './catalog/service-not-running';
import { sourcevipInvalid } from './catalog/sourcevip-invalid';
import { sourcevipStale } from './catalog/sourcevip-stale';
import { versionSkew } from './catalog/version-skew';
import { vethernetAdapterDuplicate } from './catalog/vethernet-adapter-duplicate';
import { vethernetAdapterMissing } from './catalog/vethernet-adapter-missing';
import { windowsBuildUnsupported } from './catalog/windows-build-unsupported';
import type { RuleModule } from './rule';

export const CATALOG_RULES: readonly RuleModule[] = [
  cniExceptionlistMisconfigured,
  componentNotAService,
  dnsClusterLookupFailed,
  dnsPartialNameUnsupported,
  dnsSuffixListIncomplete,
  flannelSubnetEnvMissing,
  flannelWaitingForNetwork,
  hnsAdapterNotFound,
  hnsEndpointCreationFailed,
  hnsManagementIpMismatch,
  hnsNetworkMissing,
  hnsStateInconsistent,
  icmpExternalUnsupported,
  kubeProxyHostnameOverrideMissing,
  kubeletPriorityClassLow,
  kubeletReserveMissing,
  nodeportLocalUnsupported,
  pauseImageOsMismatch,
  portForwardWincatMissing,
  runtimeVersionUnsupported,
  secretsPlaintextOnNode,
  serviceNotAutomatic,
  serviceNotRunning,
  sourcevipInvalid,
  sourcevipStale,
  versionSkew,
  vethernetAdapterDuplicate,
  vethernetAdapterMissing,
  windowsBuildUnsupported,
];

/** The rule ids registered here. */
export const CATALOG_RULE_IDS: readonly string[] = CATALOG_RULES.map((r) => r.id);
