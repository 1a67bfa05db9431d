import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { EVENT_TYPES } from '../../../src/modules/events/events.types.js';
import { api } from '../api.js';
import { Chips, StatusBadge } from '../components/Badge.js';
import { CopyField } from '../components/CopyField.js';
import { Dialog, FormDialog } from '../components/Dialog.js';
import { CheckboxGroups, Field } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { Async, Empty } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDateTime, timeAgo } from '../format.js';
import { useAction, useNow, useResource } from '../hooks.js';
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
  const { busy, error, setError, run } = useAction();
  const [created, setCreated] = useState<Webhook>();
  const navigate = useNavigate();

  function submit() {
    if (!all && events.size === 0) {
      setError('Choose at least one event, or all events.');
      return;
    }
    void run(async () => {
      const webhook = await api.post<Webhook>('/webhooks', {
        url: url.trim(),
        events: all ? ['*'] : SUBSCRIBABLE.filter((type) => events.has(type)),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setCreated(webhook);
      onCreated();
    });
  }

  if (created) {
    return (
      <Dialog
        title="Endpoint added"
        onClose={onClose}
        dismissible={false}
        description="Use this secret to verify the webhook-signature header of every delivery. It is shown only once."
      >
        <CopyField
          label="Signing secret"
          value={created.secret ?? ''}
          hint="Any Standard Webhooks library verifies the signature with it."
        />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Done
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
    <FormDialog
      title="Add webhook endpoint"
      size="wide"
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Add endpoint"
      busyLabel="Adding…"
      busy={busy}
      error={error}
    >
      <Field
        label="Endpoint URL"
        type="url"
        required
        maxLength={2048}
        placeholder="https://example.com/webhooks/commerce"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        autoFocus
      />
      <Field
        label="Description"
        maxLength={500}
        placeholder="Optional"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <fieldset className="fieldset">
        <legend>Events to send</legend>
        <label className="check check-strong">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
          <span>All events, including types added later</span>
        </label>
        <CheckboxGroups
          groups={groupEvents()}
          disabled={all}
          checked={(type) => all || events.has(type)}
          onChange={(type, on) =>
            setEvents((current) => {
              const next = new Set(current);
              if (on) next.add(type);
              else next.delete(type);
              return next;
            })
          }
        />
      </fieldset>
    </FormDialog>
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
