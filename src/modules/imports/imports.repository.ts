import type { Selectable } from 'kysely';
import type { ImportErrorsTable, ImportsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import { CUSTOMER_COLUMNS, type CustomerRow } from '../customers/index.js';
import type { VariantRow } from '../products/index.js';

/** Imports, their errors and their uploaded files; and the reads the importer matches rows with. */

export type ImportRow = Selectable<ImportsTable>;
export type ImportErrorRow = Selectable<ImportErrorsTable>;

/** How many of an import's errors its object shows. */
export const ERRORS_SHOWN = 100;

export async function insertImport(db: Db, row: ImportRow): Promise<void> {
  await db.insertInto('imports').values(row).execute();
}

export async function insertChunk(db: Db, importId: string, seq: number, data: Buffer): Promise<void> {
  await db.insertInto('import_chunks').values({ import_id: importId, seq, data }).execute();
}

export async function readChunk(db: Db, importId: string, seq: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('import_chunks')
    .select('data')
    .where('import_id', '=', importId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.data;
}

export async function deleteChunks(db: Db, importId: string): Promise<void> {
  await db.deleteFrom('import_chunks').where('import_id', '=', importId).execute();
}

export async function findImport(db: Db, tenantId: string, id: string): Promise<ImportRow | undefined> {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An import by id alone: for the runner, which works for every tenant. */
export async function importById(db: Db, id: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listImports(db: Db, tenantId: string, window: PageWindow): Promise<ImportRow[]> {
  let query = db.selectFrom('imports').selectAll().where('tenant_id', '=', tenantId);
  if (window.cursor) {
    const [created, id] = window.cursor.after;
    query = query.where((eb) => eb(eb.refTuple('created', 'id'), '<', eb.tuple(Number(created), id)));
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  return query
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(window.limit + 1)
    .execute();
}

export async function countImports(db: Db, tenantId: string): Promise<number> {
  const { n } = await db
    .selectFrom('imports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The first `ERRORS_SHOWN` errors of each import, in the order found. */
export async function firstErrors(db: Db, importIds: readonly string[]): Promise<ImportErrorRow[]> {
  if (importIds.length === 0) return [];
  return db
    .selectFrom('import_errors')
    .selectAll()
    .where('import_id', 'in', [...importIds])
    .where('seq', '<', ERRORS_SHOWN)
    .orderBy('import_id')
    .orderBy('seq')
    .execute();
}

/** A page of an import's errors in the order found: a seek past the cursor's `seq`, else OFFSET. */
export async function listErrors(db: Db, importId: string, window: PageWindow): Promise<ImportErrorRow[]> {
  let query = db.selectFrom('import_errors').selectAll().where('import_id', '=', importId);
  if (window.cursor) query = query.where('seq', '>', Number(window.cursor.after[0]));
  else if (window.offset > 0) query = query.where('seq', '>=', window.offset);
  return query
    .orderBy('seq')
    .limit(window.limit + 1)
    .execute();
}

export async function insertErrors(db: Db, rows: readonly ImportErrorRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('import_errors')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** The lines between `from` and `to` that already have an error (found by the validating pass). */
export async function linesWithErrors(
  db: Db,
  importId: string,
  from: number,
  to: number,
): Promise<Set<number>> {
  const rows = await db
    .selectFrom('import_errors')
    .select('line')
    .distinct()
    .where('import_id', '=', importId)
    .where('line', '>=', from)
    .where('line', '<=', to)
    .execute();
  return new Set(rows.map((row) => Number(row.line)));
}

/** Imports a runner may take: not finished, and no live lease on them; oldest first. */
export async function claimable(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('imports')
    .select('id')
    .where('status', 'in', ['queued', 'running'])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('created')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes an import for `owner` until `leaseUntil`: a conditional update that succeeds for one
 * claimant only, and only while nobody else's lease is live. True when this call took it.
 */
export async function claim(
  db: Db,
  id: string,
  owner: string,
  now: number,
  leaseUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set((eb) => ({
      claimed_by: owner,
      lease_until: leaseUntil,
      status: 'running',
      attempts: eb('attempts', '+', 1),
      started_at: eb.fn.coalesce('started_at', eb.val(now)),
      updated: now,
    }))
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Writes `changes` to the import while `owner` still holds it: false (nothing written) when another
 * runner took it over. Run first in a batch's transaction: on PostgreSQL it also locks the row, so
 * no one can take the import over until the batch commits.
 */
export async function whileHeld(
  db: Db,
  id: string,
  owner: string,
  changes: Partial<Omit<ImportRow, 'id' | 'tenant_id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set(changes)
    .where('id', '=', id)
    .where('claimed_by', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function tenantCurrency(db: Db, tenantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('tenants').select('currency').where('id', '=', tenantId).executeTakeFirst();
  return row?.currency;
}

/** The tenant's variants with these lower-cased SKUs. */
export async function variantsBySkuKeys(
  db: Db,
  tenantId: string,
  keys: readonly string[],
): Promise<VariantRow[]> {
  const out: VariantRow[] = [];
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += 500) {
    out.push(
      ...(await db
        .selectFrom('product_variants')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('sku_key', 'in', unique.slice(i, i + 500))
        .execute()),
    );
  }
  return out;
}

/** A product's variants with these combinations (`option_key`). */
export async function variantsByOptionKeys(
  db: Db,
  tenantId: string,
  productId: string,
  keys: readonly string[],
): Promise<VariantRow[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .where('option_key', 'in', [...new Set(keys)])
    .execute();
}

/** The tenant's customers with these lower-cased emails; `lock` takes their row locks (PostgreSQL). */
export async function customersByEmailKeys(
  db: Db,
  tenantId: string,
  keys: readonly string[],
  lock: boolean,
): Promise<CustomerRow[]> {
  const unique = [...new Set(keys)].sort();
  if (unique.length === 0) return [];
  const out: CustomerRow[] = [];
  for (let i = 0; i < unique.length; i += 500) {
    let query = db
      .selectFrom('customers')
      .select(CUSTOMER_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('email_key', 'in', unique.slice(i, i + 500))
      .orderBy('email_key');
    if (lock) query = query.forUpdate();
    out.push(...(await query.execute()));
  }
  return out;
}
