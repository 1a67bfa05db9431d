import type { AppRuntimeTokensTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

/** The first-party apps' own storage (migration 0029): their tokens and their marks. */

export async function saveToken(db: Db, row: AppRuntimeTokensTable): Promise<void> {
  await db
    .insertInto('app_runtime_tokens')
    .values(row)
    .onConflict((oc) => oc.column('installation_id').doUpdateSet({ token_ciphertext: row.token_ciphertext }))
    .execute();
}

export async function findToken(db: Db, pluginId: string, installationId: string) {
  return db
    .selectFrom('app_runtime_tokens')
    .selectAll()
    .where('plugin_id', '=', pluginId)
    .where('installation_id', '=', installationId)
    .executeTakeFirst();
}

/** Forgets an installation: its token and every mark the app left for that store. */
export async function forgetInstallation(
  db: Db,
  installationId: string,
  pluginId: string,
  tenantId: string,
): Promise<void> {
  await db.deleteFrom('app_runtime_tokens').where('installation_id', '=', installationId).execute();
  await db
    .deleteFrom('app_runtime_marks')
    .where('plugin_id', '=', pluginId)
    .where('tenant_id', '=', tenantId)
    .execute();
}

export async function addMark(db: Db, pluginId: string, tenantId: string, mark: string, now: number) {
  await db
    .insertInto('app_runtime_marks')
    .values({ plugin_id: pluginId, tenant_id: tenantId, mark, created: now })
    .onConflict((oc) => oc.columns(['plugin_id', 'tenant_id', 'mark']).doNothing())
    .execute();
}

export async function hasMark(db: Db, pluginId: string, tenantId: string, mark: string): Promise<boolean> {
  const row = await db
    .selectFrom('app_runtime_marks')
    .select('mark')
    .where('plugin_id', '=', pluginId)
    .where('tenant_id', '=', tenantId)
    .where('mark', '=', mark)
    .executeTakeFirst();
  return row !== undefined;
}

export async function removeMark(db: Db, pluginId: string, tenantId: string, mark: string) {
  await db
    .deleteFrom('app_runtime_marks')
    .where('plugin_id', '=', pluginId)
    .where('tenant_id', '=', tenantId)
    .where('mark', '=', mark)
    .execute();
}
