import { useId, useState } from 'react';
import { formErrors } from '../api/errors.js';
import { useCreateApiKey, useRevokeApiKey, useRollApiKey } from '../api/mutations.js';
import { useApiKeys } from '../api/queries.js';
import { type Permission, PERMISSIONS } from '../catalog.js';
import { Chips, StatusBadge } from '../components/Badge.js';
import { CopyField } from '../components/CopyField.js';
import { ConfirmDialog, FormDialog, SecretDialog } from '../components/Dialog.js';
import { CheckboxGroups, Field, SelectField } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { Async, Empty } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDate, formatDateNear, formatDateTime, timeAgo } from '../format.js';
import { useNow } from '../timing.js';
import { usePageTitle } from '../title.js';
import type { ApiKey } from '../types.js';

/** A call each permission allows, to try a new key with: the first the key holds, else one any key may make. */
const TRY_CALLS: [Permission, string][] = [
  ['read:products', '/v1/products?limit=1'],
  ['read:orders', '/v1/orders?limit=1'],
  ['read:customers', '/v1/customers?limit=1'],
  ['read:users', '/v1/users/me'],
  ['read:wallet', '/v1/wallet/balance'],
  ['read:analytics', '/v1/analytics'],
  ['read:webhooks', '/v1/webhooks'],
  ['read:usage', '/v1/usage'],
  ['read:keys', '/v1/api-keys'],
];

/**
 * A curl command that calls this server with `key`, ready to paste: over HTTPS it trusts the
 * server's own certificate, from the server's folder (`npm start` makes it there).
 */
export function curlLine(
  key: string,
  permissions: readonly string[],
  origin = window.location.origin,
): string {
  const path = TRY_CALLS.find(([permission]) => permissions.includes(permission))?.[1] ?? '/v1/versions';
  const tls = origin.startsWith('https:') ? '--cacert data/tls/cert.pem ' : '';
  return `curl ${tls}-H "Authorization: Bearer ${key}" "${origin}${path}"`;
}

/** How to call the API with a key just shown: a curl line, and what its certificate option means. */
function TryKey({ apiKey }: { apiKey: ApiKey & { key?: string } }) {
  if (!apiKey.key) return null;
  return (
    <div className="try-key">
      <CopyField label="Try it with curl" value={curlLine(apiKey.key, apiKey.permissions)} />
      {window.location.protocol === 'https:' ? (
        <p className="hint" data-testid="certificate-hint">
          The server’s certificate is self-signed: <code>--cacert data/tls/cert.pem</code> trusts exactly it.
          Run the line in the server’s folder (the file is in its data folder, <code>DATA_DIR</code>), or copy
          the file to where you run it. <code>-k</code> instead would skip the check altogether: for a quick
          try only, never in an integration. With a certificate from a public authority, leave both out.
        </p>
      ) : null}
    </div>
  );
}

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

/** The create form's fields, by their name in the API, and their labels (each allowed origin by its line). */
const KEY_FIELDS: Record<string, string> = {
  name: 'Name',
  expires_at: 'Expires on',
  allowed_origins: 'Allowed origins',
  ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`allowed_origins[${i}]`, `Origin ${i + 1}`])),
};

/** The shop this server serves at /shop/, opened with a publishable key. */
export function shopLink(key: string, origin = window.location.origin): string {
  return `${origin}/shop/?key=${key}`;
}

/** The origins typed in the create form: one a line (or separated by commas or spaces), blanks dropped. */
function originsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/** The first error among the allowed origins' (the list's own, or one origin's). */
function originError(fields: Record<string, string>): string | undefined {
  const first = Object.keys(fields).find((field) => field.startsWith('allowed_origins'));
  return first === undefined ? undefined : fields[first];
}

/** The calendar date `days` from today where the browser is, as a date input's value ("2026-11-22"). */
function localDate(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  return [date.getFullYear(), date.getMonth() + 1, date.getDate()]
    .map((n, i) => String(n).padStart(i === 0 ? 4 : 2, '0'))
    .join('-');
}

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (key: ApiKey) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'secret' | 'publishable'>('secret');
  const [origins, setOrigins] = useState('');
  const originsId = useId();
  const [permissions, setPermissions] = useState<Set<Permission>>(new Set());
  const [expires, setExpires] = useState('');
  const create = useCreateApiKey();
  /** Why the form was not sent (a check before sending). */
  const [unsent, setUnsent] = useState<string>();
  const [blankName, setBlankName] = useState(false);
  const { fields, form } = formErrors(unsent ?? create.error, KEY_FIELDS);
  const [created, setCreated] = useState<ApiKey>();

  function toggle(permission: Permission, on: boolean) {
    setPermissions((current) => {
      const next = new Set(current);
      if (on) next.add(permission);
      else next.delete(permission);
      return next;
    });
  }

  function submit() {
    setUnsent(undefined);
    create.reset();
    // Blanks only would be sent as an empty name: refused here, under the field.
    setBlankName(name.trim() === '');
    if (name.trim() === '') return;
    if (type === 'secret' && permissions.size === 0) {
      setUnsent('Choose at least one permission.');
      return;
    }
    create.mutate(
      {
        name: name.trim(),
        ...(type === 'secret'
          ? { permissions: PERMISSIONS.filter((p) => permissions.has(p)) }
          : { type: 'publishable' as const, allowed_origins: originsOf(origins) }),
        ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      },
      {
        onSuccess: (key) => {
          setCreated(key);
          onCreated(key);
        },
      },
    );
  }

  if (created?.type === 'publishable') {
    return (
      <SecretDialog
        title="Your new publishable key"
        description="It is public: every read shows it, and it opens the storefront's routes only."
        label={`Key “${created.name}”`}
        value={created.key}
        onClose={onClose}
      >
        <CopyField label="Your shop" value={shopLink(created.key)} />
      </SecretDialog>
    );
  }

  if (created) {
    return (
      <SecretDialog
        title="Your new API key"
        description="Copy it now. For your security it is shown only once."
        label={`Key “${created.name}”`}
        value={created.key}
        hint="Store it in a secret manager, never in client-side code."
        onClose={onClose}
      >
        <TryKey apiKey={created} />
      </SecretDialog>
    );
  }

  return (
    <FormDialog
      title="Create API key"
      size="wide"
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Create key"
      busyLabel="Creating…"
      busy={create.isPending}
      error={form}
    >
      <Field
        label={KEY_FIELDS.name}
        required
        maxLength={100}
        value={name}
        onChange={(e) => {
          setName(e.target.value);
          setBlankName(false);
        }}
        placeholder="e.g. Storefront production"
        error={blankName ? 'Enter a name for the key.' : fields.name}
        autoFocus
      />
      <SelectField
        label="Type"
        value={type}
        onChange={(e) => setType(e.target.value === 'publishable' ? 'publishable' : 'secret')}
        hint={
          type === 'secret'
            ? 'For your servers: holds the permissions you choose. Keep it secret.'
            : 'For a shop’s pages: public, holds no permission, opens /v1/store/* only. The shop this server serves at /shop/ takes it in its link.'
        }
      >
        <option value="secret">Secret key</option>
        <option value="publishable">Publishable key (storefront)</option>
      </SelectField>
      {type === 'publishable' ? (
        <div className="field">
          <label htmlFor={originsId}>Allowed origins</label>
          <textarea
            id={originsId}
            rows={3}
            value={origins}
            onChange={(e) => setOrigins(e.target.value)}
            placeholder="https://shop.example.com"
            aria-invalid={originError(fields) ? true : undefined}
            aria-describedby={`${originsId}-note`}
          />
          {originError(fields) ? (
            <p id={`${originsId}-note`} className="field-error">
              {originError(fields)}
            </p>
          ) : (
            <p id={`${originsId}-note`} className="hint">
              The browser origins of your own shop’s pages, one a line (https://, or http://localhost:PORT).
              Leave it empty for the shop at /shop/ only: this server’s own pages need none.
            </p>
          )}
        </div>
      ) : (
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
          <CheckboxGroups
            groups={groupPermissions()}
            checked={(permission) => permissions.has(permission)}
            onChange={toggle}
          />
        </fieldset>
      )}
      <Field
        label={KEY_FIELDS.expires_at}
        type="date"
        min={localDate(1)}
        value={expires}
        onChange={(e) => setExpires(e.target.value)}
        hint="Optional. Leave empty for a key that does not expire. Keys show as Expiring in their last 7 days."
        error={fields.expires_at}
      />
    </FormDialog>
  );
}

function RollDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const [grace, setGrace] = useState(0);
  const rollKey = useRollApiKey();
  const [rolled, setRolled] = useState<ApiKey>();
  const graceId = useId();

  function roll() {
    rollKey.mutate({ id: apiKey.id, expiresInSeconds: grace }, { onSuccess: setRolled });
  }

  if (rolled) {
    return (
      <SecretDialog
        title="Key rolled"
        description="Here is the replacement. Copy it now: it is shown only once."
        label={`New key for “${rolled.name}”`}
        value={rolled.key}
        onClose={onClose}
      >
        <TryKey apiKey={rolled} />
      </SecretDialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Roll “${apiKey.name}”?`}
      tone="primary"
      confirmLabel="Roll key"
      busy={rollKey.isPending}
      error={rollKey.error}
      onClose={onClose}
      onConfirm={roll}
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
  const keys = useApiKeys();
  const now = useNow();
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [rolling, setRolling] = useState<ApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const revokeKey = useRevokeApiKey();

  function revoke(key: ApiKey) {
    revokeKey.mutate(key.id, {
      onSuccess: () => {
        toast(`API key “${key.name}” revoked.`);
        setRevoking(undefined);
      },
    });
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
            <div className="table-wrap table-wrap-keys">
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
                      <td data-label="Key" className="mono nowrap key-value">
                        {key.key}
                      </td>
                      <td data-label="Permissions">
                        {key.type === 'publishable' ? (
                          <div className="publishable">
                            <span className="muted">Storefront only (publishable)</span>
                            {key.allowed_origins.length > 0 ? (
                              <span className="hint mono">{key.allowed_origins.join(', ')}</span>
                            ) : null}
                            <a
                              href={shopLink(key.key)}
                              target="_blank"
                              rel="noreferrer"
                              className="shop-link"
                              aria-label={`Open the shop of ${key.name}`}
                            >
                              Shop: /shop/?key=…{key.key.slice(-4)}
                            </a>
                          </div>
                        ) : (
                          <Chips items={key.permissions} max={3} />
                        )}
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
                        {/* One block: as a card, the badge and its expiry stay together by the label. */}
                        <div>
                          <StatusBadge status={key.status} />
                          {key.expires_at ? (
                            <div className="hint">
                              Expires{' '}
                              <time dateTime={key.expires_at} title={formatDateTime(key.expires_at)}>
                                {formatDateNear(key.expires_at, now)}
                              </time>
                            </div>
                          ) : null}
                        </div>
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
                            revokeKey.reset();
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
          onCreated={(key) => toast(`API key “${key.name}” created.`)}
        />
      ) : null}
      {rolling ? <RollDialog apiKey={rolling} onClose={() => setRolling(undefined)} /> : null}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke key"
          busy={revokeKey.isPending}
          error={revokeKey.error}
          onClose={() => setRevoking(undefined)}
          onConfirm={() => revoke(revoking)}
          message={<p>Requests with {revoking.key} will be refused from now on. This cannot be undone.</p>}
        />
      ) : null}
    </>
  );
}
