import { useRef, useState, type DragEvent } from 'react';
import type { WireError } from '../../../shared/contract/errors';
import { DiagnoseOutput } from '../../../shared/contract/methods/diagnose';
import { DIAGNOSE_TEXT_MAX_CHARS } from '../../../shared/domain/limits';
import { useClient } from '../../api/client-context';
import { ErrorNotice } from '../../components/error-notice';
import { ProgressBar } from '../../components/progress-bar';
import { TableWrap } from '../../components/table-wrap';
import { FindingList } from '../diagnostics/finding-card';
import { useOperation } from '../operations/use-operation';
import { droppedItems, filesToItems, uploadAndDiagnose, UploadFailure, type UploadItem, type UploadProgress } from './upload';

/** Archives cannot be sent as text: uploaded in a browser, by path elsewhere (the backend runs on this machine). */
const ARCHIVE = /\.(zip|gz|tgz|7z|cab|evtx|etl)$/i;

interface Outcome {
  output: DiagnoseOutput;
  /** What could not be diagnosed (archives dropped in a browser, oversized or failing files). */
  skipped: Array<{ name: string; reason: string }>;
}

function merge(a: DiagnoseOutput, b: DiagnoseOutput): DiagnoseOutput {
  return { inputs: [...a.inputs, ...b.inputs], findings: [...a.findings, ...b.findings] };
}

/**
 * Offline diagnosis of things brought in by hand: a Windeck bundle, a collectlogs/AKS folder or zip (by path), or
 * loose files and pasted text (by content). The same rules run as on live nodes; nothing is contacted.
 */
export function ImportView() {
  const client = useClient();
  const [path, setPath] = useState('');
  const [paste, setPaste] = useState('');
  const [pasteName, setPasteName] = useState('');
  const [opId, setOpId] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  const uploadAbort = useRef<AbortController | null>(null);
  const op = useOperation(opId);
  // The web host takes uploads; the desktop window and tests read dropped text (and archives by path).
  const canUpload = client.transport.kind === 'websocket';

  const opOutcome = op.op?.state === 'succeeded' ? DiagnoseOutput.safeParse(op.op.result) : null;
  const shown: Outcome | null = opId ? (opOutcome?.success ? { output: opOutcome.data, skipped: [] } : null) : outcome;
  const opError = op.op && ['failed', 'cancelled', 'timed-out'].includes(op.op.state) ? (op.op.error ?? null) : null;

  async function byPath() {
    setError(null);
    setOutcome(null);
    const r = await client.call('diagnose:files', { path: path.trim() });
    if (r.ok) setOpId(r.value.operationId);
    else setError(r.error);
  }

  async function byText(items: Array<{ name: string | null; text: string }>, skipped: Outcome['skipped']) {
    setError(null);
    setOpId(null);
    setBusy(true);
    let output: DiagnoseOutput = { inputs: [], findings: [] };
    for (const item of items) {
      const r = await client.call('diagnose:text', { text: item.text, ...(item.name ? { name: item.name } : {}) });
      if (r.ok) output = merge(output, r.value);
      else skipped.push({ name: item.name ?? 'pasted text', reason: r.error.message });
    }
    setBusy(false);
    setOutcome({ output, skipped });
  }

  /** Web host: upload what was dropped or chosen (zip, folder tree, loose files) and diagnose it as one set. */
  async function byUpload(items: UploadItem[]) {
    setError(null);
    setOutcome(null);
    setOpId(null);
    const abort = new AbortController();
    uploadAbort.current = abort;
    setUpload({ bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: items.length, current: null });
    try {
      const started = await uploadAndDiagnose(items, setUpload, abort.signal);
      setOpId(started.operationId);
    } catch (e) {
      setError(e instanceof UploadFailure ? e.error : { code: 'INTERNAL', message: (e as Error).message, retryable: false });
    } finally {
      setUpload(null);
      uploadAbort.current = null;
    }
  }

  async function files(list: FileList | null) {
    if (!list || list.length === 0) return;
    if (canUpload) {
      await byUpload(filesToItems(list));
      return;
    }
    const items: Array<{ name: string; text: string }> = [];
    const skipped: Outcome['skipped'] = [];
    for (const file of Array.from(list)) {
      if (ARCHIVE.test(file.name)) {
        skipped.push({ name: file.name, reason: 'an archive cannot be read from a drop here: type its path in "Diagnose a path" instead.' });
      } else if (file.size > DIAGNOSE_TEXT_MAX_CHARS) {
        skipped.push({ name: file.name, reason: `larger than ${Math.round(DIAGNOSE_TEXT_MAX_CHARS / 1024 / 1024)} MiB; give its folder's path instead.` });
      } else if (file.size === 0) {
        skipped.push({ name: file.name, reason: 'empty, or a folder (drop the files inside it, or type the folder path).' });
      } else {
        items.push({ name: file.name.replace(/[/\\]/g, '_'), text: await file.text() });
      }
    }
    await byText(items, skipped);
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    if (canUpload) {
      // Entries are taken now, while the drop event runs; folders are walked afterwards.
      const pending = droppedItems(e.dataTransfer);
      void pending.then(byUpload, (err: unknown) =>
        setError({ code: 'PERMISSION_DENIED', message: `The dropped items cannot be read: ${(err as Error).message}`, retryable: false }),
      );
      return;
    }
    void files(e.dataTransfer.files);
  }

  return (
    <section className="import-view" aria-labelledby="import-title">
      <h2 id="import-title">Import and diagnose offline</h2>
      <p className="muted">Bring what a user sent you: Windeck finds the same problems as on a live node, without contacting anything.</p>
      <div className="import-grid">
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            void byPath();
          }}
        >
          <h3>Diagnose a path</h3>
          <div className="field grow">
            <label htmlFor="import-path">A Windeck bundle (.zip), a collectlogs.ps1 or AKS folder or zip, or any folder of logs, on this machine</label>
            <input
              id="import-path"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              spellCheck={false}
              placeholder="/home/me/Downloads/windeck-win-2.zip"
            />
          </div>
          <button type="submit" disabled={path.trim() === '' || op.op?.state === 'running'}>
            Diagnose
          </button>
        </form>
        <div
          className={`panel drop-zone${dragging ? ' dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          {canUpload ? (
            <>
              <h3>Drop a bundle, a folder or files</h3>
              <p>
                Drop a Windeck bundle or AKS zip, a collectlogs.ps1 folder, or log and output files here: they are uploaded to Windeck on this machine and
                diagnosed together. Or
              </p>
            </>
          ) : (
            <>
              <h3>Drop loose files</h3>
              <p>Drop log or output files here (kubelet.log, Get-Service output, hnsdiag, ipconfig /all, CNI config…), or</p>
            </>
          )}
          <input
            ref={fileInput}
            id="import-files"
            aria-label="Files to diagnose"
            type="file"
            multiple
            className="visually-hidden"
            onChange={(e) => void files(e.target.files)}
          />
          <button type="button" className="secondary" onClick={() => fileInput.current?.click()} disabled={upload !== null}>
            Choose files…
          </button>
          {canUpload && (
            <>
              <input
                ref={folderInput}
                id="import-folder"
                aria-label="Folder to diagnose"
                type="file"
                className="visually-hidden"
                {...{ webkitdirectory: '' }}
                onChange={(e) => void files(e.target.files)}
              />{' '}
              <button type="button" className="secondary" onClick={() => folderInput.current?.click()} disabled={upload !== null}>
                Choose a folder…
              </button>
            </>
          )}
        </div>
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            void byText([{ name: pasteName.trim() || null, text: paste }], []);
          }}
        >
          <h3>Paste text</h3>
          <div className="field grow">
            <label htmlFor="import-paste">Output or log text</label>
            <textarea id="import-paste" rows={6} value={paste} onChange={(e) => setPaste(e.target.value)} spellCheck={false} />
          </div>
          <div className="field">
            <label htmlFor="import-paste-name">File name, if you know it (helps recognition)</label>
            <input id="import-paste-name" value={pasteName} onChange={(e) => setPasteName(e.target.value)} placeholder="kubelet.err.log" />
          </div>
          <button type="submit" disabled={paste.trim() === '' || busy}>
            Diagnose text
          </button>
        </form>
      </div>
      {error && <ErrorNotice error={error} />}
      {busy && <p role="status">Diagnosing…</p>}
      {upload && (
        <div className="inline-progress" role="status">
          <ProgressBar fraction={upload.bytesTotal > 0 ? upload.bytesDone / upload.bytesTotal : null} label="Uploading" />
          <span>
            Uploading {Math.min(upload.filesDone + 1, upload.filesTotal)} of {upload.filesTotal}
            {upload.current ? ` (${upload.current})` : ''}
          </span>
          <button type="button" className="secondary small" onClick={() => uploadAbort.current?.abort()}>
            Cancel upload
          </button>
        </div>
      )}
      {op.op && ['queued', 'running'].includes(op.op.state) && (
        <div className="inline-progress" role="status">
          <ProgressBar fraction={op.op.fraction} label="Diagnosing" />
          <span>{op.op.message ?? op.op.step.title}</span>
          <button type="button" className="secondary small" onClick={() => void op.cancel()}>
            Cancel
          </button>
        </div>
      )}
      {opError && <ErrorNotice error={opError} {...(path.trim() ? { onRetry: () => void byPath() } : {})} />}
      {shown && <ImportResult outcome={shown} />}
    </section>
  );
}

function ImportResult({ outcome }: { outcome: Outcome }) {
  const { inputs, findings } = outcome.output;
  const unknown = inputs.filter((i) => i.kind === 'unknown').length;
  return (
    <section className="import-result" aria-labelledby="import-result-title">
      <h3 id="import-result-title">
        {findings.length} findings from {inputs.length} inputs
      </h3>
      {unknown > 0 && <p className="muted">{unknown} inputs were not recognized (listed as unknown below); they were not analysed.</p>}
      {outcome.skipped.length > 0 && (
        <ul className="reasons-list" aria-label="Not diagnosed">
          {outcome.skipped.map((s) => (
            <li key={s.name}>
              {s.name}: {s.reason}
            </li>
          ))}
        </ul>
      )}
      <FindingList findings={findings} empty="No problems found in these inputs." />
      {inputs.length > 0 && (
        <details>
          <summary>Inputs ({inputs.length})</summary>
          <TableWrap label="Inputs">
            <table className="plain-table">
              <thead>
                <tr>
                  <th scope="col">Input</th>
                  <th scope="col">Recognized as</th>
                </tr>
              </thead>
              <tbody>
                {inputs.map((i) => (
                  <tr key={i.path}>
                    <th scope="row">{i.path}</th>
                    <td>{i.kind === 'unknown' ? <span className="badge health-unknown">not recognized</span> : <code>{i.kind}</code>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </details>
      )}
    </section>
  );
}
