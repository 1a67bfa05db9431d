import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { randomBase62 } from '../../lib/ids.js';

/**
 * Copies of live's rows into test mode, table by table: each row with the test store's
 * `tenant_id`, a new id of the same prefix (`prod_...`), and every column that names a copied
 * row's id pointing at the copy. Columns the store fills itself (`seq`) are left to it.
 */

type Row = Record<string, unknown>;

/** Columns a copy leaves out: the store numbers them. */
const STORE_FILLED = new Set(['seq']);

/** A new id with the prefix of `id` (`prod_...`), or `id` itself when it has none. */
function sameKindOfId(id: string): string {
  const cut = id.indexOf('_');
  return cut <= 0 ? id : `${id.slice(0, cut)}_${randomBase62(24)}`;
}

/** Deletes the test store's rows of `tables`, in order. */
export async function deleteRows(trx: Db, tables: readonly string[], testId: string): Promise<void> {
  for (const table of tables)
    await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${testId}`.execute(trx);
}

/**
 * Copies live's rows of `tables` (parents first) into the test store. `ids` maps live ids to their
 * copies' and grows with each table; `columnMap` may rewrite a row further (a location of live to
 * the test store's) or drop it (undefined).
 */
export async function copyRows(
  trx: Db,
  tables: readonly string[],
  liveId: string,
  testId: string,
  ids: Map<string, string>,
  rewrite: (table: string, row: Row) => Row | undefined = (_table, row) => row,
): Promise<number> {
  let copied = 0;
  for (const table of tables) {
    const rows = (await sql<Row>`SELECT * FROM ${sql.table(table)} WHERE tenant_id = ${liveId}`.execute(trx))
      .rows;
    for (const row of rows) if (typeof row.id === 'string') ids.set(row.id, sameKindOfId(row.id));
    const copies: Row[] = [];
    for (const row of rows) {
      const copy: Row = {};
      for (const [column, value] of Object.entries(row)) {
        if (STORE_FILLED.has(column)) continue;
        if (column === 'tenant_id') copy[column] = testId;
        else if (typeof value === 'string' && (column === 'id' || column.endsWith('_id')) && ids.has(value)) {
          copy[column] = ids.get(value);
        } else copy[column] = value;
      }
      const rewritten = rewrite(table, copy);
      if (rewritten) copies.push(rewritten);
    }
    for (let i = 0; i < copies.length; i += 100) {
      const batch = copies.slice(i, i + 100);
      const columns = Object.keys(batch[0] as Row);
      await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) VALUES ${sql.join(
        batch.map((row) => sql`(${sql.join(columns.map((c) => row[c]))})`),
      )}`.execute(trx);
    }
    copied += copies.length;
  }
  return copied;
}
