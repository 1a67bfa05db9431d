import type { Db } from '../../db/store.js';
import type { TenantsTable, UsersTable } from '../../db/schema.js';

export async function insertTenant(db: Db, row: TenantsTable): Promise<void> {
  await db.insertInto('tenants').values(row).execute();
}

export async function insertUser(db: Db, row: UsersTable): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findTenant(db: Db, id: string): Promise<TenantsTable | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A live store's test store, if it was made. */
export async function findTestStore(db: Db, liveTenantId: string): Promise<TenantsTable | undefined> {
  return db.selectFrom('tenants').selectAll().where('live_tenant_id', '=', liveTenantId).executeTakeFirst();
}

export async function findOwner(db: Db, tenantId: string): Promise<UsersTable | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .orderBy('created')
    .executeTakeFirst();
}

export async function findUserByEmail(db: Db, email: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findUser(db: Db, id: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateTenant(
  db: Db,
  id: string,
  changes: Partial<Pick<TenantsTable, 'plan' | 'hourly_limit' | 'monthly_limit' | 'api_version'>>,
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('tenants')
    .set({ ...changes, updated: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function countTenants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
