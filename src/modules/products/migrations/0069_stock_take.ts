import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * PostgreSQL: `take_stock_as_read`, an order's units of one product taken in one statement that
 * the order's COMMIT follows in the same message (release v2.6, issue 43; products.stock-take.ts).
 * It takes them only as the order read them, and only while no count or event would follow:
 *
 * - the product's `stock` moves by all the lines' units, if it stays above zero and the product's
 *   fields in `read` (a JSON object of column to value) are still those values;
 * - each line (`lines`: `[{variant_id, quantity, read}]`, in the order the variants are to be
 *   locked) takes its units from its variant at the store's only location (`spread` 0), if its
 *   stock stays above zero and its fields in `read` are unchanged;
 * - else it raises SQLSTATE `CPS01` and the transaction rolls back: the order is taken the
 *   ordinary way, statement by statement, which answers each case (a refusal, a sell-out's count
 *   and event, a change of price since the read).
 *
 * SQLite needs none: a transaction there makes no round trip. Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
    CREATE FUNCTION take_stock_as_read(p_tenant text, p_product text, p_read jsonb, p_lines jsonb, p_now bigint)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      line jsonb;
      units bigint;
    BEGIN
      SELECT coalesce(sum((l ->> 'quantity')::bigint), 0) INTO units FROM jsonb_array_elements(p_lines) l;
      UPDATE products p SET stock = p.stock - units, updated = p_now
        WHERE p.tenant_id = p_tenant AND p.id = p_product AND p.stock > units
          AND (SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM jsonb_each(to_jsonb(p))
               WHERE p_read ? key) = p_read;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'stock of product % not taken as read', p_product USING ERRCODE = 'CPS01';
      END IF;
      FOR line IN SELECT l FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS a(l, n) ORDER BY n LOOP
        UPDATE product_variants v
          SET stock = v.stock - (line ->> 'quantity')::bigint,
              committed = v.committed + (line ->> 'quantity')::bigint,
              updated = p_now
          WHERE v.tenant_id = p_tenant AND v.id = line ->> 'variant_id' AND v.product_id = p_product
            AND v.spread = 0 AND v.stock > (line ->> 'quantity')::bigint
            AND (SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM jsonb_each(to_jsonb(v))
                 WHERE (line -> 'read') ? key) = line -> 'read';
        IF NOT FOUND THEN
          RAISE EXCEPTION 'stock of variant % not taken as read', line ->> 'variant_id' USING ERRCODE = 'CPS01';
        END IF;
      END LOOP;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`DROP FUNCTION take_stock_as_read(text, text, jsonb, jsonb, bigint)`.execute(db);
}
