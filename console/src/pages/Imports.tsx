import { useCallback, useRef, useState } from 'react';
import { type ImportSettings, useStartImport } from '../api/mutations.js';
import { useImports } from '../api/queries.js';
import { FormError, SelectField } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { useToast } from '../components/Toast.js';
import { usePageTitle } from '../title.js';
import type { Import } from '../types.js';
import { ConfirmImport } from './imports/ConfirmImport.js';
import {
  fileSize,
  type ImportResource,
  isFinished,
  matchedBy,
  type Mode,
  MODE_LABELS,
  type OnError,
  ON_ERROR_LABELS,
} from './imports/describe.js';
import { Exports } from './imports/Exports.js';
import { FilePicker } from './imports/FilePicker.js';
import { ImportHistory } from './imports/ImportHistory.js';
import { ImportReport } from './imports/ImportReport.js';

/**
 * The Imports page: the form that checks and imports a file, the report of the last one sent (or
 * opened from the list) followed to its end, the past imports and the exports (./imports/).
 */

/** The most the API takes in one file (`POST /v1/imports` answers 413 past it): refused before sending. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Other imports that are still running (started elsewhere) are looked at this often. */
const LIST_REFRESH_MS = 5000;

/** What was last sent from the form (or opened from the list), and the file it sent. */
interface Shown {
  started: Import;
  fileName: string | undefined;
}

/** The last check sent: its file and settings (what "Import" would run), and once done, its outcome. */
interface Check {
  id: string;
  file: File;
  settings: ImportSettings;
  job?: Import;
}

export function Imports() {
  usePageTitle('Imports');
  const toast = useToast();
  const [file, setFile] = useState<File>();
  const [settings, setSettings] = useState<ImportSettings>({
    resource: 'products',
    mode: 'upsert',
    onError: 'abort',
  });
  const [fileError, setFileError] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [shown, setShown] = useState<Shown>();
  /** The import on show, as its report last saw it. */
  const [seen, setSeen] = useState<Import>();
  const [check, setCheck] = useState<Check>();
  const start = useStartImport();
  const busy = start.isPending;
  const error = start.error;
  const report = useRef<HTMLDivElement>(null);
  /** Imports whose end this page has taken note of (the list reloaded for it). */
  const ended = useRef(new Set<string>());

  // Past imports: refreshed while one started elsewhere still runs (the one shown is followed above).
  const [watching, setWatching] = useState(false);
  const list = useImports({ refreshMs: watching ? LIST_REFRESH_MS : undefined });
  const active = (list.data?.data ?? []).some((job) => !isFinished(job) && job.id !== shown?.started.id);
  if (active !== watching) setWatching(active);
  const reloadList = list.reload;

  const progressed = useCallback(
    (job: Import) => {
      setSeen(job);
      if (!isFinished(job) || ended.current.has(job.id)) return;
      ended.current.add(job.id);
      reloadList();
      if (job.dry_run) setCheck((current) => (current?.id === job.id ? { ...current, job } : current));
    },
    [reloadList],
  );

  const running = shown !== undefined && !(seen?.id === shown.started.id && isFinished(seen));
  const edit = (change: Partial<ImportSettings>) => setSettings((current) => ({ ...current, ...change }));
  // What the check of this very file, in this resource and mode, found (on_error changes no count).
  const checkedThis =
    check?.file === file &&
    check?.settings.resource === settings.resource &&
    check.settings.mode === settings.mode
      ? check.job
      : undefined;

  function showReport() {
    requestAnimationFrame(() => report.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' }));
  }

  /** The file, if it can be sent; else says why not, under the field. */
  function chosenFile(): File | undefined {
    start.reset();
    if (file === undefined) {
      setFileError('Choose a file to import.');
      return undefined;
    }
    if (file.size > MAX_FILE_BYTES) {
      setFileError(`${file.name} is ${fileSize(file.size)}: a file can be at most 50 MiB.`);
      return undefined;
    }
    return file;
  }

  /** Sends the file (as a check, or to import), shows its report, then `then` with the import started. */
  function send(chosen: File, dryRun: boolean, then: (started: Import) => void) {
    start.mutate(
      { file: chosen, settings, dryRun },
      {
        onSuccess: (started) => {
          setShown({ started, fileName: chosen.name });
          setSeen(started);
          showReport();
          then(started);
        },
      },
    );
  }

  function startCheck() {
    const chosen = chosenFile();
    if (chosen === undefined) return;
    const checked = { ...settings };
    send(chosen, true, (started) => setCheck({ id: started.id, file: chosen, settings: checked }));
  }

  function startImport() {
    const chosen = chosenFile();
    if (chosen === undefined) return;
    send(chosen, false, () => {
      setConfirming(false);
      toast(`Importing ${chosen.name}.`);
    });
  }

  return (
    <>
      <PageHeader
        title="Imports"
        description="Bring products or customers in from a CSV or JSON Lines file: check it first to see what it would do and what is wrong with it, line by line, then import it. Export your store’s data below."
      />
      <section className="card" aria-labelledby="import-title">
        <div className="card-header">
          <h2 id="import-title">Import a file</h2>
          <span className="hint">
            Use the columns an export writes: export first for a file to start from
          </span>
        </div>
        <form
          className="import-form"
          onSubmit={(event) => {
            event.preventDefault();
            startCheck();
          }}
        >
          <FilePicker
            file={file}
            error={fileError}
            onChange={(chosen) => {
              setFile(chosen);
              setFileError(undefined);
              start.reset();
            }}
          />
          <div className="import-settings">
            <SelectField
              label="Resource"
              value={settings.resource}
              onChange={(e) => edit({ resource: e.target.value as ImportResource })}
            >
              <option value="products">Products</option>
              <option value="customers">Customers</option>
            </SelectField>
            <SelectField
              label="Mode"
              hint={
                settings.mode === 'upsert'
                  ? `Matches ${matchedBy(settings.resource)}: changes it, or creates a new one.`
                  : `A row matching ${matchedBy(settings.resource)} is an error.`
              }
              value={settings.mode}
              onChange={(e) => edit({ mode: e.target.value as Mode })}
            >
              <option value="upsert">{MODE_LABELS.upsert}</option>
              <option value="create">{MODE_LABELS.create}</option>
            </SelectField>
            <SelectField
              label="When a row has errors"
              hint={
                settings.onError === 'abort'
                  ? 'Every row is checked first; any error and nothing is written.'
                  : 'The good rows are written, the others reported.'
              }
              value={settings.onError}
              onChange={(e) => edit({ onError: e.target.value as OnError })}
            >
              <option value="abort">{ON_ERROR_LABELS.abort}</option>
              <option value="skip">{ON_ERROR_LABELS.skip}</option>
            </SelectField>
          </div>
          <FormError error={error} />
          <div className="import-actions">
            <button type="submit" className="button" disabled={busy || running}>
              {busy && !confirming ? 'Sending…' : 'Check file'}
            </button>
            <button
              type="button"
              className="button button-primary"
              disabled={busy || running}
              onClick={() => {
                if (chosenFile() !== undefined) setConfirming(true);
              }}
            >
              Import
            </button>
            {running ? <span className="hint">Wait for the import above to finish.</span> : null}
          </div>
        </form>
      </section>
      <div ref={report} className="import-report-slot">
        {shown ? (
          <ImportReport
            key={shown.started.id}
            started={shown.started}
            fileName={shown.fileName}
            onProgress={progressed}
          />
        ) : null}
      </div>
      <ImportHistory
        list={list}
        following={seen}
        onShow={(job) => {
          if (isFinished(job)) ended.current.add(job.id);
          setShown({ started: job, fileName: job.filename ?? undefined });
          setSeen(job);
          showReport();
        }}
      />
      <Exports />
      {confirming && file ? (
        <ConfirmImport
          file={file}
          settings={settings}
          check={checkedThis}
          busy={busy}
          error={error}
          onConfirm={startImport}
          onClose={() => {
            setConfirming(false);
            start.reset();
          }}
        />
      ) : null}
    </>
  );
}
