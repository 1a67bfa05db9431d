import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { EVENT_TYPES } from '../../../src/modules/events/events.types.js';
import { api, describeError } from '../api.js';
import { Chips, StatusBadge } from '../components/Badge.js';
import { CopyField } from '../components/CopyField.js';
import { Dialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { Async, Empty } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDateTime, timeAgo } from '../format.js';
import { useNow, useResource } from '../hooks.js';
import { usePageTitle } from '../title.js';
import type { Page, Webhook } from '../types.js';

/** Event types a subscriber can pick (`webhook.test` goes only to the endpoint being tested). */
export const SUBSCRIBABLE = EVENT_TYPES.filter((type) => type !== 'webhook.test');

function groupEvents(): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const type of SUBSCRIBABLE) {
    const resource = type.split('.')[0] ?? type;
    groups.set(resource, [...(groups.get(resource) ?? []), type]);
  }
  return [...groups];
}

export function eventsLabel(events: readonly string[]): string[] {
  return events.includes('*') ? ['All events'] : [...events];
}

function CreateWebhookDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(false);
  const [events, setEvents] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<Webhook>();
  const navigate = useNavigate();
  const urlId = useId();
  const descriptionId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!all && events.size === 0) {
      setError('Choose at least one event, or all events.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const webhook = await api.post<Webhook>('/webhooks', {
        url: url.trim(),
        events: all ? ['*'] : SUBSCRIBABLE.filter((type) => events.has(type)),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setCreated(webhook);
      onCreated();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  if (created) {
    return (
      <Dialog
        title="Endpoint added"
        onClose={onClose}
        description="Use this secret to verify the webhook-signature header of every delivery. It is shown only once."
      >
        <CopyField
          label="Signing secret"
          value={created.secret ?? ''}
          hint="Any Standard Webhooks library verifies the signature with it."
        />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
          <button
            type="button"
            className="button button-primary"
            onClick={() => navigate(`/webhooks/${created.id}`)}
          >
            View endpoint
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Add webhook endpoint" onClose={onClose} size="wide">
      <form onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor={urlId}>Endpoint URL</label>
          <input
            id={urlId}
            type="url"
            required
            maxLength={2048}
            placeholder="https://example.com/webhooks/commerce"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            autoFocus
          />
        </div>
        <div className="field">
          <label htmlFor={descriptionId}>Description</label>
          <input
            id={descriptionId}
            maxLength={500}
            placeholder="Optional"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </div>
        <fieldset className="fieldset">
          <legend>Events to send</legend>
          <label className="check check-strong">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            <span>All events, including types added later</span>
          </label>
          <div className="permission-groups">
            {groupEvents().map(([resource, types]) => (
              <div key={resource} className="permission-group">
                <span className="permission-area">{resource}</span>
                {types.map((type) => (
                  <label key={type} className="check">
                    <input
                      type="checkbox"
                      disabled={all}
                      checked={all || events.has(type)}
                      onChange={(e) =>
                        setEvents((current) => {
                          const next = new Set(current);
                          if (e.target.checked) next.add(type);
                          else next.delete(type);
                          return next;
                        })
                      }
                    />
                    <span className="mono">{type}</span>
                  </label>
                ))}
              </div>
            ))}
          </div>
        </fieldset>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function Webhooks() {
  usePageTitle('Webhooks');
  const webhooks = useResource<Page<Webhook>>('/webhooks?limit=100', { refreshMs: 5000 });
  const now = useNow();
  const toast = useToast();
  const [creating, setCreating] = useState(false);

  const addButton = (
    <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
      Add endpoint
    </button>
  );

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints receive signed POSTs when orders, payments and products change."
        actions={addButton}
      />
      <Async resource={webhooks} loadingLabel="Loading webhooks">
        {({ data }) =>
          data.length === 0 ? (
            <Empty title="No webhook endpoints" action={addButton}>
              Add an endpoint to hear about orders, payments and products as they happen.
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Webhook endpoints</caption>
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">Last triggered</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((webhook) => (
                    <tr key={webhook.id} data-webhook-id={webhook.id}>
                      <th scope="row" data-label="URL" className="url-cell">
                        <div>
                          <Link to={`/webhooks/${webhook.id}`} className="mono">
                            {webhook.url}
                          </Link>
                          {webhook.description ? <div className="hint">{webhook.description}</div> : null}
                        </div>
                      </th>
                      <td data-label="Events">
                        <Chips items={eventsLabel(webhook.events)} max={3} />
                      </td>
                      <td data-label="Last triggered" className="nowrap">
                        {webhook.last_triggered ? (
                          <time
                            dateTime={webhook.last_triggered}
                            title={formatDateTime(webhook.last_triggered)}
                          >
                            {timeAgo(webhook.last_triggered, now)}
                          </time>
                        ) : (
                          <span className="muted">Never</span>
                        )}
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={webhook.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
      {creating ? (
        <CreateWebhookDialog
          onClose={() => setCreating(false)}
          onCreated={() => {
            toast('Webhook endpoint added.');
            webhooks.reload();
          }}
        />
      ) : null}
    </>
  );
}
