/**
 * Windows builds, their release names, and which builds each Kubernetes minor version supports as nodes.
 *
 * Pure data + pure functions (no node:*, no DOM): the node model, the cluster rules and the host-side
 * diagnosis all import this file, so a build number means the same thing everywhere.
 *
 * Trust the build number, not the product name: Windows 11 reports itself as "Windows 10" in several places,
 * and SAC Server images print "Windows Server Datacenter" without a year (samples/nodes,
 * describe-node-aks-engine-ws-2004-dualstack-labels.txt).
 */

/** Servicing channel of a Windows Server build. */
export type WindowsChannel = 'ltsc' | 'sac' | 'annual';

export interface WindowsBuildInfo {
  /** The third part of `10.0.<build>.<ubr>`. */
  build: number;
  /** Server release name, e.g. `Windows Server 2019`, `Windows Server, version 20H2`. */
  release: string;
  channel: WindowsChannel;
  /** Short version people use (`1809`, `20H2`, `2022`). */
  version: string;
  /** Tag of the matching Windows container base images (`ltsc2019`, `2004`), null when none is published. */
  containerTag: string | null;
  /** Client release that shares the build number (for client SKUs, which are never supported nodes). */
  clientRelease: string | null;
}

/**
 * Known Windows Server builds. Sources: WINDOWS-KNOWLEDGE.md section 1 (build list) and Microsoft's
 * "Windows Server release information" page (https://learn.microsoft.com/windows/release-health/windows-server-release-info).
 */
export const WINDOWS_SERVER_BUILDS: readonly WindowsBuildInfo[] = [
  { build: 14393, release: 'Windows Server 2016', channel: 'ltsc', version: '1607', containerTag: 'ltsc2016', clientRelease: 'Windows 10, version 1607' },
  { build: 16299, release: 'Windows Server, version 1709', channel: 'sac', version: '1709', containerTag: '1709', clientRelease: 'Windows 10, version 1709' },
  { build: 17134, release: 'Windows Server, version 1803', channel: 'sac', version: '1803', containerTag: '1803', clientRelease: 'Windows 10, version 1803' },
  { build: 17763, release: 'Windows Server 2019', channel: 'ltsc', version: '1809', containerTag: 'ltsc2019', clientRelease: 'Windows 10, version 1809' },
  { build: 18362, release: 'Windows Server, version 1903', channel: 'sac', version: '1903', containerTag: '1903', clientRelease: 'Windows 10, version 1903' },
  { build: 18363, release: 'Windows Server, version 1909', channel: 'sac', version: '1909', containerTag: '1909', clientRelease: 'Windows 10, version 1909' },
  { build: 19041, release: 'Windows Server, version 2004', channel: 'sac', version: '2004', containerTag: '2004', clientRelease: 'Windows 10, version 2004' },
  { build: 19042, release: 'Windows Server, version 20H2', channel: 'sac', version: '20H2', containerTag: '20H2', clientRelease: 'Windows 10, version 20H2' },
  { build: 20348, release: 'Windows Server 2022', channel: 'ltsc', version: '2022', containerTag: 'ltsc2022', clientRelease: null },
  { build: 25398, release: 'Windows Server, version 23H2', channel: 'annual', version: '23H2', containerTag: null, clientRelease: null },
  { build: 26100, release: 'Windows Server 2025', channel: 'ltsc', version: '2025', containerTag: 'ltsc2025', clientRelease: 'Windows 11, version 24H2' },
];

/** Client-only builds (Windows 10/11). A client SKU is never a supported Kubernetes node. */
export const WINDOWS_CLIENT_BUILDS: Readonly<Record<number, string>> = {
  10240: 'Windows 10, version 1507',
  10586: 'Windows 10, version 1511',
  15063: 'Windows 10, version 1703',
  19043: 'Windows 10, version 21H1',
  19044: 'Windows 10, version 21H2',
  19045: 'Windows 10, version 22H2',
  22000: 'Windows 11, version 21H2',
  22621: 'Windows 11, version 22H2',
  22631: 'Windows 11, version 23H2',
};

/** The lowest build any Kubernetes version in the table supports (Server 2019). Below it: never supported. */
export const MIN_SUPPORTED_WINDOWS_BUILD = 17763;

const BY_BUILD = new Map(WINDOWS_SERVER_BUILDS.map((b) => [b.build, b]));

/** Parsed `major.minor.build[.ubr]`. */
export interface WindowsVersion {
  major: number;
  minor: number;
  build: number;
  /** Update build revision (the patch level), null when the text had none. */
  ubr: number | null;
}

/**
 * Parse a Windows version as nodes report it: nodeInfo.kernelVersion `10.0.17763.1397`, the
 * `node.kubernetes.io/windows-build` label `10.0.17763`, or a bare build `17763`. Null for anything else
 * (Linux kernel versions such as `5.4.0-1046-azure` are not Windows versions).
 */
export function parseWindowsVersion(text: string | null | undefined): WindowsVersion | null {
  if (typeof text !== 'string') return null;
  const s = text.trim();
  const full = /^(\d{1,2})\.(\d{1,2})\.(\d{4,6})(?:\.(\d{1,6}))?$/.exec(s);
  if (full) {
    const major = Number(full[1]);
    if (major !== 10) return null;
    return { major, minor: Number(full[2]), build: Number(full[3]), ubr: full[4] === undefined ? null : Number(full[4]) };
  }
  const bare = /^(\d{4,6})$/.exec(s);
  if (bare) return { major: 10, minor: 0, build: Number(bare[1]), ubr: null };
  return null;
}

/** Facts about a Server build, or null when the build is not in the table. */
export function windowsBuildInfo(build: number): WindowsBuildInfo | null {
  return BY_BUILD.get(build) ?? null;
}

/** True when the node's OS image names a client edition (Windows 10/11 without "Server"). */
export function isClientSku(osImage: string | null | undefined): boolean {
  if (!osImage) return false;
  return /\bWindows (10|11)\b/i.test(osImage) && !/\bServer\b/i.test(osImage);
}

/**
 * Release name for a build. With `osImage` naming a client edition, the client release is given (by build:
 * Windows 11 prints "Windows 10" in places). Unknown builds: `Windows build <n>`; null for null.
 */
export function windowsReleaseName(build: number | null | undefined, osImage?: string | null): string | null {
  if (build === null || build === undefined || !Number.isFinite(build)) return null;
  if (isClientSku(osImage)) {
    const client = BY_BUILD.get(build)?.clientRelease ?? WINDOWS_CLIENT_BUILDS[build];
    if (client) return client;
    return build >= 22000 ? `Windows 11 (build ${build})` : `Windows 10 (build ${build})`;
  }
  const info = BY_BUILD.get(build);
  if (info) return info.release;
  const client = WINDOWS_CLIENT_BUILDS[build];
  if (client) return client;
  return `Windows build ${build}`;
}

/** One row of the support table: Kubernetes minors `fromMinor..toMinor` (1.x) and the builds they support. */
export interface WindowsSupportRow {
  fromMinor: number;
  /** Inclusive; null = "and later". */
  toMinor: number | null;
  builds: readonly number[];
  /** Where this row comes from. */
  source: string;
}

/**
 * Supported Windows node builds per Kubernetes minor (1.x). Every row carries its source.
 * Before v1.20 the table says nothing (the rule then only flags builds that were never supported).
 */
export const WINDOWS_SUPPORT_TABLE: readonly WindowsSupportRow[] = [
  {
    fromMinor: 20,
    toMinor: 20,
    builds: [17763, 18363, 19041],
    source: 'Kubernetes "Windows support" guide as of v1.20 (seed/kubernetes-windows-support.zh.txt): LTSC Server 2019; SAC 1909, 2004',
  },
  {
    fromMinor: 21,
    toMinor: 22,
    builds: [17763, 19041, 19042],
    source: 'Kubernetes "Windows support" guide as of v1.21/v1.22 (seed/kubernetes-windows-support.zh.txt): LTSC Server 2019; SAC 2004, 20H2',
  },
  {
    fromMinor: 23,
    toMinor: null,
    builds: [17763, 20348, 19042],
    source:
      'kubernetes/website content/en/docs/concepts/windows/intro.md, "Windows OS version compatibility" (https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support): LTSC Server 2019 and 2022; SAC 20H2',
  },
];

/** Parse `v1.32.4`, `1.23.3-rc.0.3+531a28b82ee021`, `v1.21.3+rke2r1` into major/minor/patch. Null if not a version. */
export function parseKubernetesVersion(text: string | null | undefined): { major: number; minor: number; patch: number } | null {
  if (typeof text !== 'string') return null;
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? 0 : Number(m[3]) };
}

/** The support row for a Kubernetes version, or null when the table does not cover it. */
export function supportRowFor(kubernetesVersion: string | null | undefined): WindowsSupportRow | null {
  const v = parseKubernetesVersion(kubernetesVersion);
  if (!v || v.major !== 1) return null;
  return WINDOWS_SUPPORT_TABLE.find((r) => v.minor >= r.fromMinor && (r.toMinor === null || v.minor <= r.toMinor)) ?? null;
}

export type WindowsSupportVerdict =
  /** Listed upstream for this Kubernetes version. */
  | 'supported'
  /** Never supported (below Server 2019, or a client SKU), or dropped for this Kubernetes version. */
  | 'unsupported'
  /** Newer than anything the row lists (e.g. Server 2025 on v1.32): check the distribution's support. */
  | 'not-listed'
  /** Not enough data (no build, or a Kubernetes version the table does not cover). */
  | 'unknown';

export interface WindowsSupportCheck {
  verdict: WindowsSupportVerdict;
  /** `error` for unsupported, `warning` for not-listed, null otherwise. */
  severity: 'error' | 'warning' | null;
  /** One sentence for a user. */
  message: string;
  /** Source of the table row used, null when none applied. */
  source: string | null;
}

function describeBuild(build: number, osImage?: string | null): string {
  return `${windowsReleaseName(build, osImage) ?? 'Windows'} (build ${build})`;
}

function minorLabel(row: WindowsSupportRow): string {
  return row.toMinor === null ? `v1.${row.fromMinor} and later` : row.fromMinor === row.toMinor ? `v1.${row.fromMinor}` : `v1.${row.fromMinor}-v1.${row.toMinor}`;
}

/**
 * Judge a node's Windows build against the cluster's Kubernetes version (WINDOWS-KNOWLEDGE.md section 1):
 * builds below 17763 and client SKUs are never supported (`error`); a build the version's row does not list
 * is `error` when older than the newest listed build (support dropped), `warning` when newer.
 */
export function checkWindowsBuildSupport(build: number | null | undefined, kubernetesVersion: string | null | undefined, osImage?: string | null): WindowsSupportCheck {
  if (build === null || build === undefined || !Number.isFinite(build)) {
    return { verdict: 'unknown', severity: null, message: 'The node reports no Windows build.', source: null };
  }
  const what = describeBuild(build, osImage);
  if (isClientSku(osImage)) {
    return {
      verdict: 'unsupported',
      severity: 'error',
      message: `${what} is a client edition (${osImage}); only Windows Server builds are supported Kubernetes nodes.`,
      source: WINDOWS_SUPPORT_TABLE[WINDOWS_SUPPORT_TABLE.length - 1]!.source,
    };
  }
  if (build < MIN_SUPPORTED_WINDOWS_BUILD) {
    return {
      verdict: 'unsupported',
      severity: 'error',
      message: `${what} is older than Windows Server 2019 (build ${MIN_SUPPORTED_WINDOWS_BUILD}) and is not supported by any current Kubernetes version.`,
      source: WINDOWS_SUPPORT_TABLE[0]!.source,
    };
  }
  const row = supportRowFor(kubernetesVersion);
  if (!row) {
    return { verdict: 'unknown', severity: null, message: `No support table row for Kubernetes ${kubernetesVersion ?? '(unknown version)'}.`, source: null };
  }
  const listed = row.builds.map((b) => describeBuild(b)).join(', ');
  if (row.builds.includes(build)) {
    return { verdict: 'supported', severity: null, message: `${what} is supported on Kubernetes ${minorLabel(row)}.`, source: row.source };
  }
  const newest = Math.max(...row.builds);
  if (build > newest) {
    return {
      verdict: 'not-listed',
      severity: 'warning',
      message: `${what} is not listed upstream for Kubernetes ${kubernetesVersion}; check your distribution's support. Listed: ${listed}.`,
      source: row.source,
    };
  }
  return {
    verdict: 'unsupported',
    severity: 'error',
    message: `${what} is not supported on Kubernetes ${minorLabel(row)}; supported builds are ${listed}.`,
    source: row.source,
  };
}
