import { type AuditEntry, useAuditEntries } from '../api/logs.js';
import { formatLogTime, plural } from '../format.js';
import { Empty, ErrorState, Loading } from './States.js';

/** A value of a change, short: text as it is, anything else as JSON, long ones cut. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function actorOf(entry: AuditEntry): string {
  const who = entry.actor.name ?? entry.actor.id;
  return who ? `${entry.actor.type.replace('_', ' ')}: ${who}` : entry.actor.type.replace('_', ' ');
}

/** The audit entries as a table: when, who, what, and each changed field from → to. */
export function AuditTable({ entries, caption }: { entries: AuditEntry[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="table audit-list">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} className="audit-row" data-audit-id={entry.id}>
              <td data-label="Time" className="mono nowrap">
                <time dateTime={entry.time}>{formatLogTime(entry.time)}</time>
              </td>
              <td data-label="Who">{actorOf(entry)}</td>
              <td data-label="Action" className="mono">
                {entry.action}
              </td>
              <td data-label="Changes">
                {entry.changes === null ? (
                  // Not sealed yet: the change's diff is worked out about a second after it.
                  <span className="muted">…</span>
                ) : Object.keys(entry.changes).length === 0 ? (
                  <span className="muted">—</span>
                ) : (
                  <ul className="change-list">
                    {Object.entries(entry.changes).map(([field, change]) => (
                      <li key={field}>
                        <span className="mono">{field}</span>: {shown(change.from)} → {shown(change.to)}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An object's history: who changed it, when, and what changed, newest first. */
export function AuditHistory({ resourceId, noun }: { resourceId: string; noun: string }) {
  const history = useAuditEntries({ resource_id: resourceId }, { refreshMs: 10_000 });
  let body;
  if (history.data === undefined) {
    body =
      history.error !== undefined ? (
        <ErrorState error={history.error} onRetry={history.reload} title="The history could not be loaded" />
      ) : (
        <Loading label="Loading the history" rows={2} />
      );
  } else if (history.data.data.length === 0) {
    body = <Empty title="No recorded changes">Changes to this {noun} appear here as they are made.</Empty>;
  } else {
    body = <AuditTable entries={history.data.data} caption={`Changes to this ${noun}, newest first`} />;
  }
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="card-header">
        <h2 id="history-title">History</h2>
        <span className="hint">
          {history.data ? `${plural(history.data.total, 'change')} · newest first` : null}
        </span>
      </div>
      {body}
    </section>
  );
}
