import { type RawBuilder, sql } from 'kysely';
import type { Db, Store } from './store.js';

/**
 * Kept counts of long lists (migration 0031): `list_counts` holds folded counts per tenant, list
 * and key, `list_count_deltas` the +1/-1 rows that triggers add as counted rows come and go, in the
 * writing transaction. The lists:
 *
 * - `events`, keyed by event type;
 * - `deliveries:<endpoint id>`, an endpoint's delivery log, keyed by status;
 * - `orders`, keyed by status (migration 0045: triggers on `orders`);
 * - `customers`, keyed by tag, '' for every customer (migration 0045: added by the customers'
 *   writers, src/modules/customers/customers.repository.ts `adjustCounts`).
 *
 * A count is both tables, read in one statement (one snapshot); `foldListCounts` moves deltas into
 * the folded counts, so few are ever left to add up, and drops a folded count that comes to zero
 * (a deleted endpoint's log leaves no rows behind).
 */

/** Which keys of a list a count takes: one, or all but some. */
export type CountKeys = { only: string } | { except: readonly string[] };

/**
 * How many rows the list holds under `keys`: what `COUNT(*)` of them would answer, at any size.
 * `plus`: a count of rows the list does not hold yet (the audit log's unsealed entries), read in
 * the same statement, so in one snapshot: a row that moves into the list meanwhile counts once.
 */
export async function countList(
  db: Db,
  tenantId: string,
  list: string,
  keys: CountKeys,
  plus?: RawBuilder<unknown>,
): Promise<number> {
  const which =
    'only' in keys
      ? sql`AND key = ${keys.only}`
      : keys.except.length > 0
        ? sql`AND key NOT IN (${sql.join(keys.except)})`
        : sql``;
  const { rows } = await sql<{ n: number | string }>`SELECT
    (SELECT COALESCE(SUM(n), 0) FROM list_counts WHERE tenant_id = ${tenantId} AND list = ${list} ${which}) +
    (SELECT COALESCE(SUM(delta), 0) FROM list_count_deltas
      WHERE tenant_id = ${tenantId} AND list = ${list} ${which})${plus === undefined ? sql`` : sql` + (${plus})`} AS n`.execute(
    db,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Deltas one fold takes at most. */
export const FOLD_BATCH = 5_000;

/**
 * Folds up to `limit` of the oldest deltas into `list_counts`, in one transaction: the deltas a
 * DELETE ... RETURNING took are exactly the ones added, so two processes folding at once never
 * count one twice. Answers how many it folded.
 */
export async function foldListCounts(store: Store, limit = FOLD_BATCH): Promise<number> {
  return store.transaction(async (trx) => {
    const taken = await trx
      .deleteFrom('list_count_deltas')
      .where('seq', 'in', trx.selectFrom('list_count_deltas').select('seq').orderBy('seq').limit(limit))
      .returning(['tenant_id', 'list', 'key', 'delta'])
      .execute();
    const sums = new Map<string, { tenant_id: string; list: string; key: string; n: number }>();
    for (const row of taken) {
      const id = `${row.tenant_id}\u0000${row.list}\u0000${row.key}`;
      const sum = sums.get(id);
      if (sum) sum.n += row.delta;
      else sums.set(id, { tenant_id: row.tenant_id, list: row.list, key: row.key, n: row.delta });
    }
    // In one order: two folds lock count rows alike, never deadlocking.
    for (const id of [...sums.keys()].sort()) {
      const sum = sums.get(id);
      if (!sum || sum.n === 0) continue;
      const folded = await trx
        .insertInto('list_counts')
        .values(sum)
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'list', 'key']).doUpdateSet({ n: sql`list_counts.n + excluded.n` }),
        )
        .returning('n')
        .executeTakeFirst();
      // A count that came to nothing (a deleted endpoint's log, a list emptied) is not kept.
      if (Number(folded?.n) === 0) {
        await trx
          .deleteFrom('list_counts')
          .where('tenant_id', '=', sum.tenant_id)
          .where('list', '=', sum.list)
          .where('key', '=', sum.key)
          .where('n', '=', 0)
          .execute();
      }
    }
    return taken.length;
  });
}
