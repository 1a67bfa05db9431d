import type { TenantsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { openDefaultLocation } from '../inventory/index.js';
import { openTenantWallet } from '../wallet/index.js';
import { rememberLivemode } from './tenants.modes.js';
import * as repo from './tenants.repository.js';

/** The settings a new store starts with (`/settings`; migration 0041 gave existing stores the same). */
export const SETTING_DEFAULTS = {
  unpaid_order_expiry_minutes: 1440,
  storefront_hold_minutes: null,
  storefront_abandoned_after_minutes: 60,
  storefront_recovery_url_template: null,
  storefront_requests_per_minute: 120,
} as const satisfies Partial<TenantsTable>;

export type StoreFields = Pick<
  TenantsTable,
  'name' | 'plan' | 'currency' | 'api_version' | 'mode' | 'live_tenant_id'
>;

/**
 * A store's row and what every store starts with (its wallet, its default location), inside the caller's transaction:
 * the one path that makes a store, a live one (`TenantService.create`) or a test one
 * (`pairedStoreOf`). What a new store must hold from its first moment belongs here.
 */
export async function insertStore(trx: Db, fields: StoreFields, now: number): Promise<TenantsTable> {
  const tenant: TenantsTable = {
    id: newId('ten'),
    ...fields,
    hourly_limit: null,
    monthly_limit: null,
    created: now,
    updated: now,
    ...SETTING_DEFAULTS,
  };
  await repo.insertTenant(trx, tenant);
  await openTenantWallet(trx, tenant.id, tenant.currency, now);
  await openDefaultLocation(trx, tenant.id, now);
  rememberLivemode(tenant.id, tenant.mode === 'live');
  return tenant;
}

/**
 * The store of `mode` paired with a store: itself when it is of that mode; its live store; or
 * its test store, made (by `insertStore`, with the live store's name, plan, currency and version)
 * the first time it is needed. Two processes asking at once get the same one (the unique index
 * on `live_tenant_id` refuses the second).
 */
export async function pairedStoreOf(
  store: Store,
  now: () => number,
  tenantId: string,
  mode: 'live' | 'test',
): Promise<TenantsTable> {
  const tenant = await repo.findTenant(store.db, tenantId);
  if (!tenant) throw notFound('tenant');
  if (tenant.mode === mode) return tenant;
  if (mode === 'live') {
    const live =
      tenant.live_tenant_id === null ? undefined : await repo.findTenant(store.db, tenant.live_tenant_id);
    if (!live) throw notFound('tenant');
    return live;
  }
  const found = await repo.findTestStore(store.db, tenant.id);
  if (found) return found;
  try {
    return await store.transaction(async (trx) => {
      const existing = await repo.findTestStore(trx, tenant.id);
      if (existing) return existing;
      return insertStore(
        trx,
        {
          name: tenant.name,
          plan: tenant.plan,
          currency: tenant.currency,
          api_version: tenant.api_version,
          mode: 'test',
          live_tenant_id: tenant.id,
        },
        now(),
      );
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const made = await repo.findTestStore(store.db, tenant.id);
    if (!made) throw error;
    return made;
  }
}
