import { WindeckError } from '../../../shared/contract/errors';
import { ReportFormat } from '../../../shared/contract/methods/bundles';
import type { CommandDef } from '../command';
import { EXIT } from '../exit-codes';

/**
 * `windeck report NODE | --bundle PATH [--format md|json|url] [--problem TEXT] [--expected TEXT] [--repro TEXT]`
 * (DESIGN.md section 10): the Kubernetes bug-report form filled from evidence; fields not given are drafted
 * from the findings and marked `[draft - please edit]`. `md` prints the body, `url` the prefilled issues/new
 * link, `json` everything (fields, body, url, repository suggestion). Suggestions of a better repository and
 * fields left out of the URL are said on stderr.
 */

const USAGE = 'windeck report NODE | --bundle PATH [--format md|json|url] [--problem TEXT] [--expected TEXT] [--repro TEXT] [--title TEXT]';

export const reportCommand: CommandDef = {
  name: 'report',
  summary: 'Draft a SIG-Windows GitHub bug report',
  usage: USAGE,
  flags: { '--bundle': 'string', '--format': 'string', '--problem': 'string', '--expected': 'string', '--repro': 'string', '--title': 'string' },
  async run(io) {
    const [node, ...extra] = io.args.positionals;
    const bundle = io.args.string('--bundle');
    if (extra.length > 0 || (node === undefined) === (bundle === undefined)) throw new WindeckError('VALIDATION', `Usage: ${USAGE}`);
    const format = ReportFormat.safeParse(io.args.string('--format') ?? (io.json ? 'json' : 'md'));
    if (!format.success) throw new WindeckError('VALIDATION', `--format must be md, json or url.`);
    const pick = (flag: string) => io.args.string(flag);
    const result = await io.call('reports:render', {
      format: format.data,
      ...(node ? { node } : {}),
      ...(bundle ? { bundle } : {}),
      ...(pick('--kubeconfig') ? { kubeconfig: pick('--kubeconfig')! } : {}),
      ...(pick('--context') ? { context: pick('--context')! } : {}),
      ...(pick('--problem') !== undefined ? { problem: pick('--problem')! } : {}),
      ...(pick('--expected') !== undefined ? { expected: pick('--expected')! } : {}),
      ...(pick('--repro') !== undefined ? { repro: pick('--repro')! } : {}),
      ...(pick('--title') !== undefined ? { title: pick('--title')! } : {}),
    });
    const r = result.report;
    if (r.suggestion) io.err(`note: these findings point at ${r.suggestion.repository} (${r.suggestion.reason}): ${r.suggestion.url}`);
    if (r.drafted.length) io.err(`note: drafted from the findings, please edit: ${r.drafted.join(', ')}`);
    if (format.data === 'url' && r.urlOmitted.length) io.err(`note: left out of the URL (too long), paste them from the Markdown body: ${r.urlOmitted.join(', ')}`);
    if (format.data === 'json') io.out(JSON.stringify(r, null, 2));
    else io.out(result.text);
    return EXIT.OK;
  },
};
