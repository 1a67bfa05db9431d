import type { Kysely } from 'kysely';

/** The table as this migration sees it: both the old and the new secret columns. */
interface Before {
  webhook_endpoints: {
    id: string;
    previous_secret: string | null;
    previous_secret_expires_at: number | null;
    retired_secrets: string;
  };
}

/**
 * Every secret a rotation retires keeps signing for 24 hours, however many rotations follow: the
 * one `previous_secret` becomes `retired_secrets`, a JSON array of `{secret, expires_at}`, and an
 * overlap in progress is carried over.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('retired_secrets', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  const store = db as unknown as Kysely<Before>;
  const rotated = await store
    .selectFrom('webhook_endpoints')
    .select(['id', 'previous_secret', 'previous_secret_expires_at'])
    .where('previous_secret', 'is not', null)
    .execute();
  for (const row of rotated) {
    const retired = [
      { secret: row.previous_secret, expires_at: Number(row.previous_secret_expires_at ?? 0) },
    ];
    await store
      .updateTable('webhook_endpoints')
      .set({ retired_secrets: JSON.stringify(retired) })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'bigint').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('retired_secrets').execute();
}
