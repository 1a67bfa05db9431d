import { type FormEvent, useId, useState } from 'react';
import { PERMISSIONS } from '../../../src/http/permissions.js';
import { api, describeError } from '../api.js';
import { Chips, StatusBadge } from '../components/Badge.js';
import { CopyField } from '../components/CopyField.js';
import { ConfirmDialog, Dialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { Async, Empty } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDate, formatDateTime, timeAgo } from '../format.js';
import { useNow, useResource } from '../hooks.js';
import { usePageTitle } from '../title.js';
import type { ApiKey } from '../types.js';

type Permission = (typeof PERMISSIONS)[number];

/** Permissions grouped by what they are about, for the create dialog. */
function groupPermissions(): [string, Permission[]][] {
  const groups = new Map<string, Permission[]>();
  for (const permission of PERMISSIONS) {
    const area = permission.split(':')[1] ?? permission;
    groups.set(area, [...(groups.get(area) ?? []), permission]);
  }
  return [...groups];
}

const PRESETS: { label: string; permissions: Permission[] }[] = [
  { label: 'Read only', permissions: PERMISSIONS.filter((p) => p.startsWith('read:')) },
  { label: 'Storefront', permissions: ['read:products', 'write:orders', 'read:orders'] },
  { label: 'Everything', permissions: [...PERMISSIONS] },
];

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (key: ApiKey) => void }) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Set<Permission>>(new Set());
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<ApiKey>();
  const nameId = useId();
  const expiresId = useId();
  const today = new Date();
  const minDate = new Date(today.getTime() + 24 * 3600 * 1000).toISOString().slice(0, 10);

  function toggle(permission: Permission, on: boolean) {
    setPermissions((current) => {
      const next = new Set(current);
      if (on) next.add(permission);
      else next.delete(permission);
      return next;
    });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (permissions.size === 0) {
      setError('Choose at least one permission.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const key = await api.post<ApiKey>('/api-keys', {
        name: name.trim(),
        permissions: PERMISSIONS.filter((p) => permissions.has(p)),
        ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      });
      setCreated(key);
      onCreated(key);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  if (created) {
    return (
      <Dialog
        title="Your new API key"
        onClose={onClose}
        description="Copy it now. For your security it is shown only once."
      >
        <CopyField
          label={`Key “${created.name}”`}
          value={created.key}
          hint="Store it in a secret manager, never in client-side code."
        />
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Create API key" onClose={onClose} size="wide">
      <form onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. Storefront production"
            autoFocus
          />
        </div>
        <fieldset className="fieldset">
          <legend>Permissions</legend>
          <div className="presets">
            {PRESETS.map((preset) => (
              <button
                key={preset.label}
                type="button"
                className="button button-small"
                onClick={() => setPermissions(new Set(preset.permissions))}
              >
                {preset.label}
              </button>
            ))}
            <button
              type="button"
              className="button button-small button-ghost"
              onClick={() => setPermissions(new Set())}
            >
              Clear
            </button>
          </div>
          <div className="permission-groups">
            {groupPermissions().map(([area, list]) => (
              <div key={area} className="permission-group">
                <span className="permission-area">{area}</span>
                {list.map((permission) => (
                  <label key={permission} className="check">
                    <input
                      type="checkbox"
                      checked={permissions.has(permission)}
                      onChange={(e) => toggle(permission, e.target.checked)}
                    />
                    <span className="mono">{permission}</span>
                  </label>
                ))}
              </div>
            ))}
          </div>
        </fieldset>
        <div className="field">
          <label htmlFor={expiresId}>Expires on</label>
          <input
            id={expiresId}
            type="date"
            min={minDate}
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
            aria-describedby={`${expiresId}-hint`}
          />
          <p id={`${expiresId}-hint`} className="hint">
            Optional. Leave empty for a key that does not expire. Keys show as Expiring in their last 7 days.
          </p>
        </div>
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
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RollDialog({
  apiKey,
  onClose,
  onRolled,
}: {
  apiKey: ApiKey;
  onClose: () => void;
  onRolled: () => void;
}) {
  const [grace, setGrace] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [rolled, setRolled] = useState<ApiKey>();
  const graceId = useId();

  async function roll() {
    setBusy(true);
    setError(undefined);
    try {
      setRolled(await api.post<ApiKey>(`/api-keys/${apiKey.id}/roll`, { expires_in_seconds: grace }));
      onRolled();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  if (rolled) {
    return (
      <Dialog
        title="Key rolled"
        onClose={onClose}
        description="Here is the replacement. Copy it now: it is shown only once."
      >
        <CopyField label={`New key for “${rolled.name}”`} value={rolled.key} />
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Roll “${apiKey.name}”?`}
      tone="primary"
      confirmLabel="Roll key"
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={() => void roll()}
      message={<p>A new key with the same name and permissions replaces {apiKey.key}.</p>}
    >
      <div className="field">
        <label htmlFor={graceId}>Keep the old key working for</label>
        <select id={graceId} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
          <option value={0}>No time: stop it now</option>
          <option value={3600}>1 hour</option>
          <option value={86400}>24 hours</option>
          <option value={7 * 86400}>7 days</option>
        </select>
      </div>
    </ConfirmDialog>
  );
}

export function ApiKeys() {
  usePageTitle('API keys');
  const keys = useResource<{ data: ApiKey[] }>('/api-keys');
  const now = useNow();
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<ApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function revoke(key: ApiKey) {
    setBusy(true);
    setError(undefined);
    try {
      await api.delete(`/api-keys/${key.id}`);
      toast(`API key “${key.name}” revoked.`);
      setRevoking(undefined);
      keys.reload();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  const createButton = (
    <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
      Create key
    </button>
  );

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate API requests. Give each integration its own key with only the permissions it needs."
        actions={createButton}
      />
      <Async resource={keys} loadingLabel="Loading API keys">
        {({ data }) =>
          data.length === 0 ? (
            <Empty title="No API keys" action={createButton}>
              Create a key to start calling the API.
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Permissions</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((key) => (
                    <tr key={key.id} data-key-id={key.id}>
                      <th scope="row" data-label="Name">
                        {key.name}
                      </th>
                      <td data-label="Key" className="mono nowrap">
                        {key.key}
                      </td>
                      <td data-label="Permissions">
                        <Chips items={key.permissions} max={3} />
                      </td>
                      <td data-label="Created" className="nowrap">
                        <time dateTime={key.created} title={formatDateTime(key.created)}>
                          {formatDate(key.created)}
                        </time>
                      </td>
                      <td data-label="Last used" className="nowrap">
                        {key.last_used ? (
                          <time dateTime={key.last_used} title={formatDateTime(key.last_used)}>
                            {timeAgo(key.last_used, now)}
                          </time>
                        ) : (
                          <span className="muted">Never</span>
                        )}
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={key.status} />
                        {key.expires_at ? (
                          <div className="hint">Expires {formatDate(key.expires_at)}</div>
                        ) : null}
                      </td>
                      <td className="row-actions">
                        <button
                          type="button"
                          className="button button-small"
                          onClick={() => setRolling(key)}
                          aria-label={`Roll ${key.name}`}
                        >
                          Roll
                        </button>
                        <button
                          type="button"
                          className="button button-small button-danger-ghost"
                          onClick={() => {
                            setError(undefined);
                            setRevoking(key);
                          }}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
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
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            toast(`API key “${key.name}” created.`);
            keys.reload();
          }}
        />
      ) : null}
      {rolling ? (
        <RollDialog apiKey={rolling} onClose={() => setRolling(undefined)} onRolled={keys.reload} />
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke key"
          busy={busy}
          error={error}
          onClose={() => setRevoking(undefined)}
          onConfirm={() => void revoke(revoking)}
          message={<p>Requests with {revoking.key} will be refused from now on. This cannot be undone.</p>}
        />
      ) : null}
    </>
  );
}
