import type { AiGenerationsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

export type GenerationRow = AiGenerationsTable;

export async function insertGeneration(db: Db, row: GenerationRow): Promise<void> {
  await db.insertInto('ai_generations').values(row).execute();
}

export async function findGeneration(
  db: Db,
  tenantId: string,
  id: string,
): Promise<GenerationRow | undefined> {
  return db
    .selectFrom('ai_generations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
