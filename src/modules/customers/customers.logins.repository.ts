import type { Db } from '../../db/store.js';
import { CUSTOMER_COLUMNS, type CustomerRow } from './customers.repository.js';

/**
 * A customer's storefront login (migration 0040): its password hash, its sessions and its pending
 * password resets. The customer's data, kept here so that its privacy export and erasure (and its
 * deletion) reach them; the shoppers module runs the storefront's sign-up, sign-in and resets over
 * these functions. Sessions and resets are found by the SHA-256 of their token: the tokens are
 * never stored. Every function takes `db` or the use case's transaction.
 */

export interface LoginSummary {
  created: number;
  updated: number;
  sessions: number;
}

/** The customer of `email` (case-insensitive) with its password hash, null without a login. */
export async function findCustomerWithLogin(
  db: Db,
  tenantId: string,
  email: string,
): Promise<{ customer: CustomerRow; passwordHash: string | null } | undefined> {
  const row = await db
    .selectFrom('customers as c')
    .leftJoin('customer_logins as l', (join) =>
      join.onRef('l.tenant_id', '=', 'c.tenant_id').onRef('l.customer_id', '=', 'c.id'),
    )
    .select(CUSTOMER_COLUMNS.map((column) => `c.${column}` as const))
    .select('l.password_hash')
    .where('c.tenant_id', '=', tenantId)
    .where('c.email_key', '=', email.toLowerCase())
    .executeTakeFirst();
  if (!row) return undefined;
  const { password_hash: passwordHash, ...customer } = row;
  return { customer, passwordHash };
}

export async function findPasswordHash(db: Db, tenantId: string, customerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('customer_logins')
    .select('password_hash')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.password_hash ?? null;
}

/** Sets the customer's password hash, creating its login when it has none. */
export async function setPasswordHash(
  db: Db,
  tenantId: string,
  customerId: string,
  passwordHash: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('customer_logins')
    .values({
      tenant_id: tenantId,
      customer_id: customerId,
      password_hash: passwordHash,
      created: now,
      updated: now,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'customer_id']).doUpdateSet({ password_hash: passwordHash, updated: now }),
    )
    .execute();
}

export async function insertSession(
  db: Db,
  row: { token_hash: string; tenant_id: string; customer_id: string; created: number; expires_at: number },
): Promise<void> {
  await db.insertInto('customer_sessions').values(row).execute();
}

/** The customer of a live session of the tenant (its token's hash), unless erased. */
export async function findSessionCustomer(
  db: Db,
  tenantId: string,
  tokenHash: string,
  now: number,
): Promise<{ customer: CustomerRow; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('customer_sessions as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .select(CUSTOMER_COLUMNS.map((column) => `c.${column}` as const))
    .select('s.expires_at as session_expires_at')
    .where('s.token_hash', '=', tokenHash)
    .where('s.tenant_id', '=', tenantId)
    .where('c.tenant_id', '=', tenantId)
    .where('s.expires_at', '>', now)
    .where('c.redacted', '=', 0)
    .executeTakeFirst();
  if (!row) return undefined;
  const { session_expires_at: expiresAt, ...customer } = row;
  return { customer, expiresAt: Number(expiresAt) };
}

export async function deleteSession(db: Db, tenantId: string, tokenHash: string): Promise<number> {
  const result = await db
    .deleteFrom('customer_sessions')
    .where('token_hash', '=', tokenHash)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ends the customer's sessions, but for the one of `keepTokenHash` when given. */
export async function deleteSessionsOf(
  db: Db,
  tenantId: string,
  customerId: string,
  keepTokenHash?: string,
): Promise<void> {
  let query = db
    .deleteFrom('customer_sessions')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId);
  if (keepTokenHash !== undefined) query = query.where('token_hash', '<>', keepTokenHash);
  await query.execute();
}

export async function insertPasswordReset(
  db: Db,
  row: { token_hash: string; tenant_id: string; customer_id: string; created: number; expires_at: number },
): Promise<void> {
  await db.insertInto('customer_password_resets').values(row).execute();
}

/** The customer a live reset token of the tenant is for, unless erased. */
export async function findPasswordReset(
  db: Db,
  tenantId: string,
  tokenHash: string,
  now: number,
): Promise<{ customerId: string } | undefined> {
  const row = await db
    .selectFrom('customer_password_resets as r')
    .innerJoin('customers as c', 'c.id', 'r.customer_id')
    .select('r.customer_id')
    .where('r.token_hash', '=', tokenHash)
    .where('r.tenant_id', '=', tenantId)
    .where('c.tenant_id', '=', tenantId)
    .where('r.expires_at', '>', now)
    .where('c.redacted', '=', 0)
    .executeTakeFirst();
  return row ? { customerId: row.customer_id } : undefined;
}

/**
 * Takes the live reset token of `tokenHash` for `customerId`: true when this call took it (the
 * token is then gone, with the customer's other pending resets), false when another took it first
 * or it expired. Single use, however many confirmations race.
 */
export async function takePasswordReset(
  db: Db,
  tenantId: string,
  customerId: string,
  tokenHash: string,
  now: number,
): Promise<boolean> {
  const taken = await db
    .deleteFrom('customer_password_resets')
    .where('token_hash', '=', tokenHash)
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(taken.numDeletedRows) !== 1) return false;
  await db
    .deleteFrom('customer_password_resets')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .execute();
  return true;
}

/** Sessions and resets past their end, at most `limit` of each: the periodic purge. */
export async function deleteExpired(db: Db, now: number, limit: number): Promise<number> {
  let deleted = 0;
  for (const table of ['customer_sessions', 'customer_password_resets'] as const) {
    const expired = db.selectFrom(table).select('token_hash').where('expires_at', '<=', now).limit(limit);
    const result = await db.deleteFrom(table).where('token_hash', 'in', expired).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/** Whether the customer has a login, since when, and its live sessions: what its export says. */
export async function loginSummary(
  db: Db,
  tenantId: string,
  customerId: string,
  now: number,
): Promise<LoginSummary | null> {
  const login = await db
    .selectFrom('customer_logins')
    .select(['created', 'updated'])
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  if (!login) return null;
  const { n } = await db
    .selectFrom('customer_sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { created: Number(login.created), updated: Number(login.updated), sessions: Number(n) };
}

/** Deletes the customer's login, sessions and pending resets: its erasure and its deletion. */
export async function forgetLogin(db: Db, tenantId: string, customerId: string): Promise<void> {
  for (const table of ['customer_password_resets', 'customer_sessions', 'customer_logins'] as const) {
    await db
      .deleteFrom(table)
      .where('tenant_id', '=', tenantId)
      .where('customer_id', '=', customerId)
      .execute();
  }
}
