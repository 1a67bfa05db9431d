import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { isNotFound } from '../api/errors.js';
import {
  type RequestLog,
  type RequestLogFilters,
  requestLogsPage,
  useAuditEntries,
  useRequestLog,
  useRequestLogs,
} from '../api/logs.js';
import { useApiKeys } from '../api/queries.js';
import { EVENT_TYPES } from '../catalog.js';
import { AuditTable } from '../components/AuditHistory.js';
import { useAddressFilters } from '../components/Filters.js';
import { PageHeader } from '../components/Layout.js';
import { ShowOlder, useOlderPages } from '../components/OlderPages.js';
import { Preformatted } from '../components/Preformatted.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { formatLogTime, plural } from '../format.js';
import { usePageTitle } from '../title.js';

const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
const EVENTS: ReadonlySet<string> = new Set(EVENT_TYPES);

/** A logged body, pretty when it is whole JSON, else as kept (cut at 8 KiB). */
function bodyText(body: string | null): string {
  if (body === null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function statusClass(status: number): string {
  return status >= 500 ? 'status-error' : status >= 400 ? 'status-warning' : 'status-ok';
}

/** One request in full: its facts, both bodies, the changes it made and the events they caused. */
function RequestDetails({ request, onClose }: { request: RequestLog; onClose: () => void }) {
  const region = useRef<HTMLElement>(null);
  const audit = useAuditEntries({ request_id: request.id });
  const entries = audit.data?.data ?? [];
  const events = entries.filter((entry) => EVENTS.has(entry.action));

  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    region.current?.focus();
  }, [request.id]);

  let changes;
  if (audit.data === undefined) {
    changes =
      audit.error !== undefined ? (
        <ErrorState error={audit.error} onRetry={audit.reload} />
      ) : (
        <Loading label="Loading its changes" rows={1} />
      );
  } else if (entries.length === 0) {
    changes = <p className="muted">This request changed nothing.</p>;
  } else {
    changes = <AuditTable entries={entries} caption={`Changes made by ${request.id}`} />;
  }

  return (
    <section
      className="card request-details"
      aria-labelledby="request-title"
      ref={region}
      tabIndex={-1}
      data-request-id={request.id}
    >
      <div className="card-header">
        <h2 id="request-title">
          {request.method} {request.path}
        </h2>
        <button type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </div>
      <dl className="facts">
        <dt>Request id</dt>
        <dd className="mono">{request.id}</dd>
        <dt>Status</dt>
        <dd>
          {request.status}
          {request.error_code ? <span className="mono"> {request.error_code}</span> : null}
        </dd>
        <dt>Time</dt>
        <dd>
          {formatLogTime(request.time)} · {request.duration_ms} ms
        </dd>
        <dt>Key</dt>
        <dd>{request.key ? `${request.key.name} (${request.key.type})` : '—'}</dd>
        <dt>Version</dt>
        <dd className="mono">{request.api_version ?? '—'}</dd>
        <dt>Address</dt>
        <dd className="mono">{request.ip ?? '—'}</dd>
        {request.idempotency_key ? (
          <>
            <dt>Idempotency key</dt>
            <dd className="mono">{request.idempotency_key}</dd>
          </>
        ) : null}
      </dl>
      <section className="delivery-section" aria-labelledby="request-body-title">
        <h3 id="request-body-title">Request body</h3>
        <Preformatted label="Request body" text={bodyText(request.request_body)} />
      </section>
      <section className="delivery-section" aria-labelledby="response-body-title">
        <h3 id="response-body-title">Response body</h3>
        <Preformatted label="Response body" text={bodyText(request.response_body)} />
      </section>
      <section className="delivery-section" aria-labelledby="request-changes-title">
        <h3 id="request-changes-title">Audit entries</h3>
        {changes}
      </section>
      <section className="delivery-section" aria-labelledby="request-events-title">
        <h3 id="request-events-title">Events it caused</h3>
        {events.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="request-events">
            {events.map((entry) => (
              <li key={entry.id}>
                <Link to={`/events?type=${encodeURIComponent(entry.action)}`} className="mono">
                  {entry.action}
                </Link>{' '}
                <span className="mono muted">{entry.resource.id}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}

/** The page's filters and the request opened, kept in its address. */
const LOGS_ADDRESS = ['status', 'route', 'key', 'request'] as const;

export function Logs() {
  usePageTitle('Logs');
  const [{ status, route, key: keyId, request: selected }, update] = useAddressFilters(LOGS_ADDRESS);
  const id = useId();
  const filters: RequestLogFilters = {
    ...(status ? { status } : {}),
    ...(route ? { route } : {}),
    ...(keyId ? { key_id: keyId } : {}),
  };
  const query = JSON.stringify(filters);
  const list = useRequestLogs(filters, { refreshMs: 5000 });
  const keys = useApiKeys();
  const [routeDraft, setRouteDraft] = useState(route);
  const pages = useOlderPages(list.data, (cursor) => requestLogsPage(filters, cursor), query);
  const rows = pages.rows;
  const listed = selected ? rows.find((row) => row.id === selected) : undefined;
  const single = useRequestLog(selected && !listed ? selected : null);
  const shown = listed ?? (single.data?.id === selected ? single.data : undefined);

  const filtered = status !== '' || route !== '' || keyId !== '';
  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="The request log could not be loaded" />
      ) : (
        <Loading label="Loading requests" />
      );
  } else if (rows.length === 0) {
    body = (
      <Empty title={filtered ? 'No requests match' : 'No requests yet'}>
        {filtered
          ? 'Change the filters to see more.'
          : 'Every call to the API with one of your keys appears here within seconds, kept 30 days.'}
      </Empty>
    );
  } else {
    body = (
      <>
        <div className="table-wrap">
          <table className="table request-list">
            <caption className="visually-hidden">API requests, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Key</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr
                  key={row.id}
                  className="row-link request-row"
                  data-request-id={row.id}
                  aria-selected={row.id === selected}
                  onClick={(e) => {
                    if (!(e.target as Element).closest('button, a')) update({ request: row.id });
                  }}
                >
                  <td data-label="Time" className="mono nowrap">
                    <time dateTime={row.time}>{formatLogTime(row.time)}</time>
                  </td>
                  <td data-label="Request" className="mono break-anywhere">
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`${row.method} ${row.path} ${row.status}: bodies and changes`}
                      onClick={() => update({ request: row.id })}
                    >
                      {row.method} {row.path}
                    </button>
                  </td>
                  <td data-label="Status" className={`mono ${statusClass(row.status)}`}>
                    {row.status}
                    {row.error_code ? ` ${row.error_code}` : ''}
                  </td>
                  <td data-label="Duration" className="mono nowrap">
                    {row.duration_ms} ms
                  </td>
                  <td data-label="Key">{row.key?.name ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ShowOlder pages={pages} label="Show older requests" />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="Logs"
        description="Every API call of the last 30 days with its answer (secrets redacted), and the changes each made."
      />
      <section className="card" aria-labelledby="logs-title">
        <div className="card-header">
          <h2 id="logs-title">Requests</h2>
          <span className="hint">
            {list.data ? `${plural(list.data.total, 'request')} · newest first` : null}
          </span>
        </div>
        <div className="event-filters" role="search" aria-label="Filter requests">
          <div className="field">
            <label htmlFor={`${id}-status`}>Status</label>
            <select
              id={`${id}-status`}
              value={status}
              onChange={(e) => update({ status: e.target.value, request: '' })}
            >
              <option value="">Any status</option>
              {STATUS_CLASSES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <form
            className="field"
            onSubmit={(e) => {
              e.preventDefault();
              update({ route: routeDraft.trim(), request: '' });
            }}
          >
            <label htmlFor={`${id}-route`}>Route</label>
            <input
              id={`${id}-route`}
              type="search"
              placeholder="/v1/products/:id"
              value={routeDraft}
              onChange={(e) => setRouteDraft(e.target.value)}
              onBlur={() => update({ route: routeDraft.trim(), request: '' })}
            />
          </form>
          <div className="field">
            <label htmlFor={`${id}-key`}>Key</label>
            <select
              id={`${id}-key`}
              value={keyId}
              onChange={(e) => update({ key: e.target.value, request: '' })}
            >
              <option value="">Any key</option>
              <option value="console">Developer console</option>
              {(keys.data?.data ?? []).map((key) => (
                <option key={key.id} value={key.id}>
                  {key.name}
                </option>
              ))}
            </select>
          </div>
          {filtered ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                setRouteDraft('');
                update({ status: '', route: '', key: '', request: '' });
              }}
            >
              Clear filters
            </button>
          ) : null}
        </div>
        {body}
      </section>
      {shown ? (
        <RequestDetails key={shown.id} request={shown} onClose={() => update({ request: '' })} />
      ) : selected && single.error !== undefined ? (
        <ErrorState
          error={single.error}
          title={
            isNotFound(single.error)
              ? 'There is no such request (it may be past the 30 days kept)'
              : 'The request could not be loaded'
          }
        />
      ) : null}
    </>
  );
}
