import { type ReactNode, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { describeFailure, formErrors } from '../api/errors.js';
import { useCreateWebhook, useUpdateWebhook } from '../api/mutations.js';
import { useVersions, useWebhooks } from '../api/queries.js';
import type { Resource } from '../api/query.js';
import { EVENT_TYPES, type EventType } from '../catalog.js';
import { Chips, StatusBadge } from '../components/Badge.js';
import { CopyField } from '../components/CopyField.js';
import { Dialog, FormDialog } from '../components/Dialog.js';
import { CheckboxGroups, Field, SelectField } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { Async, Empty } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDateTime, timeAgo } from '../format.js';
import { useNow } from '../timing.js';
import { usePageTitle } from '../title.js';
import type { VersionList, Webhook } from '../types.js';

/** Event types a subscriber can pick (`webhook.test` goes only to the endpoint being tested). */
export const SUBSCRIBABLE = EVENT_TYPES.filter((type) => type !== 'webhook.test');

function groupEvents(): [string, EventType[]][] {
  const groups = new Map<string, EventType[]>();
  for (const type of SUBSCRIBABLE) {
    const resource = type.split('.')[0] ?? type;
    groups.set(resource, [...(groups.get(resource) ?? []), type]);
  }
  return [...groups];
}

export function eventsLabel(events: readonly string[]): string[] {
  return events.includes('*') ? ['All events'] : [...events];
}

/** The endpoint form's fields, by their name in the API, and their labels. */
const WEBHOOK_FIELDS = { url: 'Endpoint URL', description: 'Description' };

/** An endpoint as its form holds it: the URL, the description, and all events or some. */
interface EndpointDraft {
  url: string;
  description: string;
  all: boolean;
  events: ReadonlySet<EventType>;
}

/** An endpoint as the API takes it: its URL, events (`*`: all) and description (null: none). */
interface EndpointBody {
  url: string;
  events: ('*' | EventType)[];
  description: string | null;
}

function draftOf(webhook: Webhook | undefined): EndpointDraft {
  return {
    url: webhook?.url ?? '',
    description: webhook?.description ?? '',
    all: webhook?.events.includes('*') ?? false,
    events: new Set(SUBSCRIBABLE.filter((type) => webhook?.events.includes(type))),
  };
}

/** The URL, the description (null: none) and the events, as the API takes them. */
function endpointBody(draft: EndpointDraft): EndpointBody {
  return {
    url: draft.url.trim(),
    events: draft.all ? ['*'] : SUBSCRIBABLE.filter((type) => draft.events.has(type)),
    description: draft.description.trim() || null,
  };
}

/**
 * The endpoint form (adding one, or editing one): its fields, the server's errors under them, and
 * the check before sending (some events). Submits the endpoint's body as the API takes it; `busy`
 * and `error` are the sending's (the mutation's). `children` are fields of one of the two only
 * (the payload version, fixed once added), shown after the description.
 */
function EndpointForm({
  title,
  initial,
  submitLabel,
  busyLabel,
  busy,
  error,
  onClose,
  onSubmit,
  children,
}: {
  title: string;
  initial: EndpointDraft;
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  error: unknown;
  onClose: () => void;
  /** Sends the body; what it returns is why it was not sent, if it was not. */
  onSubmit: (body: EndpointBody) => string | undefined;
  children?: ReactNode;
}) {
  const [draft, setDraft] = useState(initial);
  /** Why the form was not sent (a check before sending). */
  const [unsent, setUnsent] = useState<string>();
  const { fields, form } = formErrors(unsent ?? error, WEBHOOK_FIELDS);
  const edit = (change: Partial<EndpointDraft>) => setDraft((current) => ({ ...current, ...change }));

  function submit() {
    if (!draft.all && draft.events.size === 0) {
      setUnsent('Choose at least one event, or all events.');
      return;
    }
    setUnsent(onSubmit(endpointBody(draft)));
  }

  return (
    <FormDialog
      title={title}
      size="wide"
      onClose={onClose}
      onSubmit={submit}
      submitLabel={submitLabel}
      busyLabel={busyLabel}
      busy={busy}
      error={form}
    >
      <Field
        label={WEBHOOK_FIELDS.url}
        type="url"
        required
        maxLength={2048}
        placeholder="https://example.com/webhooks/commerce"
        value={draft.url}
        onChange={(e) => edit({ url: e.target.value })}
        error={fields.url}
        autoFocus
      />
      <Field
        label={WEBHOOK_FIELDS.description}
        maxLength={500}
        placeholder="Optional"
        value={draft.description}
        onChange={(e) => edit({ description: e.target.value })}
        error={fields.description}
      />
      {children}
      <fieldset className="fieldset">
        <legend>Events to send</legend>
        <label className="check check-strong">
          <input type="checkbox" checked={draft.all} onChange={(e) => edit({ all: e.target.checked })} />
          <span>All events, including types added later</span>
        </label>
        <CheckboxGroups
          groups={groupEvents()}
          disabled={draft.all}
          checked={(type) => draft.all || draft.events.has(type)}
          onChange={(type, on) =>
            setDraft((current) => {
              const events = new Set(current.events);
              if (on) events.add(type);
              else events.delete(type);
              return { ...current, events };
            })
          }
        />
      </fieldset>
    </FormDialog>
  );
}

/** Changes an endpoint's URL, description and events (its secret and status stay). */
export function EditWebhookDialog({
  webhook,
  onClose,
  onSaved,
}: {
  webhook: Webhook;
  onClose: () => void;
  onSaved: (webhook: Webhook) => void;
}) {
  const update = useUpdateWebhook();
  return (
    <EndpointForm
      title="Edit endpoint"
      initial={draftOf(webhook)}
      submitLabel="Save changes"
      busyLabel="Saving…"
      busy={update.isPending}
      error={update.error}
      onClose={onClose}
      onSubmit={(body) => {
        update.mutate(
          { id: webhook.id, body },
          {
            onSuccess: (saved) => {
              onSaved(saved);
              onClose();
            },
          },
        );
        return undefined;
      }}
    />
  );
}

/** "2026-12-15 (v2.5, latest)", "2026-11-21 (v2.4, your store’s version)": a version as the form offers it. */
function payloadVersionLabel(version: VersionList['data'][number], pinned: string): string {
  const notes = [version.release];
  if (version.latest) notes.push('latest');
  if (version.version === pinned) notes.push('your store’s version');
  return `${version.version} (${notes.join(', ')})`;
}

/**
 * The version a new endpoint's payloads are rendered in, from the API's versions (newest first),
 * the store's pinned one until another is chosen; while they load, or when they could not be
 * loaded, there is nothing to choose (and the form asks to wait, or to try loading them again).
 */
function PayloadVersionField({
  versions,
  value,
  onChange,
}: {
  versions: Resource<VersionList>;
  value: string | undefined;
  onChange: (version: string) => void;
}) {
  const list = versions.data;
  const failed = list === undefined && versions.error !== undefined;
  return (
    <>
      <SelectField
        label="Payload version"
        hint="Payloads are rendered in this version for the life of the endpoint."
        error={failed ? `The versions could not be loaded. ${describeFailure(versions.error)}` : undefined}
        disabled={list === undefined}
        value={value ?? ''}
        onChange={(e) => onChange(e.target.value)}
      >
        {list === undefined ? (
          <option value="">{failed ? 'Unavailable' : 'Loading versions…'}</option>
        ) : (
          [...list.data].reverse().map((version) => (
            <option key={version.version} value={version.version}>
              {payloadVersionLabel(version, list.pinned)}
            </option>
          ))
        )}
      </SelectField>
      {failed ? (
        <button type="button" className="button button-small field-retry" onClick={versions.reload}>
          Load the versions again
        </button>
      ) : null}
    </>
  );
}

function CreateWebhookDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [created, setCreated] = useState<Webhook>();
  const create = useCreateWebhook();
  const versions = useVersions();
  const [chosenVersion, setChosenVersion] = useState<string>();
  const version = chosenVersion ?? versions.data?.pinned;
  const navigate = useNavigate();

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
    <EndpointForm
      title="Add webhook endpoint"
      initial={draftOf(undefined)}
      submitLabel="Add endpoint"
      busyLabel="Adding…"
      busy={create.isPending}
      error={create.error}
      onClose={onClose}
      onSubmit={({ description, ...body }) => {
        if (version === undefined) {
          return versions.error === undefined
            ? 'The payload versions are still loading: add the endpoint once they are shown.'
            : 'Choose a payload version: load the versions again first.';
        }
        // Sent in the chosen version: the API fixes the endpoint's payloads to the request's version.
        const sent = description === null ? body : { ...body, description };
        create.mutate(
          { body: sent, version },
          {
            onSuccess: (webhook) => {
              setCreated(webhook);
              onCreated();
            },
          },
        );
        return undefined;
      }}
    >
      <PayloadVersionField versions={versions} value={version} onChange={setChosenVersion} />
    </EndpointForm>
  );
}

export function Webhooks() {
  usePageTitle('Webhooks');
  const webhooks = useWebhooks({ refreshMs: 5000 });
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
          onCreated={() => toast('Webhook endpoint added.')}
        />
      ) : null}
    </>
  );
}
