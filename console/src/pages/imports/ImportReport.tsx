import { useEffect, useState } from 'react';
import { useImport } from '../../api/queries.js';
import { StatusBadge } from '../../components/Badge.js';
import { ErrorState } from '../../components/States.js';
import { formatDateTime, formatNumber, percent, plural } from '../../format.js';
import type { Import } from '../../types.js';
import { activity, isFinished, outcome, settingsLine } from './describe.js';
import { ImportErrors } from './ImportErrors.js';

/** How often a running import is asked about while the page is in use (slower when idle: api/query.ts). */
const PROGRESS_MS = 500;

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
 * The columns of a Shopify or WooCommerce file nothing was read from (`ignored_columns`), so that
 * no column is dropped without a word.
 */
function IgnoredColumns({ job }: { job: Import }) {
  const ignored = (job as Import & { ignored_columns?: string[] }).ignored_columns ?? [];
  if (ignored.length === 0) return null;
  return (
    <details className="import-ignored" data-ignored-columns={ignored.length}>
      <summary>
        {plural(ignored.length, 'column')} of the file {ignored.length === 1 ? 'was' : 'were'} not imported:
        nothing here holds {ignored.length === 1 ? 'it' : 'them'}
      </summary>
      <ul>
        {ignored.map((column) => (
          <li key={column} className="break-anywhere">
            <code>{column}</code>
          </li>
        ))}
      </ul>
    </details>
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
export function ImportReport({
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
  const progress = useImport(started.id, { refreshMs: finished ? undefined : PROGRESS_MS });
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
      <IgnoredColumns job={job} />
      <ImportErrors key={job.status} job={job} />
    </section>
  );
}
