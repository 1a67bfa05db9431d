import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import type { ApiKeyService } from '../api-keys/index.js';
import type { AuditRecorder } from '../audit/index.js';
import { openTenantWallet } from '../wallet/index.js';
import * as repo from './settings.repository.js';
import { CART_ID_PLACEHOLDER, type SettingsObject, type UpdateSettingsBody } from './settings.schemas.js';

/**
 * A store's settings: its name and currency, when its unpaid orders expire, and how its storefront
 * behaves. They are columns of its `tenants` row (migration 0041).
 *
 * Storefront requests read them on every call, so `get` answers from memory: an entry is kept for
 * `CACHE_TTL_MS` at most, and dropped at once when the settings change, in this process directly
 * and in every other through the store's notifications (PostgreSQL; SQLite serves one process).
 * A read that began before a change never fills the cache with what it read.
 */

/** How long settings are trusted from memory at most (a change drops them at once anyway). */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;
/** The store topic on which processes tell each other that a tenant's settings changed. */
const TOPIC = 'settings';

export interface SettingsServiceDeps {
  store: Store;
  clock: Clock;
  /** Told when the name or currency change: every principal carries them (`GET /users/me`). */
  apiKeys: ApiKeyService;
  /** Each change's audit entry, in its transaction. */
  audit: AuditRecorder;
}

export type SettingsService = ReturnType<typeof createSettingsService>;

/** The settings as the API shows them, frozen: callers share the cached object. */
function present(row: repo.SettingsRow): Readonly<SettingsObject> {
  return Object.freeze({
    name: row.name,
    currency: row.currency,
    unpaid_order_expiry_minutes: row.unpaid_order_expiry_minutes,
    storefront: Object.freeze({
      hold_minutes: row.storefront_hold_minutes,
      abandoned_after_minutes: row.storefront_abandoned_after_minutes,
      recovery_url_template: row.storefront_recovery_url_template,
      requests_per_minute: row.storefront_requests_per_minute,
    }),
  });
}

/**
 * The schema demands `https://`, the placeholder and no white space; this also refuses what a URL
 * parser does not accept once the placeholder is filled, credentials, and a placeholder in the
 * host: the cart's id goes in the path, query or fragment of the store's own address.
 */
function checkRecoveryUrl(template: string): void {
  const field = 'storefront.recovery_url_template';
  if (!template.includes(CART_ID_PLACEHOLDER))
    throw validationError(field, `must contain ${CART_ID_PLACEHOLDER}`);
  let url: URL;
  let other: URL;
  try {
    url = new URL(template.replaceAll(CART_ID_PLACEHOLDER, 'cart_0'));
    other = new URL(template.replaceAll(CART_ID_PLACEHOLDER, 'cart_1'));
  } catch {
    throw validationError(field, 'must be an https URL');
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    throw validationError(field, 'must be an https URL without credentials');
  }
  if (url.host !== other.host) {
    throw validationError(
      field,
      `must hold ${CART_ID_PLACEHOLDER} in its path, query or fragment, not its host`,
    );
  }
}

/** The columns a patch changes (only the members it gives). */
function changesOf(body: UpdateSettingsBody): Partial<repo.SettingsRow> {
  const changes: Partial<repo.SettingsRow> = {};
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.currency !== undefined) changes.currency = body.currency;
  if (body.unpaid_order_expiry_minutes !== undefined) {
    changes.unpaid_order_expiry_minutes = body.unpaid_order_expiry_minutes;
  }
  const storefront = body.storefront ?? {};
  if (storefront.hold_minutes !== undefined) changes.storefront_hold_minutes = storefront.hold_minutes;
  if (storefront.abandoned_after_minutes !== undefined) {
    changes.storefront_abandoned_after_minutes = storefront.abandoned_after_minutes;
  }
  if (storefront.recovery_url_template !== undefined) {
    if (storefront.recovery_url_template !== null) checkRecoveryUrl(storefront.recovery_url_template);
    changes.storefront_recovery_url_template = storefront.recovery_url_template;
  }
  if (storefront.requests_per_minute !== undefined) {
    changes.storefront_requests_per_minute = storefront.requests_per_minute;
  }
  return changes;
}

export function createSettingsService(deps: SettingsServiceDeps) {
  const { store, clock, apiKeys } = deps;
  const cache = new Map<string, { settings: Readonly<SettingsObject>; at: number }>();
  /** Moves on every change heard of: a read that began under an older generation is not cached. */
  let generation = 0;
  let listening = false;

  function forget(tenantId: string): void {
    generation += 1;
    cache.delete(tenantId);
  }

  function forgetAll(): void {
    generation += 1;
    cache.clear();
  }

  /** The tenant's settings while they are fresh in memory; undefined otherwise (nothing is read). */
  function cached(tenantId: string): Readonly<SettingsObject> | undefined {
    const entry = cache.get(tenantId);
    return entry !== undefined && clock.now() - entry.at <= CACHE_TTL_MS ? entry.settings : undefined;
  }

  async function load(tenantId: string): Promise<Readonly<SettingsObject>> {
    const started = generation;
    const row = await repo.findSettings(store.db, tenantId);
    if (!row) throw notFound('tenant');
    const settings = present(row);
    if (started === generation) {
      if (cache.size >= CACHE_MAX_ENTRIES && !cache.has(tenantId)) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(tenantId, { settings, at: clock.now() });
    }
    return settings;
  }

  /**
   * Changes the members `body` gives (the storefront's too, member by member) in `trx`, under the
   * tenant's row lock. The currency changes only while the store has no order (409
   * `invalid_state_transition`); its wallet in the new currency opens with it. Caches drop the
   * settings once `trx` commits.
   */
  async function updateIn(
    trx: Db,
    tenantId: string,
    body: UpdateSettingsBody,
  ): Promise<Readonly<SettingsObject>> {
    const changes = changesOf(body);
    const now = clock.now();
    const before = await repo.findSettings(trx, tenantId, true);
    if (!before) throw notFound('tenant');
    const currencyChanged = changes.currency !== undefined && changes.currency !== before.currency;
    if (currencyChanged) {
      if (await repo.hasOrders(trx, tenantId)) {
        throw new AppError(
          'invalid_state_transition',
          `The store’s currency (${before.currency}) can change only while the store has no orders.`,
        );
      }
      await openTenantWallet(trx, tenantId, changes.currency as string, now); // currencyChanged: given
    }
    const after: repo.SettingsRow = { ...before, ...changes };
    const changed = (Object.keys(changes) as (keyof repo.SettingsRow)[]).some(
      (column) => after[column] !== before[column],
    );
    const summaryChanged = after.name !== before.name || currencyChanged;
    if (changed) {
      await repo.updateSettings(trx, tenantId, changes, now);
      await store.notify(trx, TOPIC, tenantId);
      await deps.audit.record(trx, {
        tenantId,
        action: 'settings.updated',
        resource: { type: 'settings', id: tenantId },
        before: present(before),
        after: present(after),
      });
    }
    // Every principal of the tenant carries its name and currency: their caches drop it too.
    if (summaryChanged) await apiKeys.tenantChanged(trx, tenantId);
    store.afterCommit(trx, () => {
      forget(tenantId);
      if (summaryChanged) apiKeys.forgetTenant(tenantId);
    });
    return present(after);
  }

  return {
    cached,

    /** The tenant's settings: from memory while fresh, else read (and kept). */
    async get(tenantId: string): Promise<Readonly<SettingsObject>> {
      return cached(tenantId) ?? load(tenantId);
    },

    /** `updateIn`, in a transaction of its own (`PATCH /settings`). */
    async update(tenantId: string, body: UpdateSettingsBody): Promise<Readonly<SettingsObject>> {
      return store.transaction((trx) => updateIn(trx, tenantId, body));
    },

    /** `update` inside the caller's transaction (a copy of live's settings into test mode). */
    updateIn,

    /** Listens for other processes' changes, so their settings never linger here past a change. */
    start(): void {
      if (listening) return;
      listening = true;
      store.listen(TOPIC, forget, forgetAll);
    },
  };
}
