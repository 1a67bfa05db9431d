import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { isNotFound } from '../api/errors.js';
import {
  type EventFilters,
  eventsPage,
  useEvent,
  useEventDeliveries,
  useEvents,
  useWebhooks,
} from '../api/queries.js';
import { EVENT_TYPES } from '../catalog.js';
import { DeliveryTable, nextRetries, useDeliveryRetry } from '../components/DeliveryTable.js';
import { useAddressFilters } from '../components/Filters.js';
import { PageHeader } from '../components/Layout.js';
import { ShowOlder, useOlderPages } from '../components/OlderPages.js';
import { Preformatted } from '../components/Preformatted.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { formatLogTime, plural } from '../format.js';
import { useAccount } from '../session.js';
import { usePageTitle } from '../title.js';
import type { EventDelivery, Webhook, WebhookEvent } from '../types.js';
import { DeliveryDialog } from './WebhookDetail.js';

/** A local calendar day ("2026-11-21") as the instant it starts, or ends (`end`), in ISO form. */
function dayBound(day: string, end: boolean): string {
  return new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString();
}

/** The list's filters, from the page's address. */
function eventFilters(type: string, from: string, to: string): EventFilters {
  return {
    ...(type ? { type } : {}),
    ...(from ? { created_from: dayBound(from, false) } : {}),
    ...(to ? { created_to: dayBound(to, true) } : {}),
  };
}

/** The id of what an event is about (`data.object.id`), when it has one. */
function objectId(event: WebhookEvent): string | undefined {
  const id = event.data.object.id;
  return typeof id === 'string' ? id : undefined;
}

/** The event's payload as an endpoint in `version` was sent it. */
function Payload({ eventId, version }: { eventId: string; version: string }) {
  const event = useEvent(eventId, version);
  if (event.data !== undefined && event.data.api_version === version) {
    return <Preformatted label="Event payload" text={JSON.stringify(event.data, null, 2)} />;
  }
  if (isNotFound(event.error)) {
    return (
      <p className="muted">This event is no longer kept: events are deleted after the retention period.</p>
    );
  }
  if (event.error !== undefined) {
    return <ErrorState error={event.error} onRetry={event.reload} title="The event could not be loaded" />;
  }
  return <Loading label="Loading the payload" rows={2} />;
}

/** One event in full: its payload as delivered, and its deliveries to every endpoint, with retry. */
function EventDetails({
  event,
  endpoints,
  onClose,
}: {
  event: WebhookEvent;
  endpoints: Map<string, Webhook>;
  onClose: () => void;
}) {
  const account = useAccount();
  const versionId = useId();
  const region = useRef<HTMLElement>(null);
  const log = useEventDeliveries(event.id, { refreshMs: 2000 });
  const [opened, setOpened] = useState<EventDelivery>();
  const [chosen, setChosen] = useState<string>();
  const deliveries = log.data?.data ?? [];
  // The versions its endpoints were sent it in (each endpoint's own), else the store's pinned one.
  const versions = [
    ...new Set(
      deliveries.flatMap((delivery) => {
        const version = endpoints.get(delivery.webhook_id)?.api_version;
        return version ? [version] : [];
      }),
    ),
  ].sort();
  const version = chosen && versions.includes(chosen) ? chosen : (versions[0] ?? account.tenant.api_version);
  const retries = nextRetries(deliveries, (delivery) => delivery.webhook_id);

  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    region.current?.focus();
  }, [event.id]);

  const { retrying, retry } = useDeliveryRetry();

  let deliveryBody;
  if (log.data === undefined) {
    deliveryBody =
      log.error !== undefined ? (
        <ErrorState error={log.error} onRetry={log.reload} />
      ) : (
        <Loading label="Loading deliveries" rows={2} />
      );
  } else if (deliveries.length === 0) {
    deliveryBody = (
      <Empty title="Not sent to any endpoint">
        No endpoint was subscribed to {event.type} when it happened.{' '}
        <Link to="/webhooks">Add an endpoint</Link> to receive events like it.
      </Empty>
    );
  } else {
    deliveryBody = (
      <DeliveryTable
        deliveries={deliveries}
        caption={`Deliveries of ${event.id}, newest first`}
        severalEndpoints
        endpointOf={(delivery) => {
          const endpoint = endpoints.get(delivery.webhook_id);
          return endpoint ? <Link to={`/webhooks/${endpoint.id}`}>{delivery.url}</Link> : delivery.url;
        }}
        retries={retries}
        retrying={retrying}
        canRetry={(delivery) => endpoints.get(delivery.webhook_id)?.status !== 'Disabled'}
        onOpen={setOpened}
        onRetry={(delivery) =>
          void retry(delivery.webhook_id, delivery, `${delivery.event} to ${delivery.url}`)
        }
      />
    );
  }
  const openedEndpoint = opened ? endpoints.get(opened.webhook_id) : undefined;

  return (
    <section
      className="card event-details"
      aria-labelledby="event-title"
      ref={region}
      tabIndex={-1}
      data-event-id={event.id}
    >
      <div className="card-header">
        <h2 id="event-title">
          {event.type} <span className="muted mono">{event.id}</span>
        </h2>
        <button type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="hint">
        Happened {formatLogTime(event.created)}
        {objectId(event) ? (
          <>
            {' · '}
            <span className="mono">{objectId(event)}</span>
          </>
        ) : null}
      </p>
      <section className="delivery-section" aria-labelledby="event-deliveries">
        <div className="card-header">
          <h3 id="event-deliveries">Deliveries</h3>
          <span className="hint">
            {log.data
              ? `${plural(log.data.total, 'attempt')} to every endpoint · refreshes automatically`
              : null}
          </span>
        </div>
        {deliveryBody}
      </section>
      <section className="delivery-section" aria-labelledby="event-payload">
        <div className="card-header">
          <h3 id="event-payload">Payload as delivered</h3>
          {versions.length > 1 ? (
            <div className="field field-inline">
              <label htmlFor={versionId}>Version</label>
              <select id={versionId} value={version} onChange={(e) => setChosen(e.target.value)}>
                {versions.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <span className="hint">
              {versions.length === 1
                ? `Payload version ${version}`
                : `Not delivered: shown in your pinned version ${version}`}
            </span>
          )}
        </div>
        <Payload eventId={event.id} version={version} />
      </section>
      {opened && openedEndpoint ? (
        <DeliveryDialog
          delivery={deliveries.find((d) => d.id === opened.id) ?? opened}
          webhook={openedEndpoint}
          nextRetry={retries.get(opened.id)}
          onClose={() => setOpened(undefined)}
        />
      ) : null}
    </section>
  );
}

/** The page's filters and the event opened, kept in its address. */
const EVENTS_ADDRESS = ['type', 'from', 'to', 'event'] as const;

export function Events() {
  usePageTitle('Events');
  const [{ type, from, to, event: selected }, update] = useAddressFilters(EVENTS_ADDRESS);
  const typeId = useId();
  const filters = eventFilters(type, from, to);
  const query = JSON.stringify(filters);
  const list = useEvents(filters, { refreshMs: 5000 });
  const endpoints = useWebhooks({ refreshMs: 5000 });
  const byId = new Map((endpoints.data?.data ?? []).map((endpoint) => [endpoint.id, endpoint]));
  const pages = useOlderPages(list.data, (cursor) => eventsPage(filters, cursor), query);
  const events = pages.rows;
  // The selected event, as listed; one opened by its address and not in the list is read on its own.
  const listed = selected ? events.find((event) => event.id === selected) : undefined;
  const single = useEvent(selected && !listed ? selected : null);
  const shown = listed ?? (single.data?.id === selected ? single.data : undefined);

  const invalidRange = from !== '' && to !== '' && from > to;
  let body;
  if (invalidRange) {
    body = (
      <p className="form-error" role="alert">
        The “From” day must not be after the “To” day.
      </p>
    );
  } else if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="Events could not be loaded" />
      ) : (
        <Loading label="Loading events" />
      );
  } else if (events.length === 0) {
    body = (
      <Empty title={type || from || to ? 'No events match' : 'No events yet'}>
        {type || from || to
          ? 'Change the filters to see more.'
          : 'Orders, payments, products and more create events as they happen.'}
      </Empty>
    );
  } else {
    body = (
      <>
        <div className="table-wrap">
          <table className="table event-list">
            <caption className="visually-hidden">Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Object</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr
                  key={event.id}
                  className="row-link event-row"
                  data-event-id={event.id}
                  aria-selected={event.id === selected}
                  onClick={(e) => {
                    if (!(e.target as Element).closest('button, a')) update({ event: event.id });
                  }}
                >
                  <td data-label="Time" className="mono nowrap">
                    <time dateTime={event.created}>{formatLogTime(event.created)}</time>
                  </td>
                  <td data-label="Event" className="mono">
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`${event.type} ${event.id}: payload and deliveries`}
                      onClick={() => update({ event: event.id })}
                    >
                      {event.type}
                    </button>
                  </td>
                  <td data-label="Object" className="mono break-anywhere">
                    {objectId(event) ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ShowOlder pages={pages} label="Show older events" />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="Events"
        description="Everything that happened in your store, each with its payload and its deliveries to your webhook endpoints."
      />
      <section className="card" aria-labelledby="events-title">
        <div className="card-header">
          <h2 id="events-title">Event log</h2>
          <span className="hint">
            {list.data && !invalidRange ? `${plural(list.data.total, 'event')} · newest first` : null}
          </span>
        </div>
        <div className="event-filters" role="search" aria-label="Filter events">
          <div className="field">
            <label htmlFor={typeId}>Type</label>
            <select id={typeId} value={type} onChange={(e) => update({ type: e.target.value, event: '' })}>
              <option value="">All types</option>
              {EVENT_TYPES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${typeId}-from`}>From</label>
            <input
              id={`${typeId}-from`}
              type="date"
              value={from}
              max={to || undefined}
              onChange={(e) => update({ from: e.target.value, event: '' })}
            />
          </div>
          <div className="field">
            <label htmlFor={`${typeId}-to`}>To</label>
            <input
              id={`${typeId}-to`}
              type="date"
              value={to}
              min={from || undefined}
              onChange={(e) => update({ to: e.target.value, event: '' })}
            />
          </div>
          {type || from || to ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => update({ type: '', from: '', to: '', event: '' })}
            >
              Clear filters
            </button>
          ) : null}
        </div>
        {body}
      </section>
      {shown ? (
        <EventDetails key={shown.id} event={shown} endpoints={byId} onClose={() => update({ event: '' })} />
      ) : selected && single.error !== undefined ? (
        <ErrorState
          error={single.error}
          title={
            isNotFound(single.error)
              ? 'There is no such event (it may be past the retention period)'
              : 'The event could not be loaded'
          }
        />
      ) : null}
    </>
  );
}
