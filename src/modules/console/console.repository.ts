import type { ConsoleSessionsTable, UsersTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { type TenantSummary, tenantSummaryOf } from '../../lib/principal.js';

export type SessionRow = ConsoleSessionsTable;

/** A live session with the user and tenant it acts for, read in one query. */
export interface SessionWithOwner {
  id_hash: string;
  created: number;
  last_seen: number;
  expires_at: number;
  user: Pick<UsersTable, 'id' | 'email' | 'name' | 'role'>;
  tenant: TenantSummary;
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

export async function findSession(db: Db, idHash: string): Promise<SessionWithOwner | undefined> {
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select([
      's.id_hash',
      's.created',
      's.last_seen',
      's.expires_at',
      'u.id as user_id',
      'u.email',
      'u.name as user_name',
      'u.role',
      't.id as tenant_id',
      't.name as tenant_name',
      't.plan',
      't.currency',
      't.api_version',
      't.hourly_limit',
      't.monthly_limit',
      't.mode',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id_hash: row.id_hash,
    created: Number(row.created),
    last_seen: Number(row.last_seen),
    expires_at: Number(row.expires_at),
    user: { id: row.user_id, email: row.email, name: row.user_name, role: row.role },
    tenant: tenantSummaryOf(row),
  };
}

export async function touchSession(db: Db, idHash: string, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen: now }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<number> {
  const result = await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sessions past their absolute end, or idle since before `idleBefore`. */
export async function deleteExpiredSessions(db: Db, now: number, idleBefore: number): Promise<void> {
  await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen', '<', idleBefore)]))
    .execute();
}

/** A user's password hash, made again at the configured cost. */
export async function setPasswordHash(
  db: Db,
  userId: string,
  passwordHash: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated: now })
    .where('id', '=', userId)
    .execute();
}
