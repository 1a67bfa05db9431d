import { useState } from 'react';
import { describeFailure } from '../../api/errors.js';
import { importsPage } from '../../api/queries.js';
import type { Resource } from '../../api/query.js';
import { StatusBadge } from '../../components/Badge.js';
import { Empty, ErrorState, Loading } from '../../components/States.js';
import { useToast } from '../../components/Toast.js';
import { formatDateTime, formatNumber, plural, timeAgo } from '../../format.js';
import { useNow } from '../../timing.js';
import type { Import, Page } from '../../types.js';
import { FORMAT_LABELS, isFinished, MODE_LABELS, RESOURCE_LABELS } from './describe.js';

/** Past imports, newest first, a page at a time; rows still running are followed. */
export function ImportHistory({
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
      const page = await importsPage(from);
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
                <th scope="col">File</th>
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
                  <td data-label="File" className="import-file">
                    {job.filename ?? (
                      <span
                        className="muted"
                        title="Sent through the API without a Content-Disposition header, or before imports kept their file names"
                      >
                        Not named
                      </span>
                    )}
                  </td>
                  <td data-label="Resource">
                    <span>
                      {RESOURCE_LABELS[job.resource] ?? job.resource}
                      <span className="hint import-subline">{FORMAT_LABELS[job.format] ?? job.format}</span>
                    </span>
                  </td>
                  <td data-label="Mode">
                    <span>
                      {MODE_LABELS[job.mode] ?? job.mode}
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
