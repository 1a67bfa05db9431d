import { newestFirst } from '../../db/pagination.js';
import type { ApiKeysTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** A publishable key's allowed origins, in the index a CORS preflight reads. */
export async function insertKeyOrigins(
  db: Db,
  key: { id: string; tenant_id: string },
  origins: readonly string[],
): Promise<void> {
  if (origins.length === 0) return;
  await db
    .insertInto('api_key_origins')
    .values(origins.map((origin) => ({ origin, key_id: key.id, tenant_id: key.tenant_id })))
    .execute();
}

/** Whether a key that still works (of any tenant) allows `origin`: one indexed lookup. */
export async function liveKeyAllowsOrigin(db: Db, origin: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('api_key_origins as o')
    .innerJoin('api_keys as k', 'k.id', 'o.key_id')
    .select('o.key_id')
    .where('o.origin', '=', origin)
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The key with its tenant, by hash: one indexed lookup. Revoked and expired rows included. */
export async function findKeyWithTenantByHash(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.user_id',
      'api_keys.permissions',
      'api_keys.type',
      'api_keys.allowed_origins',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'tenants.id as tenant_id',
      'tenants.name as tenant_name',
      'tenants.plan',
      'tenants.currency',
      'tenants.api_version',
      'tenants.hourly_limit',
      'tenants.monthly_limit',
      'tenants.mode',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/**
 * A plugin installation token's installation, its plugin and its tenant, by the token's hash: one
 * indexed lookup. Uninstalled installations included (`uninstalled_at` set).
 */
export async function findAppTokenWithTenantByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('plugin_installations as i')
    .innerJoin('plugins as p', 'p.id', 'i.plugin_id')
    .innerJoin('tenants', 'tenants.id', 'i.tenant_id')
    .select([
      'i.id',
      'i.user_id',
      'i.permissions',
      'i.uninstalled_at',
      'p.id as plugin_id',
      'p.name as plugin_name',
      'tenants.id as tenant_id',
      'tenants.name as tenant_name',
      'tenants.plan',
      'tenants.currency',
      'tenants.api_version',
      'tenants.hourly_limit',
      'tenants.monthly_limit',
      'tenants.mode',
    ])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Keys that still work: not revoked, not expired. */
function liveKeys(db: Db, tenantId: string, now: number) {
  return db
    .selectFrom('api_keys')
    .where('tenant_id', '=', tenantId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
}

/** Every key that still works, newest first. */
export async function listLiveKeys(db: Db, tenantId: string, now: number): Promise<ApiKeyRow[]> {
  return liveKeys(db, tenantId, now).selectAll().orderBy('created', 'desc').orderBy('id', 'desc').execute();
}

/** One page of the keys that still work, newest first, and how many there are. */
export async function pageLiveKeys(db: Db, tenantId: string, now: number, window: PageWindow) {
  const rows = await liveKeys(db, tenantId, now).selectAll().$call(newestFirst(window)).execute();
  const { n } = await liveKeys(db, tenantId, now)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export async function findLiveKey(db: Db, tenantId: string, id: string, now: number) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

/** Revokes a key; its origins leave the preflight's index with it. */
export async function revokeKey(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now, updated: now }).where('id', '=', id).execute();
  await db.deleteFrom('api_key_origins').where('key_id', '=', id).execute();
}

export async function setKeyExpiry(db: Db, id: string, expiresAt: number, now: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ expires_at: expiresAt, updated: now })
    .where('id', '=', id)
    .execute();
}

export async function writeLastUsed(db: Db, entries: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, lastUsed] of entries) {
    await db
      .updateTable('api_keys')
      .set({ last_used: lastUsed })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used', 'is', null), eb('last_used', '<', lastUsed)]))
      .execute();
  }
}
