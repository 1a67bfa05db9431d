import type { ReactNode } from 'react';
import { describeFailure } from '../api/errors.js';
import { useRetryDelivery } from '../api/mutations.js';
import { formatLogTime, formatNumber } from '../format.js';
import type { Delivery } from '../types.js';
import { ResponseLabel } from './Badge.js';
import { useToast } from './Toast.js';

/**
 * When each failed attempt is retried next, by attempt id: only for the latest attempt made of an
 * event to an endpoint (`series` names that pair), and only while it has an attempt queued (an
 * attempt's own next_retry_at stays after its retry ran, or after a manual retry moved it up).
 */
export function nextRetries<D extends Delivery>(
  deliveries: readonly D[],
  series: (delivery: D) => string = (delivery) => delivery.event_id,
): Map<string, string> {
  const queued = new Map<string, string>();
  const latest = new Map<string, D>();
  for (const delivery of deliveries) {
    const key = series(delivery);
    if (delivery.status === 'pending') {
      if (delivery.next_retry_at) queued.set(key, delivery.next_retry_at);
    } else if ((latest.get(key)?.attempt ?? 0) < delivery.attempt) {
      latest.set(key, delivery);
    }
  }
  const retries = new Map<string, string>();
  for (const [key, delivery] of latest) {
    const due = queued.get(key);
    if (delivery.status === 'failed' && due) retries.set(delivery.id, due);
  }
  return retries;
}

/** When an attempt was made, or for a queued one when it is due: what the log is ordered by. */
function AttemptTime({ delivery }: { delivery: Delivery }) {
  if (delivery.time) return <time dateTime={delivery.time}>{formatLogTime(delivery.time)}</time>;
  return (
    <span className="muted">
      Queued
      {delivery.next_retry_at ? (
        <>
          {' · due '}
          <time dateTime={delivery.next_retry_at}>{formatLogTime(delivery.next_retry_at)}</time>
        </>
      ) : null}
    </span>
  );
}

/**
 * Attempts as a table, newest first (as the API lists them): time, event, endpoint, response,
 * duration, attempt and a Retry button. On a phone each attempt is one compact block of two lines:
 * the event and its response, then the time, duration, attempt and Retry.
 */
export function DeliveryTable<D extends Delivery>({
  deliveries,
  caption,
  endpointOf = (delivery) => delivery.endpoint,
  severalEndpoints = false,
  retries,
  retrying,
  canRetry,
  onOpen,
  onRetry,
}: {
  deliveries: readonly D[];
  caption: string;
  /** What the Endpoint column shows of an attempt (by default its URL's path). */
  endpointOf?: (delivery: D) => ReactNode;
  /** The attempts went to several endpoints: a phone shows each one's endpoint too. */
  severalEndpoints?: boolean;
  retries: Map<string, string>;
  /** The attempt whose retry is being sent. */
  retrying: string | undefined;
  canRetry: (delivery: D) => boolean;
  onOpen: (delivery: D) => void;
  onRetry: (delivery: D) => void;
}) {
  return (
    <div className="table-wrap">
      <table className={`table table-log${severalEndpoints ? ' table-log-endpoints' : ''}`}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Response</th>
            <th scope="col">Duration</th>
            <th scope="col">Attempt</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => {
            const nextRetry = retries.get(delivery.id);
            return (
              <tr
                key={delivery.id}
                data-delivery-id={delivery.id}
                data-status={delivery.status}
                className="row-link"
                // The whole row opens the details for a pointer; the event's button, for the keyboard.
                onClick={(event) => {
                  if (!(event.target as Element).closest('button, a')) onOpen(delivery);
                }}
              >
                <td data-label="Time" className="log-time mono nowrap">
                  <AttemptTime delivery={delivery} />
                </td>
                <td data-label="Event" className="log-event mono">
                  <button
                    type="button"
                    className="link-button"
                    aria-haspopup="dialog"
                    aria-label={`${delivery.event}, attempt ${delivery.attempt}: details`}
                    onClick={() => onOpen(delivery)}
                  >
                    {delivery.event}
                  </button>
                </td>
                <td data-label="Endpoint" className="log-endpoint mono break-anywhere">
                  {endpointOf(delivery)}
                </td>
                <td data-label="Response" className="log-response">
                  <ResponseLabel response={delivery.response} status={delivery.response_status} />
                  {nextRetry ? (
                    <div className="hint">
                      Next retry <time dateTime={nextRetry}>{formatLogTime(nextRetry)}</time>
                    </div>
                  ) : null}
                </td>
                <td data-label="Duration" className="log-duration nowrap numeric">
                  {delivery.duration === null ? '—' : `${formatNumber(delivery.duration)} ms`}
                </td>
                <td data-label="Attempt" className="log-attempt numeric">
                  <span className="phone-only">Attempt </span>
                  {delivery.attempt}
                </td>
                <td className="log-actions row-actions">
                  {delivery.status !== 'pending' ? (
                    <button
                      type="button"
                      className="button button-small"
                      disabled={retrying === delivery.id || !canRetry(delivery)}
                      onClick={() => onRetry(delivery)}
                      aria-label={`Retry ${delivery.event} sent ${delivery.time ? formatLogTime(delivery.time) : 'at an unknown time'}`}
                    >
                      Retry
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Retry of a delivery from a log: sends it to its endpoint again, says so, and the log loads again
 * (the mutation invalidates it). `retrying` is the delivery being retried (its button waits).
 */
export function useDeliveryRetry() {
  const toast = useToast();
  const retryDelivery = useRetryDelivery();
  const retrying = retryDelivery.isPending ? retryDelivery.variables.delivery.id : undefined;
  function retry(webhookId: string, delivery: Delivery, what: string) {
    retryDelivery.mutate(
      { webhookId, delivery },
      {
        onSuccess: () => toast(`Retrying ${what}.`),
        onError: (failure) => toast(describeFailure(failure), 'error'),
      },
    );
  }
  return { retrying, retry };
}
