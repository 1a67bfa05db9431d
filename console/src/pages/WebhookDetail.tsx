import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { describeFailure, isNotFound } from '../api/errors.js';
import { useDeleteWebhook, useRotateSecret, useSendTestEvent, useUpdateWebhook } from '../api/mutations.js';
import { deliveriesPage, useEvent, useWebhook, useWebhookDeliveries } from '../api/queries.js';
import { Chips, ResponseLabel, StatusBadge } from '../components/Badge.js';
import { DeliveryTable, nextRetries, useDeliveryRetry } from '../components/DeliveryTable.js';
import { ConfirmDialog, Dialog, SecretDialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { Preformatted } from '../components/Preformatted.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { ShowOlder, useOlderPages } from '../components/OlderPages.js';
import { useToast } from '../components/Toast.js';
import {
  formatBody,
  formatDateTime,
  formatInstant,
  formatNumber,
  humanize,
  plural,
  timeAgo,
} from '../format.js';
import { useNow } from '../timing.js';
import { usePageTitle } from '../title.js';
import type { Delivery, Webhook } from '../types.js';
import { EditWebhookDialog, eventsLabel } from './Webhooks.js';

function ResponseBody({ delivery }: { delivery: Delivery }) {
  if (delivery.response_body === null) {
    return (
      <p className="muted">
        {delivery.status === 'pending'
          ? 'Not sent yet.'
          : 'No response body: the endpoint did not answer, or answered without one.'}
      </p>
    );
  }
  if (delivery.response_body === '') return <p className="muted">The response body was empty.</p>;
  return <Preformatted label="Response body" text={formatBody(delivery.response_body)} />;
}

/** The event a delivery sent, as the endpoint received it: rendered in the endpoint's version. */
function EventPayload({ delivery, webhook }: { delivery: Delivery; webhook: Webhook }) {
  const event = useEvent(delivery.event_id, webhook.api_version);
  if (event.data !== undefined) {
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
  return <Loading label="Loading the event" rows={2} />;
}

/** One attempt in full: its outcome, what the endpoint answered and the event it was sent. */
export function DeliveryDialog({
  delivery,
  webhook,
  nextRetry,
  onClose,
}: {
  delivery: Delivery;
  webhook: Webhook;
  nextRetry: string | undefined;
  onClose: () => void;
}) {
  const pending = delivery.status === 'pending';
  return (
    <Dialog
      title={`${delivery.event} · attempt ${delivery.attempt}`}
      description={<span className="mono">{delivery.url}</span>}
      size="wide"
      onClose={onClose}
    >
      <dl className="details-grid delivery-details">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={delivery.status} label={humanize(delivery.status)} />
          </dd>
        </div>
        <div>
          <dt>Response</dt>
          <dd>
            <ResponseLabel response={delivery.response} status={delivery.response_status} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{delivery.duration === null ? '—' : `${formatNumber(delivery.duration)} ms`}</dd>
        </div>
        <div>
          <dt>Attempt</dt>
          <dd>{delivery.attempt}</dd>
        </div>
        <div>
          <dt>Sent</dt>
          <dd>{delivery.time ? formatInstant(delivery.time) : 'Not yet'}</dd>
        </div>
        <div>
          <dt>{pending ? 'Due' : 'Next retry'}</dt>
          <dd>
            {pending
              ? delivery.next_retry_at
                ? formatInstant(delivery.next_retry_at)
                : '—'
              : nextRetry
                ? formatInstant(nextRetry)
                : 'None'}
          </dd>
        </div>
        <div className="details-span">
          <dt>Event</dt>
          <dd className="mono">{delivery.event_id}</dd>
        </div>
      </dl>
      <section className="delivery-section">
        <div className="card-header">
          <h3>Response body</h3>
          <span className="hint">The first 1 KiB is kept</span>
        </div>
        <ResponseBody delivery={delivery} />
      </section>
      <section className="delivery-section">
        <div className="card-header">
          <h3>Event payload</h3>
          <span className="hint">Payload version {webhook.api_version}</span>
        </div>
        <EventPayload delivery={delivery} webhook={webhook} />
      </section>
    </Dialog>
  );
}

/**
 * The latest attempts, refreshed every 2 seconds, and older ones a page at a time (with the
 * previous page's `next_cursor`) on request: as many as there are, not only the latest 100.
 */
function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const log = useWebhookDeliveries(webhook.id, { refreshMs: 2000 });
  const pages = useOlderPages(log.data, (cursor) => deliveriesPage(webhook.id, cursor));
  /** The attempt whose details are open, as last listed (it may have moved past the page since). */
  const [opened, setOpened] = useState<Delivery>();
  const deliveries = pages.rows;
  const retries = nextRetries(deliveries);

  const { retrying, retry } = useDeliveryRetry();

  let body;
  if (log.data === undefined) {
    body =
      log.error !== undefined ? (
        <ErrorState error={log.error} onRetry={log.reload} />
      ) : (
        <Loading label="Loading deliveries" />
      );
  } else if (deliveries.length === 0) {
    body = (
      <Empty title="No deliveries yet">
        Deliveries appear here as events happen. Send a test event to try the endpoint now.
      </Empty>
    );
  } else {
    body = (
      <>
        <DeliveryTable
          deliveries={deliveries}
          caption="Delivery log, newest first"
          retries={retries}
          retrying={retrying}
          canRetry={() => webhook.status !== 'Disabled'}
          onOpen={setOpened}
          onRetry={(delivery) => void retry(webhook.id, delivery, delivery.event)}
        />
        <ShowOlder pages={pages} label="Show older attempts" />
      </>
    );
  }

  return (
    <section className="card" aria-labelledby="log-title">
      <div className="card-header">
        <h2 id="log-title">Delivery log</h2>
        <span className="hint">
          {log.data ? `${plural(log.data.total, 'attempt')} · refreshes automatically` : null}
        </span>
      </div>
      {body}
      {opened ? (
        <DeliveryDialog
          delivery={deliveries.find((d) => d.id === opened.id) ?? opened}
          webhook={webhook}
          nextRetry={retries.get(opened.id)}
          onClose={() => setOpened(undefined)}
        />
      ) : null}
    </section>
  );
}

export function WebhookDetail() {
  const { id = '' } = useParams();
  // Status and last triggered move with the deliveries: refreshed as often as the log.
  const webhook = useWebhook(id, { refreshMs: 2000 });
  const missing = isNotFound(webhook.error);
  usePageTitle(
    webhook.data ? `Webhook ${new URL(webhook.data.url).host}` : missing ? 'Webhook not found' : 'Webhook',
  );
  const toast = useToast();
  const navigate = useNavigate();
  const now = useNow();
  const [dialog, setDialog] = useState<'edit' | 'rotate' | 'delete' | 'disable' | null>(null);
  const [secret, setSecret] = useState<string>();
  const sendTest = useSendTestEvent();
  const update = useUpdateWebhook();
  const rotate = useRotateSecret();
  const remove = useDeleteWebhook();
  const busy = sendTest.isPending || update.isPending || rotate.isPending || remove.isPending;
  /** A failure also said in a toast: the buttons outside the dialogs have nowhere else to say it. */
  const toastFailure = (failure: unknown) => toast(describeFailure(failure), 'error');

  function open(which: typeof dialog) {
    update.reset();
    rotate.reset();
    remove.reset();
    setDialog(which);
  }

  if (webhook.data === undefined) {
    if (missing) {
      return (
        <>
          <PageHeader title="Webhook not found" />
          <Empty title="There is no such endpoint" action={<Link to="/webhooks">Back to webhooks</Link>}>
            It may have been deleted.
          </Empty>
        </>
      );
    }
    return webhook.error !== undefined ? (
      <ErrorState error={webhook.error} onRetry={webhook.reload} />
    ) : (
      <Loading label="Loading webhook" />
    );
  }
  const data = webhook.data;
  const disabled = data.status === 'Disabled';

  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/webhooks">Webhooks</Link> <span aria-hidden="true">/</span> <span>Endpoint</span>
      </nav>
      <PageHeader
        title={data.url}
        description={data.description ?? undefined}
        actions={
          <>
            <button
              type="button"
              className="button button-primary"
              disabled={busy || disabled}
              onClick={() =>
                sendTest.mutate(data.id, {
                  onSuccess: () => toast('Test event sent.'),
                  onError: toastFailure,
                })
              }
            >
              Send test event
            </button>
            <button type="button" className="button" onClick={() => open('edit')} aria-haspopup="dialog">
              Edit
            </button>
            <button type="button" className="button" onClick={() => open('rotate')}>
              Rotate secret
            </button>
            {disabled ? (
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() =>
                  update.mutate(
                    { id: data.id, body: { enabled: true } },
                    { onSuccess: () => toast('Endpoint enabled.'), onError: toastFailure },
                  )
                }
              >
                Enable
              </button>
            ) : (
              <button type="button" className="button" onClick={() => open('disable')}>
                Disable
              </button>
            )}
            <button type="button" className="button button-danger-ghost" onClick={() => open('delete')}>
              Delete
            </button>
          </>
        }
      />
      <section className="card details" aria-label="Endpoint details">
        <dl className="details-grid">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={data.status} />
            </dd>
          </div>
          <div>
            <dt>Last triggered</dt>
            <dd>
              {data.last_triggered ? (
                <time dateTime={data.last_triggered}>{timeAgo(data.last_triggered, now)}</time>
              ) : (
                'Never'
              )}
            </dd>
          </div>
          <div>
            <dt>Payload version</dt>
            <dd className="mono">{data.api_version}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDateTime(data.created)}</dd>
          </div>
          <div className="details-wide">
            <dt>Events</dt>
            <dd>
              <Chips items={eventsLabel(data.events)} />
            </dd>
          </div>
        </dl>
        {data.status === 'Degraded' ? (
          <p className="banner banner-warning banner-inline">
            The last delivery failed; failed deliveries are retried on a schedule. A success makes the
            endpoint Active again.
          </p>
        ) : null}
        {disabled ? (
          <p className="banner banner-neutral banner-inline">
            Disabled: no deliveries are sent until you enable it again.
          </p>
        ) : null}
      </section>
      <DeliveryLog webhook={data} />

      {dialog === 'edit' ? (
        <EditWebhookDialog
          webhook={data}
          onClose={() => setDialog(null)}
          onSaved={() => toast('Endpoint updated.')}
        />
      ) : null}
      {dialog === 'rotate' && secret === undefined ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          tone="primary"
          confirmLabel="Rotate secret"
          busy={rotate.isPending}
          error={rotate.error}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            rotate.mutate(data.id, {
              onSuccess: (rotated: Webhook) => setSecret(rotated.secret),
              onError: toastFailure,
            })
          }
          message={
            <p>
              Deliveries are signed with both the old and the new secret for 24 hours, so you can update your
              receiver without missing any.
            </p>
          }
        />
      ) : null}
      {dialog === 'rotate' && secret !== undefined ? (
        <SecretDialog
          title="New signing secret"
          description="Copy it now: it is shown only once. The old secret keeps working for 24 hours."
          label="Signing secret"
          value={secret}
          onClose={() => {
            setDialog(null);
            setSecret(undefined);
          }}
        />
      ) : null}
      {dialog === 'disable' ? (
        <ConfirmDialog
          title="Disable this endpoint?"
          confirmLabel="Disable endpoint"
          busy={update.isPending}
          error={update.error}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            update.mutate(
              { id: data.id, body: { enabled: false } },
              {
                onSuccess: () => {
                  toast('Endpoint disabled.');
                  setDialog(null);
                },
                onError: toastFailure,
              },
            )
          }
          message={
            <p>No events are delivered to it while it is disabled. You can enable it again at any time.</p>
          }
        />
      ) : null}
      {dialog === 'delete' ? (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          busy={remove.isPending}
          error={remove.error}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            remove.mutate(data.id, {
              onSuccess: () => {
                toast('Endpoint deleted.');
                navigate('/webhooks', { replace: true });
              },
              onError: toastFailure,
            })
          }
          message={
            <p>{data.url} stops receiving events and its delivery log is deleted. This cannot be undone.</p>
          }
        />
      ) : null}
    </>
  );
}
