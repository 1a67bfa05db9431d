import type { AiGenerationsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

export type GenerationRow = AiGenerationsTable;

export async function insertGeneration(db: Db, row: GenerationRow): Promise<void> {
  await db.insertInto('ai_generations').values(row).execute();
}
