import { useId, useState } from 'react';
import { describeFailure, formErrors } from '../api/errors.js';
import { useSavePlugin, useSubmitPlugin } from '../api/mutations.js';
import { usePluginDeliveries, usePluginInstallations, usePlugins } from '../api/queries.js';
import {
  PLUGIN_CATEGORIES,
  PLUGIN_EVENTS,
  PLUGIN_PERMISSIONS,
  type PluginEvent,
  type PluginPermission,
} from '../catalog.js';
import { ResponseLabel, StatusBadge } from '../components/Badge.js';
import { FormDialog, SecretDialog } from '../components/Dialog.js';
import { CheckboxGroups, Field, SelectField } from '../components/Form.js';
import { PluginAccess } from '../components/PluginAccess.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDate, formatLogTime, humanize } from '../format.js';
import type { Plugin } from '../types.js';

interface Manifest {
  name: string;
  slug: string;
  description: string;
  category: Plugin['category'];
  permissions: PluginPermission[];
  events: PluginEvent[];
  webhook_url: string;
  homepage_url: string;
}

const LABELS = {
  name: 'Name',
  slug: 'Slug',
  description: 'Description',
  category: 'Category',
  permissions: 'Permissions',
  events: 'Events',
  webhook_url: 'Webhook URL',
  homepage_url: 'Homepage URL',
};

function groups<T extends string>(values: readonly T[]): [string, T[]][] {
  const byArea = new Map<string, T[]>();
  for (const value of values) {
    const area = value.includes(':') ? (value.split(':')[1] ?? value) : (value.split('.')[0] ?? value);
    byArea.set(area, [...(byArea.get(area) ?? []), value]);
  }
  return [...byArea];
}

/** The `values` that are among `allowed`, in their order. */
function among<T extends string>(allowed: readonly T[], values: readonly string[]): T[] {
  return values.filter((value): value is T => (allowed as readonly string[]).includes(value));
}

/** Create (no `plugin`) or edit one of your plugins. */
function PluginForm({
  plugin,
  onClose,
  onSaved,
}: {
  plugin?: Plugin;
  onClose: () => void;
  onSaved: (saved: Plugin) => void;
}) {
  const [form, setForm] = useState<Manifest>({
    name: plugin?.name ?? '',
    slug: plugin?.slug ?? '',
    description: plugin?.description ?? '',
    category: plugin?.category ?? 'inventory',
    permissions: among(PLUGIN_PERMISSIONS, plugin?.permissions ?? []),
    events: among(PLUGIN_EVENTS, plugin?.events ?? []),
    webhook_url: plugin?.webhook_url ?? '',
    homepage_url: plugin?.homepage_url ?? '',
  });
  const saving = useSavePlugin();
  const errors = formErrors(saving.error, LABELS);
  const fixed = plugin !== undefined && plugin.status !== 'draft' && plugin.status !== 'rejected';
  const set = <K extends keyof Manifest>(key: K, value: Manifest[K]) => setForm({ ...form, [key]: value });
  const toggle = <T extends string>(list: T[], value: T, on: boolean) =>
    on ? [...list, value] : list.filter((v) => v !== value);

  function save() {
    const common = {
      name: form.name,
      description: form.description,
      category: form.category,
      webhook_url: form.webhook_url,
    };
    // Submitted (not a draft, not rejected): what it may do and receive is fixed.
    const access = fixed ? {} : { permissions: form.permissions, events: form.events };
    saving.mutate(
      plugin === undefined
        ? {
            body: {
              ...common,
              permissions: form.permissions,
              events: form.events,
              slug: form.slug,
              ...(form.homepage_url ? { homepage_url: form.homepage_url } : {}),
            },
          }
        : {
            id: plugin.id,
            body: { ...common, ...access, homepage_url: form.homepage_url === '' ? null : form.homepage_url },
          },
      { onSuccess: onSaved },
    );
  }

  return (
    <FormDialog
      title={plugin ? `Edit ${plugin.name}` : 'New plugin'}
      onClose={onClose}
      onSubmit={save}
      submitLabel={plugin ? 'Save' : 'Create draft'}
      busyLabel="Saving…"
      busy={saving.isPending}
      error={errors.form}
      size="wide"
    >
      <Field
        label="Name"
        required
        value={form.name}
        error={errors.fields.name}
        onChange={(e) => set('name', e.target.value)}
      />
      {plugin ? null : (
        <Field
          label="Slug"
          required
          hint="Lowercase letters, digits and hyphens; it cannot change later."
          value={form.slug}
          error={errors.fields.slug}
          onChange={(e) => set('slug', e.target.value)}
        />
      )}
      <Field
        label="Description"
        required
        value={form.description}
        error={errors.fields.description}
        onChange={(e) => set('description', e.target.value)}
      />
      <SelectField
        label="Category"
        value={form.category}
        error={errors.fields.category}
        onChange={(e) =>
          set('category', PLUGIN_CATEGORIES.find((c) => c === e.target.value) ?? form.category)
        }
      >
        {PLUGIN_CATEGORIES.map((c) => (
          <option key={c} value={c}>
            {humanize(c)}
          </option>
        ))}
      </SelectField>
      <Field
        label="Webhook URL"
        required
        type="url"
        hint="Where its events are delivered: https, public addresses only."
        value={form.webhook_url}
        error={errors.fields.webhook_url ?? errors.fields.url}
        onChange={(e) => set('webhook_url', e.target.value)}
      />
      <Field
        label="Homepage URL"
        type="url"
        value={form.homepage_url}
        error={errors.fields.homepage_url}
        onChange={(e) => set('homepage_url', e.target.value)}
      />
      <fieldset className="fieldset" disabled={fixed}>
        <legend>Permissions its token gets{fixed ? ' (fixed once submitted)' : ''}</legend>
        <CheckboxGroups
          groups={groups(PLUGIN_PERMISSIONS)}
          checked={(p) => form.permissions.includes(p)}
          onChange={(p, on) => set('permissions', toggle(form.permissions, p, on))}
        />
        {errors.fields.permissions ? <p className="field-error">{errors.fields.permissions}</p> : null}
      </fieldset>
      <fieldset className="fieldset" disabled={fixed}>
        <legend>Events it receives</legend>
        <CheckboxGroups
          groups={groups(PLUGIN_EVENTS)}
          checked={(e) => form.events.includes(e)}
          onChange={(e, on) => set('events', toggle(form.events, e, on))}
        />
      </fieldset>
    </FormDialog>
  );
}

function Installations({ plugin }: { plugin: Plugin }) {
  const list = usePluginInstallations(plugin.id);
  if (list.data === undefined)
    return list.error ? <ErrorState error={list.error} onRetry={list.reload} /> : <Loading rows={1} />;
  if (list.data.data.length === 0) return <p className="muted">No store has it installed.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th scope="col">Store</th>
          <th scope="col">Tenant</th>
          <th scope="col">Installed</th>
        </tr>
      </thead>
      <tbody>
        {list.data.data.map((row) => (
          <tr key={row.id}>
            <td>{row.store_name}</td>
            <td className="mono">{row.tenant_id}</td>
            <td>{formatDate(row.installed_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Deliveries({ plugin }: { plugin: Plugin }) {
  const list = usePluginDeliveries(plugin.id);
  if (list.data === undefined)
    return list.error ? <ErrorState error={list.error} onRetry={list.reload} /> : <Loading rows={1} />;
  if (list.data.data.length === 0) return <p className="muted">Nothing delivered yet.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Store</th>
          <th scope="col">Response</th>
          <th scope="col">Attempt</th>
        </tr>
      </thead>
      <tbody>
        {list.data.data.map((row) => (
          <tr key={row.id}>
            <td>{row.time ? formatLogTime(row.time) : 'Queued'}</td>
            <td className="mono">{row.event}</td>
            <td className="mono">{row.tenant_id}</td>
            <td>
              {row.status === 'pending' ? (
                'Pending'
              ) : (
                <ResponseLabel response={row.response} status={row.response_status} />
              )}
            </td>
            <td>{row.attempt}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function OwnPlugin({ plugin }: { plugin: Plugin }) {
  const toast = useToast();
  const [editing, setEditing] = useState(false);
  const [open, setOpen] = useState<'installations' | 'deliveries' | null>(null);
  const submit = useSubmitPlugin();
  const titleId = useId();
  const canSubmit = plugin.status === 'draft' || plugin.status === 'rejected';
  return (
    <article className="plugin card" aria-labelledby={titleId} data-plugin={plugin.slug}>
      <header className="plugin-header">
        <div className="plugin-icon" aria-hidden="true">
          {plugin.name.charAt(0)}
        </div>
        <div className="plugin-title">
          <h2 id={titleId} className="plugin-name">
            {plugin.name}
          </h2>
          <p className="plugin-meta mono">{plugin.webhook_url}</p>
        </div>
        <StatusBadge status={humanize(plugin.status)} />
      </header>
      {plugin.status === 'rejected' && plugin.rejection_reason ? (
        <p className="field-error">Rejected: {plugin.rejection_reason}</p>
      ) : null}
      <p className="plugin-description">{plugin.description}</p>
      <PluginAccess permissions={plugin.permissions} events={plugin.events} max={4} />
      <footer className="plugin-actions">
        <button type="button" className="button" aria-haspopup="dialog" onClick={() => setEditing(true)}>
          Edit
        </button>
        {canSubmit ? (
          <button
            type="button"
            className="button button-primary"
            disabled={submit.isPending}
            onClick={() =>
              submit.mutate(plugin.id, {
                onSuccess: () => toast(`${plugin.name} submitted for review.`),
                onError: (failure) => toast(describeFailure(failure), 'error'),
              })
            }
          >
            Submit for review
          </button>
        ) : null}
        <button
          type="button"
          className="button"
          aria-expanded={open === 'installations'}
          onClick={() => setOpen(open === 'installations' ? null : 'installations')}
        >
          Installations ({plugin.installs})
        </button>
        <button
          type="button"
          className="button"
          aria-expanded={open === 'deliveries'}
          onClick={() => setOpen(open === 'deliveries' ? null : 'deliveries')}
        >
          Delivery log
        </button>
      </footer>
      {open === 'installations' ? <Installations plugin={plugin} /> : null}
      {open === 'deliveries' ? <Deliveries plugin={plugin} /> : null}
      {editing ? (
        <PluginForm
          plugin={plugin}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            toast(`${plugin.name} saved.`);
          }}
        />
      ) : null}
    </article>
  );
}

/** The plugins this store publishes: create, edit, submit, who installed them, their deliveries. */
export function PublisherPlugins() {
  const mine = usePlugins({ owned: true });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Plugin>();
  let body;
  if (mine.data === undefined) {
    body =
      mine.error !== undefined ? (
        <ErrorState error={mine.error} onRetry={mine.reload} />
      ) : (
        <Loading label="Loading your plugins" rows={2} />
      );
  } else if (mine.data.data.length === 0) {
    body = (
      <Empty title="You publish no plugins">
        A plugin receives the events it asks for at its URL and acts on a store with the token it gets when
        installed.
      </Empty>
    );
  } else {
    body = (
      <div className="plugin-grid">
        {mine.data.data.map((plugin) => (
          <OwnPlugin key={plugin.id} plugin={plugin} />
        ))}
      </div>
    );
  }
  return (
    <>
      <div className="plugin-actions">
        <button
          type="button"
          className="button button-primary"
          aria-haspopup="dialog"
          onClick={() => setCreating(true)}
        >
          New plugin
        </button>
      </div>
      {body}
      {creating ? (
        <PluginForm
          onClose={() => setCreating(false)}
          onSaved={(plugin) => {
            setCreating(false);
            setCreated(plugin);
          }}
        />
      ) : null}
      {created?.secret ? (
        <SecretDialog
          title={`${created.name} is a draft`}
          description="Its deliveries are signed with this secret (Standard Webhooks). It is shown only now: copy it into your app."
          label="Signing secret"
          value={created.secret}
          onClose={() => setCreated(undefined)}
        >
          <p className="hint">
            Your store can install the draft to try it. Submit it for review to list it in the marketplace.
          </p>
        </SecretDialog>
      ) : null}
    </>
  );
}
