import { type DragEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { api, type DownloadedFile, describeFailure } from '../api.js';
import { StatusBadge } from '../components/Badge.js';
import { ConfirmDialog } from '../components/Dialog.js';
import { FormError, SelectField } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDateTime, formatNumber, percent, plural, timeAgo } from '../format.js';
import { type Resource, useAction, useNow, useResource } from '../hooks.js';
import { usePageTitle } from '../title.js';
import type { Import, ImportError, Page } from '../types.js';

type ImportResource = 'products' | 'customers';
type Mode = 'upsert' | 'create';
type OnError = 'abort' | 'skip';

interface Settings {
  resource: ImportResource;
  mode: Mode;
  onError: OnError;
}

/** The most the API takes in one file (`POST /v1/imports` answers 413 past it): refused before sending. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** How often a running import is asked about while the page is in use (hooks.ts slows it when idle). */
const PROGRESS_MS = 500;
/** Other imports that are still running (started elsewhere) are looked at this often. */
const LIST_REFRESH_MS = 5000;
const LIST_PAGE = 20;
const ERRORS_PAGE = 100;

const RESOURCE_LABELS: Record<ImportResource, string> = { products: 'Products', customers: 'Customers' };
const MODE_LABELS: Record<Mode, string> = {
  upsert: 'Create or update',
  create: 'Create only',
};
const ON_ERROR_LABELS: Record<OnError, string> = {
  abort: 'Import nothing',
  skip: 'Skip those rows',
};
const FORMAT_LABELS: Record<string, string> = { csv: 'CSV', jsonl: 'JSON Lines', shopify: 'Shopify CSV' };

function isFinished(job: Import): boolean {
  return job.status === 'succeeded' || job.status === 'failed';
}

/** How the API is told what the file holds: JSON Lines by its name or type, anything else as CSV. */
function contentTypeOf(file: File): string {
  const name = file.name.toLowerCase();
  return name.endsWith('.jsonl') || name.endsWith('.ndjson') || file.type === 'application/x-ndjson'
    ? 'application/x-ndjson'
    : 'text/csv';
}

/** "1.2 MB", "820 bytes". */
function fileSize(bytes: number): string {
  if (bytes < 1000) return plural(bytes, 'byte');
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** What a match is, for the mode's explanation. */
function matchedBy(resource: string): string {
  return resource === 'products' ? 'a product by the SKUs of its variants' : 'a customer by email';
}

/** An import's settings in a line: "Products · Create or update · rows with errors: Skip those rows". */
function settingsLine(job: Import): string {
  return [
    RESOURCE_LABELS[job.resource as ImportResource] ?? job.resource,
    FORMAT_LABELS[job.format] ?? job.format,
    MODE_LABELS[job.mode as Mode] ?? job.mode,
    `rows with errors: ${(ON_ERROR_LABELS[job.on_error as OnError] ?? job.on_error).toLowerCase()}`,
  ].join(' · ');
}

/** What a finished import (or check) came to, in a sentence. */
function outcome(job: Import): string {
  const rows = plural(job.rows_total, 'row');
  const errors = plural(job.error_count, 'error');
  if (job.dry_run) {
    if (job.status === 'succeeded' && job.error_count === 0) {
      return `The file is ready to import: ${rows} checked, no errors. Nothing was written.`;
    }
    if (job.status === 'succeeded') {
      return `${rows} checked, ${errors}. Imported with “Skip those rows”, the rows with errors would be left out and the others imported. Nothing was written.`;
    }
    if (job.on_error === 'abort' && job.rows_total > 0) {
      return `${rows} checked, ${errors}. Imported as it is, with “Import nothing”, this file would import nothing: fix the errors, or choose “Skip those rows”. Nothing was written.`;
    }
    return `This file cannot be imported: ${errors}. Nothing was written.`;
  }
  if (job.status === 'succeeded') {
    return job.error_count === 0
      ? `Imported ${rows}.`
      : `Imported ${rows}, with ${errors}: the rows with errors were skipped.`;
  }
  if (job.on_error === 'abort') return `The import failed with ${errors}: nothing was written.`;
  return `The import stopped early with ${errors}: the counts say what was written before it stopped.`;
}

/** While it runs: what the import is doing now. */
function activity(job: Import): string {
  if (job.status === 'queued') return 'Waiting to start…';
  if (job.dry_run) return `Checking the file… ${plural(job.rows_processed, 'row')} checked`;
  if (job.rows_processed === 0)
    return `Checking the rows before writing… ${plural(job.rows_total, 'row')} read`;
  return `Importing… ${formatNumber(job.rows_processed)} of ${plural(job.rows_total, 'row')}`;
}

/** Saves a downloaded file under its name, as a link to it would. */
function save({ blob, filename }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file by the next task; the URL goes then (a minute later, to be sure).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file field: a file input that is also a drop target. */
function FilePicker({
  file,
  error,
  onChange,
}: {
  file: File | undefined;
  error: string | undefined;
  onChange: (file: File | undefined) => void;
}) {
  const inputId = useId();
  const noteId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  function dropped(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer.files;
    const first = files[0];
    if (!first) return;
    // The input shows the dropped file too, as if it had been chosen there.
    if (input.current) input.current.files = files;
    onChange(first);
  }

  return (
    <div
      className={`field dropzone${dragging ? ' dropzone-active' : ''}`}

      onDragEnter={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={dropped}
    >
      <label htmlFor={inputId}>File</label>
      <input
        ref={input}
        id={inputId}
        type="file"
        accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
        aria-describedby={noteId}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.files?.[0])}
      />
      {error ? (
        <p id={noteId} className="field-error">
          {error}
        </p>
      ) : (
        <p id={noteId} className="hint">
          {file
            ? `${file.name} · ${fileSize(file.size)}`
            : 'CSV or JSON Lines (.jsonl, .ndjson), up to 50 MiB: choose one, or drop it here.'}
        </p>
      )}
    </div>
  );
}

/** The counts of an import, or of a check (what it would do). */
function Counts({ job }: { job: Import }) {
  const would = job.dry_run;
  const counts: [string, string, number][] = [
    ['created', would ? 'Would create' : 'Created', job.created_count],
    ['updated', would ? 'Would update' : 'Updated', job.updated_count],
    ['unchanged', 'Unchanged', job.unchanged_count],
    ['errors', 'Errors', job.error_count],
  ];
  return (
    <dl className="import-counts">
      {counts.map(([key, label, value]) => (
        <div
          key={key}
          data-count={key}
          className={key === 'errors' && value > 0 ? 'import-count-errors' : ''}
        >
          <dt>{label}</dt>
          <dd className="numeric">{formatNumber(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * An import's errors by line and column: the first 100 that come with it, and the rest a page at a
 * time (`GET /imports/{id}/errors`, after the ones shown) on request.
 */
function ImportErrors({ job }: { job: Import }) {
  const [more, setMore] = useState<{ rows: ImportError[]; cursor: string | null }>();
  const [loading, setLoading] = useState(false);
  const toast = useToast();
  const rows = [...job.errors, ...(more?.rows ?? [])];
  const rest = isFinished(job) && (more ? more.cursor !== null : job.error_count > job.errors.length);

  async function loadMore() {
    setLoading(true);
    try {
      const from = more?.cursor ? `cursor=${encodeURIComponent(more.cursor)}` : `offset=${job.errors.length}`;
      const page = await api.get<Page<ImportError>>(`/imports/${job.id}/errors?limit=${ERRORS_PAGE}&${from}`);
      setMore({
        rows: [...(more?.rows ?? []), ...page.data],
        cursor: page.has_more ? page.next_cursor : null,
      });
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setLoading(false);
    }
  }

  if (rows.length === 0) return null;
  return (
    <div className="import-errors">
      <div className="card-header">
        <h3>Errors</h3>
        <span className="hint">
          {rows.length < job.error_count
            ? `Showing ${formatNumber(rows.length)} of ${plural(job.error_count, 'error')}`
            : `${plural(job.error_count, 'error')}, by line`}
        </span>
      </div>
      <div className="table-wrap">
        <table className="table table-errors">
          <caption className="visually-hidden">Errors in the file, by line and column</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Column</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((error, index) => (
              <tr key={index} data-line={error.line}>
                <th scope="row" data-label="Line" className="numeric">
                  {error.line}
                </th>
                <td data-label="Column">
                  {error.column === null ? (
                    <span className="muted">Whole row</span>
                  ) : (
                    <span className="mono">{error.column}</span>
                  )}
                </td>
                <td data-label="Message" className="error-message">
                  <span>{error.message}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rest ? (
        <div className="load-more">
          <button type="button" className="button" disabled={loading} onClick={() => void loadMore()}>
            {loading ? 'Loading…' : `Load more errors (${formatNumber(job.error_count - rows.length)} more)`}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The share of the rows written, as a bar: a running import's progress, full once it succeeded. */
function ProgressBar({ job }: { job: Import }) {
  const share = job.status === 'succeeded' ? 100 : percent(job.rows_processed, job.rows_total);
  const whole = Math.floor(share);
  return (
    <div className="progress">
      <div className="progress-label">
        <span>{isFinished(job) ? 'Done' : activity(job)}</span>
        <span className="numeric">
          {formatNumber(job.rows_processed)} of {formatNumber(job.rows_total)} rows · {whole}%
        </span>
      </div>
      <div
        className="meter"
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={whole}
        aria-valuetext={`${formatNumber(job.rows_processed)} of ${plural(job.rows_total, 'row')} (${whole}%)`}
      >
        <div className="meter-fill" style={{ width: `${share}%` }} />
      </div>
    </div>
  );
}

/**
 * One import (or check) followed to its end: `GET /imports/{id}` every half second while it runs
 * (the POST's answer shows until the first), then its outcome, counts and errors. Keyed by the
 * import, so each one starts following afresh. `onProgress` hears each state it shows.
 */
function ImportReport({
  started,
  fileName,
  onProgress,
}: {
  started: Import;
  /** The file's name, when it was sent from this page. */
  fileName: string | undefined;
  onProgress: (job: Import) => void;
}) {
  const [finished, setFinished] = useState(isFinished(started));
  const progress = useResource<Import>(`/imports/${started.id}`, {
    refreshMs: finished ? undefined : PROGRESS_MS,
  });
  const job = progress.data ?? started;
  // Finished: no more asking (its refresh timer stops with this render).
  if (!finished && isFinished(job)) setFinished(true);
  useEffect(() => onProgress(job), [job, onProgress]);

  const kind = job.dry_run ? 'Check' : 'Import';
  const title = fileName ? `${kind} of ${fileName}` : `${kind} ${job.id}`;
  return (
    <section className="card import-report" aria-labelledby="report-title" data-import-id={job.id}>
      <div className="card-header">
        <div>
          <h2 id="report-title" className="break-anywhere">
            {title}
          </h2>
          <p className="hint">
            {settingsLine(job)} · started {formatDateTime(job.created)}
          </p>
        </div>
        <StatusBadge status={job.status} label={job.dry_run ? `Check ${job.status}` : undefined} />
      </div>
      {progress.error !== undefined && progress.data === undefined ? (
        <ErrorState
          error={progress.error}
          onRetry={progress.reload}
          title="The import’s progress could not be loaded"
        />
      ) : null}
      {!job.dry_run && job.status !== 'failed' ? <ProgressBar job={job} /> : null}
      <p className="import-outcome" role="status">
        {isFinished(job) ? outcome(job) : job.dry_run ? activity(job) : null}
      </p>
      {isFinished(job) ? <Counts job={job} /> : null}
      <ImportErrors key={job.status} job={job} />
    </section>
  );
}

/** "Import “file.csv”?", with what it will do, and what its check found when it had one. */
function ConfirmImport({
  file,
  settings,
  check,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  file: File;
  settings: Settings;
  check: Import | undefined;
  busy: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const what = settings.resource;
  return (
    <ConfirmDialog
      title={`Import “${file.name}”?`}
      tone="primary"
      confirmLabel="Import"
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={onConfirm}
      message={
        <>
          <p>
            This writes to your store’s {what}.{' '}
            {settings.mode === 'upsert'
              ? `Each row matches ${matchedBy(what)} and changes it, or creates a new one.`
              : `Each row creates a new one; a row matching ${matchedBy(what)} is an error.`}{' '}
            {settings.onError === 'abort'
              ? 'If any row has an error, nothing is imported.'
              : 'Rows with errors are skipped; the others are imported.'}
          </p>
          {check ? (
            <p>
              The check of this file found: {formatNumber(check.created_count)} to create,{' '}
              {formatNumber(check.updated_count)} to update, {formatNumber(check.unchanged_count)} unchanged,{' '}
              {plural(check.error_count, 'error')}.
            </p>
          ) : (
            <p>
              This file has not been checked: “Check file” shows what it would do without writing anything.
            </p>
          )}
        </>
      }
    />
  );
}

/** Past imports, newest first, a page at a time; rows still running are followed. */
function ImportHistory({
  list,
  following,
  onShow,
}: {
  list: Resource<Page<Import>>;
  /** The import followed above, as last seen there (newer than the list's copy). */
  following: Import | undefined;
  onShow: (job: Import) => void;
}) {
  const now = useNow();
  const toast = useToast();
  const [older, setOlder] = useState<{ rows: Import[]; cursor: string | null }>();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const latest = list.data?.data ?? [];
  const latestIds = new Set(latest.map((job) => job.id));
  const jobs = [...latest, ...(older?.rows ?? []).filter((job) => !latestIds.has(job.id))].map((job) =>
    following && job.id === following.id ? following : job,
  );
  const cursor = older ? older.cursor : list.data?.has_more ? list.data.next_cursor : null;

  async function showOlder(from: string) {
    setLoadingOlder(true);
    try {
      const page = await api.get<Page<Import>>(
        `/imports?limit=${LIST_PAGE}&cursor=${encodeURIComponent(from)}`,
      );
      setOlder({ rows: [...jobs, ...page.data], cursor: page.has_more ? page.next_cursor : null });
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setLoadingOlder(false);
    }
  }

  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <Loading label="Loading imports" />
      );
  } else if (jobs.length === 0) {
    body = (
      <Empty title="No imports yet">Checks and imports show here, newest first, whoever started them.</Empty>
    );
  } else {
    body = (
      <>
        <div className="table-wrap">
          <table className="table table-imports">
            <caption className="visually-hidden">Past imports, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Resource</th>
                <th scope="col">Mode</th>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.id} data-import-id={job.id} data-status={job.status}>
                  <th scope="row" data-label="Started" className="nowrap">
                    {/* The row's time opens its report, as an endpoint's URL opens its page. */}
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`Show the report of ${job.dry_run ? 'check' : 'import'} ${job.id}, started ${timeAgo(job.created, now)}`}
                      title={formatDateTime(job.created)}
                      onClick={() => onShow(job)}
                    >
                      <time dateTime={job.created}>{timeAgo(job.created, now)}</time>
                    </button>
                  </th>
                  <td data-label="Resource">
                    <span>
                      {RESOURCE_LABELS[job.resource as ImportResource] ?? job.resource}
                      <span className="hint import-subline">{FORMAT_LABELS[job.format] ?? job.format}</span>
                    </span>
                  </td>
                  <td data-label="Mode">
                    <span>
                      {MODE_LABELS[job.mode as Mode] ?? job.mode}
                      <span className="hint import-subline">
                        {job.on_error === 'skip' ? 'skip rows with errors' : 'all or nothing'}
                      </span>
                    </span>
                  </td>
                  <td data-label="Run" className="nowrap">
                    {job.dry_run ? 'Dry run' : 'Import'}
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={job.status} />
                  </td>
                  <td data-label="Rows" className="numeric">
                    {isFinished(job) || job.rows_processed > 0
                      ? `${formatNumber(job.rows_processed)} / ${formatNumber(job.rows_total)}`
                      : formatNumber(job.rows_total)}
                  </td>
                  <td data-label="Result" className="import-result">
                    <span>
                      {job.dry_run ? 'would create ' : 'created '}
                      {formatNumber(job.created_count)}, {job.dry_run ? 'update ' : 'updated '}
                      {formatNumber(job.updated_count)}, unchanged {formatNumber(job.unchanged_count)}
                      {job.error_count > 0 ? (
                        <span className="import-result-errors">, {plural(job.error_count, 'error')}</span>
                      ) : (
                        ', no errors'
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {cursor ? (
          <div className="load-more">
            <button
              type="button"
              className="button"
              disabled={loadingOlder}
              onClick={() => void showOlder(cursor)}
            >
              {loadingOlder ? 'Loading…' : 'Show older imports'}
            </button>
          </div>
        ) : null}
      </>
    );
  }

  return (
    <section className="import-history" aria-labelledby="history-title">
      <div className="card-header">
        <h2 id="history-title">Past imports</h2>
        <span className="hint">Checks (dry runs) and imports, newest first</span>
      </div>
      {body}
    </section>
  );
}

const EXPORTS: { resource: string; label: string; note: string }[] = [
  { resource: 'products', label: 'Products', note: 'One row per variant; imports back as it is.' },
  { resource: 'customers', label: 'Customers', note: 'One row per address; imports back as it is.' },
  { resource: 'orders', label: 'Orders', note: 'One row per order line.' },
];

const EXPORT_FORMATS: { format: 'csv' | 'jsonl'; label: string }[] = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSON Lines' },
];

/** Every row of the store as a file, fetched through the session and saved under the server's name. */
function Exports() {
  const toast = useToast();
  const [busy, setBusy] = useState<string>();

  async function download(resource: string, format: 'csv' | 'jsonl') {
    const key = `${resource} ${format}`;
    setBusy(key);
    try {
      const file = await api.download(`/exports/${resource}?format=${format}`);
      save(file);
      toast(`Downloaded ${file.filename}.`);
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <section className="card" aria-labelledby="exports-title">
      <div className="card-header">
        <h2 id="exports-title">Exports</h2>
        <span className="hint">Every row of the store: CSV for spreadsheets, JSON Lines for programs</span>
      </div>
      <ul className="export-list">
        {EXPORTS.map(({ resource, label, note }) => (
          <li key={resource} className="export-item">
            <div>
              <strong>{label}</strong>
              <div className="hint">{note}</div>
            </div>
            <div className="export-actions">
              {EXPORT_FORMATS.map(({ format, label: formatLabel }) => (
                <button
                  key={format}
                  type="button"
                  className="button button-small"
                  disabled={busy !== undefined}
                  aria-label={`Download ${resource} as ${formatLabel}`}
                  onClick={() => void download(resource, format)}
                >
                  {busy === `${resource} ${format}` ? 'Preparing…' : formatLabel}
                </button>
              ))}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What was last sent from the form (or opened from the list), and the file it sent. */
interface Shown {
  started: Import;
  fileName: string | undefined;
}

/** The last check sent: its file and settings (what "Import" would run), and once done, its outcome. */
interface Check {
  id: string;
  file: File;
  settings: Settings;
  job?: Import;
}

export function Imports() {
  usePageTitle('Imports');
  const toast = useToast();
  const [file, setFile] = useState<File>();
  const [settings, setSettings] = useState<Settings>({
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
  const { busy, error, setError, run } = useAction();
  const report = useRef<HTMLDivElement>(null);
  /** Imports whose end this page has taken note of (the list reloaded for it). */
  const ended = useRef(new Set<string>());

  // Past imports: refreshed while one started elsewhere still runs (the one shown is followed above).
  const [watching, setWatching] = useState(false);
  const list = useResource<Page<Import>>(`/imports?limit=${LIST_PAGE}`, {
    refreshMs: watching ? LIST_REFRESH_MS : undefined,
  });
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
  const edit = (change: Partial<Settings>) => setSettings((current) => ({ ...current, ...change }));
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
    setError(undefined);
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

  async function send(chosen: File, dryRun: boolean): Promise<Import> {
    const query = new URLSearchParams({
      resource: settings.resource,
      mode: settings.mode,
      dry_run: String(dryRun),
      on_error: settings.onError,
    });
    const started = await api.upload<Import>(`/imports?${query}`, chosen, contentTypeOf(chosen));
    setShown({ started, fileName: chosen.name });
    setSeen(started);
    reloadList();
    showReport();
    return started;
  }

  function startCheck() {
    const chosen = chosenFile();
    if (chosen === undefined) return;
    const checked = { ...settings };
    void run(async () => {
      const started = await send(chosen, true);
      setCheck({ id: started.id, file: chosen, settings: checked });
    });
  }

  function startImport() {
    const chosen = chosenFile();
    if (chosen === undefined) return;
    void run(async () => {
      await send(chosen, false);
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
              setError(undefined);
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
          setShown({ started: job, fileName: undefined });
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
            setError(undefined);
          }}
        />
      ) : null}
    </>
  );
}
