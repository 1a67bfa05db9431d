import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * Products gain `handle` (release v2.6): the name a storefront's URL uses, lowercase `a-z 0-9 -`,
 * unique per tenant (`products_tenant_handle_idx`). Every existing product gets one made from its
 * name, as a new product without a handle does: `Classic Tee` is `classic-tee`, and a later product
 * of the same name, by (created, id), `classic-tee-2`, `classic-tee-3`... A name with nothing
 * Latin in it is `product`.
 *
 * On PostgreSQL the column compares byte by byte (`COLLATE "C"`), as SQLite's text does, so a
 * range of handles (`classic-tee-0` to `classic-tee-:`, every numbered one) is one range of the
 * index on both stores.
 *
 * The product objects of stored events (`object_type = 'product'`, which queued webhook deliveries
 * render when they are sent) gain `handle` too, so an event written before reads as a new one in
 * version 2027-01-20: the product's handle, or, for a product deleted since, the one its name makes.
 *
 * Frozen: `slugify` below is its own copy of the products module's (products.handles.ts as it was
 * when this was written).
 */

/** Products read, and handles written, per statement. */
const BATCH = 500;
/** The longest base a handle is made from: room for a `-N` suffix within 255. */
const MAX_BASE = 240;

/** Letters NFKD does not take apart into a base letter and marks. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŋ: 'n',
  ſ: 's',
};

function slugify(name: string): string {
  const latin = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæøœđðłþıħŋſ]/g, (letter) => LETTERS[letter] ?? letter)
    .replace(/['’‘`]/g, '');
  const slug = latin
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE)
    .replace(/-+$/, '');
  return slug === '' ? 'product' : slug;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`ALTER TABLE products ADD COLUMN handle text`.execute(db);
  else await sql`ALTER TABLE products ADD COLUMN handle text COLLATE "C"`.execute(db);
  // Made before the handles are written (every one is null until then, and nulls never clash):
  // on PostgreSQL the rewrite leaves the catalog's deferred triggers pending, before which no
  // index can be made in the migration's transaction.
  await db.schema
    .createIndex('products_tenant_handle_idx')
    .unique()
    .on('products')
    .columns(['tenant_id', 'handle'])
    .execute();

  // SQLite runs migrations outside a transaction: one for the rewrite, not one per statement.
  const fill = async (trx: Kysely<unknown>) => {
    let tenant: string | undefined;
    let used = new Set<string>();
    let after: { tenant_id: string; created: number; id: string } | undefined;
    for (;;) {
      const seek =
        after === undefined
          ? sql``
          : sql`WHERE (tenant_id, created, id) > (${after.tenant_id}, ${after.created}, ${after.id})`;
      const { rows } = await sql<{ tenant_id: string; created: number | string; id: string; name: string }>`
        SELECT tenant_id, created, id, name FROM products ${seek}
        ORDER BY tenant_id, created, id LIMIT ${BATCH}`.execute(trx);
      const handles: { tenant_id: string; id: string; handle: string }[] = [];
      for (const row of rows) {
        if (row.tenant_id !== tenant) {
          tenant = row.tenant_id;
          used = new Set();
        }
        const base = slugify(row.name);
        let handle = base;
        for (let n = 2; used.has(handle); n++) handle = `${base}-${n}`;
        used.add(handle);
        handles.push({ tenant_id: row.tenant_id, id: row.id, handle });
      }
      const byTenant = new Map<string, typeof handles>();
      for (const entry of handles) {
        const list = byTenant.get(entry.tenant_id);
        if (list === undefined) byTenant.set(entry.tenant_id, [entry]);
        else list.push(entry);
      }
      for (const [tenantId, ofTenant] of byTenant) {
        const values = sql.join(ofTenant.map((entry) => sql`(${entry.id}, ${entry.handle})`));
        await sql`WITH given (id, handle) AS (VALUES ${values})
          UPDATE products SET handle = (SELECT given.handle FROM given WHERE given.id = products.id)
          WHERE tenant_id = ${tenantId} AND id IN (SELECT id FROM given)`.execute(trx);
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < BATCH) break;
      after = { tenant_id: last.tenant_id, created: Number(last.created), id: last.id };
    }
  };
  if (sqlite) await db.transaction().execute(fill);
  else await fill(db);

  const events = async (trx: Kysely<unknown>) => {
    let after: { created: number; id: string } | undefined;
    for (;;) {
      const seek = after === undefined ? sql`` : sql`AND (created, id) > (${after.created}, ${after.id})`;
      const { rows } = await sql<{ id: string; created: number | string; object_id: string; data: string }>`
        SELECT id, created, object_id, data FROM events WHERE object_type = 'product' ${seek}
        ORDER BY created, id LIMIT ${BATCH}`.execute(trx);
      const ids = [...new Set(rows.map((row) => row.object_id))];
      const { rows: products } =
        ids.length === 0
          ? { rows: [] }
          : await sql<{ id: string; handle: string }>`
              SELECT id, handle FROM products WHERE id IN (${sql.join(ids)})`.execute(trx);
      const handleOf = new Map(products.map((product) => [product.id, product.handle]));
      for (const row of rows) {
        const data = withHandle(row.data, handleOf.get(row.object_id));
        if (data !== undefined) await sql`UPDATE events SET data = ${data} WHERE id = ${row.id}`.execute(trx);
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < BATCH) break;
      after = { created: Number(last.created), id: last.id };
    }
  };
  if (sqlite) await db.transaction().execute(events);
  else await events(db);
}

/**
 * A stored product object with `handle` after its `id`: `handle`, or the one its name makes when
 * the product is gone. Undefined when it has one already or is not a product object.
 */
function withHandle(text: string, handle: string | undefined): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const product = body as Record<string, unknown>;
  if ('handle' in product || typeof product.id !== 'string') return undefined;
  const { id, ...rest } = product;
  const made = handle ?? slugify(typeof product.name === 'string' ? product.name : '');
  return JSON.stringify({ id, handle: made, ...rest });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('products_tenant_handle_idx').execute();
  await sql`ALTER TABLE products DROP COLUMN handle`.execute(db);
}
