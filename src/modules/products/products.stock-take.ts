import { type RawBuilder, sql } from 'kysely';
import { inline } from '../../db/pg-transaction.js';
import type { Db } from '../../db/store.js';
import { PRODUCT_COLUMNS, type ProductRow } from './products.repository.js';
import type { VariantRow } from './variants.repository.js';

/**
 * PostgreSQL: an order's units of one product taken in one statement (one round trip where it
 * was one per row). The product's `stock` moves by all its lines' units first, locking its row
 * (a data-modifying `WITH` whose result the variants' update waits for: the product is locked
 * before its variants, as every writer of variants takes them); then each line's variant gives
 * its units with the same conditional update as `reserveVariantStock` (never below zero, the
 * default location's only while no other holds any). A product busy with other orders (a flash
 * sale's) is then held for this statement and the commit only.
 *
 * Answers the product as moved (undefined when it is gone) and the variants that gave their
 * units; a line missing from them is the caller's to take elsewhere or refuse, as after
 * `reserveVariantStock`.
 */
export async function takeProductStock(
  db: Db,
  tenantId: string,
  productId: string,
  lines: readonly { variant_id: string; quantity: number }[],
  now: number,
): Promise<{ product: ProductRow | undefined; variants: VariantRow[] }> {
  const units = lines.reduce((sum, line) => sum + line.quantity, 0);
  const wanted = sql.join(lines.map((line) => sql`(${line.variant_id}::text, ${line.quantity}::bigint)`));
  const columns = sql.join(PRODUCT_COLUMNS.map((column) => sql.ref(column)));
  const { rows } = await sql<{ product: ProductRow | null; variants: VariantRow[] | null }>`
    WITH moved AS (
      UPDATE products SET stock = stock - ${units}::bigint, updated = ${now}::bigint
      WHERE tenant_id = ${tenantId} AND id = ${productId}
      RETURNING ${columns}
    ),
    wanted (id, quantity) AS (VALUES ${wanted}),
    taken AS (
      UPDATE product_variants v
      SET stock = v.stock - w.quantity, committed = v.committed + w.quantity, updated = ${now}::bigint
      FROM wanted w
      WHERE v.tenant_id = ${tenantId} AND v.id = w.id AND v.stock >= w.quantity AND v.spread = 0
        AND EXISTS (SELECT 1 FROM moved)
      RETURNING v.*
    )
    SELECT (SELECT row_to_json(moved) FROM moved) AS product,
           (SELECT json_agg(taken ORDER BY taken.id) FROM taken) AS variants`.execute(db);
  const row = rows[0];
  return { product: row?.product ?? undefined, variants: row?.variants ?? [] };
}

/** SQLSTATE of `take_stock_as_read` declining (migration 0069): the order is taken the ordinary way. */
const NOT_AS_READ = 'CPS01';

/** Whether `error` is `take_stock_as_read` declining. */
export function isNotTakenAsRead(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === NOT_AS_READ;
}

/**
 * PostgreSQL: the statement that takes an order's units of one product only as the order read
 * them (`read`: the product's fields the order depends on; each line's variant's likewise) and
 * only while its product and variants stay above zero (no count or event to follow), else fails
 * with `isNotTakenAsRead` (migration 0069). Its values are inline, for `store.commitWith`: the
 * statement and the COMMIT go as one message, and the product is held for no round trip.
 * `lines`: in the order the variants are to be locked (by id).
 */
export function stockTakenAsRead(
  tenantId: string,
  productId: string,
  read: Record<string, unknown>,
  lines: readonly { variant_id: string; quantity: number; read: Record<string, unknown> }[],
  now: number,
): RawBuilder<unknown> {
  return sql`SELECT take_stock_as_read(${inline(tenantId)}, ${inline(productId)},
    ${inline(JSON.stringify(read))}::jsonb, ${inline(JSON.stringify(lines))}::jsonb, ${inline(now)}::bigint)`;
}
