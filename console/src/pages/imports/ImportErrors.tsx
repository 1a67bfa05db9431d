import { useState } from 'react';
import { describeFailure } from '../../api/errors.js';
import { importErrorsPage } from '../../api/queries.js';
import { useToast } from '../../components/Toast.js';
import { formatNumber, plural } from '../../format.js';
import type { Import, ImportError } from '../../types.js';
import { isFinished } from './describe.js';

/**
 * An import's errors by line and column: the first 100 that come with it, and the rest a page at a
 * time (`GET /imports/{id}/errors`, after the ones shown) on request.
 */
export function ImportErrors({ job }: { job: Import }) {
  const [more, setMore] = useState<{ rows: ImportError[]; cursor: string | null }>();
  const [loading, setLoading] = useState(false);
  const toast = useToast();
  const rows = [...job.errors, ...(more?.rows ?? [])];
  const rest = isFinished(job) && (more ? more.cursor !== null : job.error_count > job.errors.length);

  async function loadMore() {
    setLoading(true);
    try {
      const from = more?.cursor ? { cursor: more.cursor } : { offset: job.errors.length };
      const page = await importErrorsPage(job.id, from);
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
