import { z } from 'zod';
import type { Finding } from '../domain/finding';
import { REPORT_BODY_MAX_CHARS, REPORT_EXCERPT_MAX_CHARS, REPORT_EXCERPT_MAX_LINES, REPORT_URL_MAX_CHARS } from '../domain/limits';
import { windowsReleaseName } from '../domain/windows-builds';
import { redactText } from '../logic/redact';
import type { NodeReportFacts, ReportFacts, UserReportInput } from './report-facts';

/**
 * The SIG-Windows bug report (DESIGN.md section 6, WINDOWS-KNOWLEDGE.md section 5): a GitHub issue body that
 * follows the Kubernetes bug-report form (`.github/ISSUE_TEMPLATE/bug-report.yaml`, field ids problem, expected,
 * repro, additional, kubeVersion, cloudProvider, osVersion, installer, runtime, plugins), as Markdown, as JSON
 * and as a prefilled `issues/new` URL. Fields the user did not give are drafted from the findings and marked
 * `[draft - please edit]`. Pure: no node:*, no DOM.
 */

export const FORM_FIELD_IDS = ['problem', 'expected', 'repro', 'additional', 'kubeVersion', 'cloudProvider', 'osVersion', 'installer', 'runtime', 'plugins'] as const;
export type FormFieldId = (typeof FORM_FIELD_IDS)[number];

/** Headings as the form labels them; the rendered body repeats them so a pasted body reads like a form issue. */
export const FORM_LABELS: Record<FormFieldId, string> = {
  problem: 'What happened?',
  expected: 'What did you expect to happen?',
  repro: 'How can we reproduce it (as minimally and precisely as possible)?',
  additional: 'Anything else we need to know?',
  kubeVersion: 'Kubernetes version',
  cloudProvider: 'Cloud provider',
  osVersion: 'OS version',
  installer: 'Install tools',
  runtime: 'Container runtime (CRI) and version (if applicable)',
  plugins: 'Related plugins (CNI, CSI, ...) and versions (if applicable)',
};

export const DRAFT_MARK = '[draft - please edit]';

export const ReportField = z.object({ value: z.string(), drafted: z.boolean() });
export type ReportField = z.infer<typeof ReportField>;

export const RepoSuggestion = z.object({
  repository: z.string(),
  url: z.string(),
  reason: z.string(),
  ruleIds: z.array(z.string()),
});
export type RepoSuggestion = z.infer<typeof RepoSuggestion>;

export const RenderedReport = z.object({
  title: z.string(),
  repository: z.literal('kubernetes/kubernetes'),
  template: z.literal('bug-report.yaml'),
  fields: z.record(z.enum(FORM_FIELD_IDS), ReportField),
  /** The whole issue body (Markdown), at most 65,536 characters. */
  body: z.string(),
  /** Prefilled issues/new URL; fields that would make it too long are left out (listed in `urlOmitted`). */
  url: z.string(),
  urlOmitted: z.array(z.enum(FORM_FIELD_IDS)),
  suggestion: RepoSuggestion.nullable(),
  drafted: z.array(z.enum(FORM_FIELD_IDS)),
  truncated: z.boolean(),
});
export type RenderedReport = z.infer<typeof RenderedReport>;

const ISSUE_URL = 'https://github.com/kubernetes/kubernetes/issues/new';
const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Findings worst first, stable. */
function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** Repositories whose own issue forms fit better, by the rule that fired. */
const REPO_BY_RULE: Array<{ test: RegExp; repository: string; reason: string }> = [
  { test: /^flannel-|^sourcevip-|^cni-exceptionlist/, repository: 'flannel-io/flannel', reason: 'the findings point at flannel (flanneld, subnet.env, SourceVip or its CNI config)' },
  {
    test: /^hns-|^vethernet-|^pause-image-os-mismatch$|^port-forward-wincat-missing$|^runtime-version-unsupported$/,
    repository: 'microsoft/Windows-Containers',
    reason: 'the findings point at the Windows container platform (HNS, vSwitch adapters, container images, runtime)',
  },
  {
    test: /^component-not-a-service$|^service-not-automatic$|^kubelet-priority-class-low$|^kubelet-reserve-missing$|^kube-proxy-hostname-override-missing$/,
    repository: 'kubernetes-sigs/sig-windows-tools',
    reason: 'the findings point at how the node was set up (services, start types, kubelet/kube-proxy arguments), which sig-windows-tools owns for kubeadm installs',
  },
];

/** Suggest the repository the findings point to, when it is not kubernetes/kubernetes. */
export function suggestRepository(findings: readonly Finding[]): RepoSuggestion | null {
  const relevant = sortFindings(findings).filter((f) => f.severity !== 'info');
  if (relevant.length === 0) return null;
  const votes = new Map<string, { reason: string; ruleIds: Set<string>; weight: number }>();
  let kube = 0;
  for (const f of relevant) {
    const hit = REPO_BY_RULE.find((r) => r.test.test(f.ruleId));
    const w = f.severity === 'error' ? 2 : 1;
    if (!hit) {
      kube += w;
      continue;
    }
    const v = votes.get(hit.repository) ?? { reason: hit.reason, ruleIds: new Set<string>(), weight: 0 };
    v.ruleIds.add(f.ruleId);
    v.weight += w;
    votes.set(hit.repository, v);
  }
  const best = [...votes.entries()].sort((a, b) => b[1].weight - a[1].weight)[0];
  if (!best || best[1].weight <= kube) return null;
  return { repository: best[0], url: `https://github.com/${best[0]}/issues/new/choose`, reason: best[1].reason, ruleIds: [...best[1].ruleIds] };
}

/** Cloud provider from the nodes' providerID scheme (and a few well-known labels). */
export function cloudProviderOf(nodes: readonly NodeReportFacts[], simulated: boolean): string {
  if (simulated) return 'None: a simulated cluster (Windeck demo); no cloud provider.';
  const found = new Set<string>();
  for (const n of nodes) {
    const scheme = /^([a-z0-9-]+):\/\//i.exec(n.providerID ?? '')?.[1]?.toLowerCase();
    const labels = n.labels;
    if (scheme === 'azure') found.add(Object.keys(labels).some((k) => k.startsWith('kubernetes.azure.com/')) ? 'Azure (AKS)' : 'Azure');
    else if (scheme === 'aws') found.add(Object.keys(labels).some((k) => k.startsWith('eks.amazonaws.com/')) ? 'AWS (EKS)' : 'AWS');
    else if (scheme === 'gce') found.add('Google Cloud (GCE/GKE)');
    else if (scheme === 'vsphere') found.add('vSphere');
    else if (scheme === 'openstack') found.add('OpenStack');
    else if (scheme === 'kind') found.add('kind (no cloud)');
    else if (scheme) found.add(scheme);
  }
  if (found.size === 0) return 'None found: the nodes carry no providerID (bare metal or a cloud without a cloud provider).';
  return `${[...found].join(', ')} (from the nodes' spec.providerID)`;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\s+$/, '')}\n${ticks}`;
}

function windowsOsLine(n: NodeReportFacts): string | null {
  const w = n.windows;
  if (!w) return null;
  const build = w.build !== null ? `${w.build}${w.ubr !== null ? `.${w.ubr}` : ''}` : null;
  const release = w.build !== null ? windowsReleaseName(w.build, w.caption) : null;
  const parts = [
    `Caption: ${w.caption ?? 'unknown'}`,
    `Version: ${w.version ?? 'unknown'}`,
    `BuildNumber.UBR: ${build ?? 'unknown'}${release ? ` (${release})` : ''}`,
    `OSArchitecture: ${w.architecture ?? 'unknown'}`,
    ...(w.displayVersion ? [`DisplayVersion: ${w.displayVersion}`] : []),
  ];
  return `${n.name}: ${parts.join('; ')}${w.source === 'node' ? ' [from the Node object; the os probe did not run]' : ''}`;
}

function layoutInstaller(nodes: readonly NodeReportFacts[]): string | null {
  const hints = new Set<string>();
  for (const n of nodes) {
    const keys = Object.keys(n.labels);
    if (keys.some((k) => k.startsWith('kubernetes.azure.com/'))) hints.add('AKS');
    if (keys.some((k) => k.startsWith('eks.amazonaws.com/'))) hints.add('EKS');
    if (keys.some((k) => k.startsWith('cloud.google.com/gke'))) hints.add('GKE');
    if (keys.some((k) => k.includes('rke2') || k.includes('cattle.io'))) hints.add('RKE2 / Rancher');
    if (/rke2/i.test(n.kubeletVersion ?? '')) hints.add('RKE2');
    if (keys.some((k) => k.startsWith('node.cluster.x-k8s.io') || k.startsWith('cluster.x-k8s.io'))) hints.add('Cluster API');
    if (n.layout) hints.add(`node layout: ${n.layout}`);
  }
  return hints.size ? [...hints].join('; ') : null;
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
}

function findingLine(f: Finding): string {
  return `- **${f.severity}** \`${f.ruleId}\`${f.node ? ` on \`${f.node}\`` : ''}: ${f.title}`;
}

function evidenceBlock(f: Finding): string {
  const ev = f.evidence.slice(0, 2).map((e) => `${e.source}${e.line !== null ? `:${e.line}` : ''}\n${e.excerpt}`);
  return ev.length ? fence(ev.join('\n\n').slice(0, REPORT_EXCERPT_MAX_CHARS)) : '';
}

function trimExcerpt(text: string): string {
  const lines = text.split(/\r?\n/);
  const kept = lines.length > REPORT_EXCERPT_MAX_LINES ? lines.slice(-REPORT_EXCERPT_MAX_LINES) : lines;
  const out = kept.join('\n');
  return out.length > REPORT_EXCERPT_MAX_CHARS ? out.slice(out.length - REPORT_EXCERPT_MAX_CHARS) : out;
}

/** The form fields: the user's text where given, else a draft from the evidence (marked). */
export function reportFields(facts: ReportFacts, user: UserReportInput = {}): Record<FormFieldId, ReportField> {
  const findings = sortFindings(facts.findings);
  const serious = findings.filter((f) => f.severity !== 'info');
  const winNodes = facts.nodes.filter((n) => n.os === 'windows');
  const nodeNames = (winNodes.length ? winNodes : facts.nodes).map((n) => `\`${n.name}\``).join(', ') || 'the Windows node';
  const drafted = (text: string): ReportField => ({ value: `${DRAFT_MARK}\n${text}`, drafted: true });
  const given = (text: string | undefined): text is string => typeof text === 'string' && text.trim() !== '';

  const problem = given(user.problem)
    ? { value: user.problem, drafted: false }
    : drafted(
        serious.length
          ? `On ${nodeNames}, Windeck found ${serious.length} problem${serious.length === 1 ? '' : 's'}:\n\n${serious.slice(0, 10).map(findingLine).join('\n')}`
          : `Describe what went wrong on ${nodeNames}. Windeck found no problem in the evidence it collected.`,
      );
  const expected = given(user.expected)
    ? { value: user.expected, drafted: false }
    : drafted(
        serious.length
          ? `${nodeNames} stays Ready, its components (kubelet, kube-proxy, CNI, container runtime) keep running, and pods on it get working networking and DNS.\n\n${serious
              .slice(0, 5)
              .map((f) => `- not: ${f.title}`)
              .join('\n')}`
          : `${nodeNames} stays Ready and its pods run with working networking and DNS.`,
      );
  const repro = given(user.repro)
    ? { value: user.repro, drafted: false }
    : drafted(
        [
          'Steps on the affected cluster (replace with the exact steps that trigger the problem):',
          '',
          `1. The node(s) ${nodeNames} joined the cluster (see Install tools).`,
          '2. <what you did: deployed a workload, restarted a component, rebooted the node, ...>',
          `3. Observed: ${serious[0] ? serious[0].title : 'the problem described above'}.`,
          '',
          'Evidence was gathered with `windeck collect` / `windeck probe` (read-only PowerShell over SSH or WinRM).',
          ...serious.slice(0, 3).map((f) => `\n${findingLine(f)}\n${evidenceBlock(f)}`),
        ].join('\n'),
      );

  const excerpts = facts.excerpts.slice(0, 6).map((e) => `**${e.node ? `${e.node}: ` : ''}${e.source}**\n\n${fence(trimExcerpt(e.text), 'text')}`);
  const findingsSection = findings.length
    ? `Findings (Windeck ${facts.tool.version}, rule ids from the SIG-Windows troubleshooting guide):\n\n${findings.map(findingLine).join('\n')}`
    : 'Windeck found no problems in the collected evidence.';
  const additionalDraft = [
    findingsSection,
    ...(excerpts.length ? ['', '<details><summary>Relevant log excerpts (redacted)</summary>', '', ...excerpts, '', '</details>'] : []),
    '',
    'A redacted log bundle from `windeck collect` can be attached (zip, under 25 MB).',
  ].join('\n');
  const additional = given(user.additional) ? { value: `${user.additional}\n\n${additionalDraft}`, drafted: false } : drafted(additionalDraft);

  const kubeVersionText = facts.cluster.kubectlVersion
    ? `$ kubectl version\n${facts.cluster.kubectlVersion.trim()}`
    : `Server Version: ${facts.cluster.kubernetesVersion ?? 'unknown'} (from the API server's /version; kubectl was not available)`;
  const kubeVersion = { value: `<details>\n\n${fence(kubeVersionText, 'console')}\n\n</details>`, drafted: false };

  const cloudProvider = { value: `<details>\n${cloudProviderOf(facts.nodes, facts.cluster.simulated)}\n</details>`, drafted: false };

  const winLines = winNodes.map(windowsOsLine).filter((l): l is string => l !== null);
  const osText = [
    ...(winLines.length
      ? [
          '# Windows nodes: Get-CimInstance Win32_OperatingSystem (Caption, Version, BuildNumber, OSArchitecture) and the UBR from the registry',
          '# (wmic, which the form names, is gone on Windows Server 2025)',
          ...winLines,
        ]
      : winNodes.map((n) => `${n.name}: ${n.osImage ?? 'unknown'} ${n.kernelVersion ?? ''}`.trim())),
    ...(facts.cluster.controlPlaneOs.length ? ['', '# Linux control plane (nodeInfo.osImage, kernelVersion)', ...facts.cluster.controlPlaneOs] : []),
  ];
  const osVersion = { value: `<details>\n\n${fence(osText.join('\n') || 'unknown', 'console')}\n\n</details>`, drafted: false };

  const installerText = layoutInstaller(facts.nodes);
  const installer = installerText ? drafted(`<details>\nDetected by Windeck: ${installerText}\n</details>`) : drafted('<details>\nUnknown: name the tool that installed the nodes (kubeadm + sig-windows-tools, AKS, EKS, RKE2, ...).\n</details>');

  const runtimeLines = facts.nodes
    .filter((n) => n.containerRuntime || n.runtimeDetail)
    .map((n) => `${n.name}: ${[n.containerRuntime, n.runtimeDetail].filter(Boolean).join(' - ')}`);
  const runtime = { value: `<details>\n\n${runtimeLines.length ? fence(runtimeLines.join('\n'), 'console') : 'unknown'}\n\n</details>`, drafted: runtimeLines.length === 0 };

  const pluginLines = winNodes
    .filter((n) => n.cni)
    .map((n) => {
      const c = n.cni!;
      return `${n.name}: CNI ${c.name ?? 'unknown'}${c.type ? ` (plugin ${c.type})` : ''}; network mode ${c.networkMode ?? 'unknown'}${c.networks.length ? `; HNS networks ${c.networks.join(', ')}` : ''} [${c.source}]`;
    });
  const plugins = pluginLines.length
    ? { value: `<details>\n\n${fence(pluginLines.join('\n'), 'console')}\n\n</details>`, drafted: false }
    : drafted('<details>\nCNI (flannel / Calico / Azure CNI / Antrea ...) and version, network mode (l2bridge / overlay), CSI drivers and versions.\n</details>');

  return { problem, expected, repro, additional, kubeVersion, cloudProvider, osVersion, installer, runtime, plugins };
}

function draftTitle(facts: ReportFacts, user: UserReportInput): string {
  if (user.title && user.title.trim()) return user.title.trim();
  if (user.problem && user.problem.trim()) return `[Windows] ${firstLine(user.problem).slice(0, 120)}`;
  const top = sortFindings(facts.findings).find((f) => f.severity !== 'info');
  return top ? `[Windows] ${top.title}`.slice(0, 140) : '[Windows] <short description of the problem>';
}

function assembleBody(fields: Record<FormFieldId, ReportField>, suggestion: RepoSuggestion | null): string {
  const parts: string[] = [];
  if (suggestion) {
    parts.push(`> Windeck suggests filing this at **${suggestion.repository}** instead (${suggestion.reason}): ${suggestion.url}`, '');
  }
  for (const id of FORM_FIELD_IDS) parts.push(`### ${FORM_LABELS[id]}`, '', fields[id].value.trim(), '');
  parts.push('/sig windows', '');
  return parts.join('\n');
}

/** Query-string encoding as GitHub reads it. */
function q(value: string): string {
  return encodeURIComponent(value);
}

/**
 * The prefilled issues/new URL: template, title and every field that still fits under `maxChars`, in form order
 * (short version fields first, then the user's text). Fields left out stay in the body for pasting.
 */
export function issueUrl(title: string, fields: Record<FormFieldId, ReportField>, maxChars = REPORT_URL_MAX_CHARS): { url: string; omitted: FormFieldId[] } {
  let url = `${ISSUE_URL}?template=bug-report.yaml&title=${q(title)}`;
  const omitted: FormFieldId[] = [];
  const order: FormFieldId[] = ['kubeVersion', 'cloudProvider', 'osVersion', 'runtime', 'plugins', 'installer', 'problem', 'expected', 'repro', 'additional'];
  for (const id of order) {
    let value = fields[id].value;
    if (id === 'additional') value = `${value}\n\n/sig windows`;
    const part = `&${id}=${q(value)}`;
    if (url.length + part.length <= maxChars) url += part;
    else if (id === 'additional') {
      const short = `&${id}=${q('The full report with findings and log excerpts is in the body Windeck generated: paste it here.\n\n/sig windows')}`;
      if (url.length + short.length <= maxChars) url += short;
      omitted.push(id);
    } else omitted.push(id);
  }
  return { url, omitted };
}

/** Render the report: fields, Markdown body (≤ 65,536 characters), URL and the repository suggestion. */
export function renderReport(facts: ReportFacts, user: UserReportInput = {}): RenderedReport {
  // The user's own text may carry secrets too: redact it like everything else.
  const clean = (t: string | undefined) => (t === undefined ? undefined : redactText(t, { level: 'standard' }).text);
  const u: UserReportInput = {
    ...(user.title !== undefined ? { title: clean(user.title)! } : {}),
    ...(user.problem !== undefined ? { problem: clean(user.problem)! } : {}),
    ...(user.expected !== undefined ? { expected: clean(user.expected)! } : {}),
    ...(user.repro !== undefined ? { repro: clean(user.repro)! } : {}),
    ...(user.additional !== undefined ? { additional: clean(user.additional)! } : {}),
  };
  let working: ReportFacts = facts;
  let fields = reportFields(working, u);
  const suggestion = suggestRepository(facts.findings);
  let body = assembleBody(fields, suggestion);
  let truncated = false;
  // Over the limit: drop log excerpts, then evidence-heavy findings, then cut hard.
  if (body.length > REPORT_BODY_MAX_CHARS) {
    truncated = true;
    working = { ...working, excerpts: working.excerpts.slice(0, 2).map((e) => ({ ...e, text: e.text.slice(-500) })) };
    fields = reportFields(working, u);
    body = assembleBody(fields, suggestion);
  }
  if (body.length > REPORT_BODY_MAX_CHARS) {
    working = { ...working, excerpts: [], findings: sortFindings(working.findings).slice(0, 50).map((f) => ({ ...f, evidence: f.evidence.slice(0, 1).map((e) => ({ ...e, excerpt: e.excerpt.slice(0, 300) })) })) };
    fields = reportFields(working, u);
    body = assembleBody(fields, suggestion);
  }
  if (body.length > REPORT_BODY_MAX_CHARS) {
    const note = '\n\n[cut by Windeck: the body reached GitHub\'s 65,536-character limit]\n\n/sig windows\n';
    body = body.slice(0, REPORT_BODY_MAX_CHARS - note.length) + note;
  }
  const title = draftTitle(facts, u);
  const { url, omitted } = issueUrl(title, fields);
  const drafted = FORM_FIELD_IDS.filter((id) => fields[id].drafted);
  return { title, repository: 'kubernetes/kubernetes', template: 'bug-report.yaml', fields, body, url, urlOmitted: omitted, suggestion, drafted, truncated };
}
