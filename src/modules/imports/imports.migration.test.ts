import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { ImportObject } from './imports.schemas.js';

const T0 = Date.parse('2026-12-01T09:00:00.000Z');

/** A store of the release before imports: a tenant, two products (one with options) and a customer. */
async function writeOldStore(db: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_old', 'Old Store', 'pro', 'EUR', '2026-12-15', ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_old', 'ten_old', 'owner@old.example', 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(db);
  const products = [
    ['prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'Old Lamp', 'OLD-LAMP', 4000, 4000, 3, '[]', 1, 'OLD-LAMP'],
    [
      'prod_OLDOLDOLDOLDOLDOLDOLDOLD2',
      'Old Tee',
      null,
      2000,
      2200,
      9,
      '[{"name":"Size","values":["S","M"]}]',
      2,
      'S\nM\nOLD-TEE-S\nOLD-TEE-M',
    ],
  ] as const;
  for (const [index, [id, name, sku, price, max, stock, options, count, extra]] of products.entries()) {
    await sql`INSERT INTO products (id, tenant_id, name, description, sku, price, currency, category, stock, status,
        images, attributes, tags, options, variant_count, price_max, search_extra, created, updated)
      VALUES (${id}, 'ten_old', ${name}, NULL, ${sku}, ${price}, 'EUR', NULL, ${stock}, 'active', '[]', '{}', '[]',
        ${options}, ${count}, ${max}, ${extra}, ${T0 + index}, ${T0 + index})`.execute(db);
  }
  const variants = [
    ['var_OLDOLDOLDOLDOLDOLDOLDOLD1', products[0][0], 'OLD-LAMP', 'Default', '{}', '[]', 4000, 3, 1],
    [
      'var_OLDOLDOLDOLDOLDOLDOLDOLD2',
      products[1][0],
      'OLD-TEE-S',
      'S',
      '{"Size":"S"}',
      '[["Size","S"]]',
      2000,
      4,
      1,
    ],
    [
      'var_OLDOLDOLDOLDOLDOLDOLDOLD3',
      products[1][0],
      'OLD-TEE-M',
      'M',
      '{"Size":"M"}',
      '[["Size","M"]]',
      2200,
      5,
      2,
    ],
  ] as const;
  for (const [id, product, sku, title, values, key, price, stock, position] of variants) {
    await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options, option_key,
        price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
      VALUES (${id}, 'ten_old', ${product}, ${sku}, ${sku.toLowerCase()}, ${title}, ${values}, ${key}, ${price}, NULL,
        ${stock}, NULL, NULL, ${position}, ${T0}, ${T0})`.execute(db);
  }
  await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
    VALUES ('ten_old', '', 'active', 1, 2)`.execute(db);
  await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note, metadata,
      marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted, created, updated)
    VALUES ('cus_OLDOLDOLDOLDOLDOLDOLDOLD1', 'ten_old', 'Old@Example.com', 'old@example.com', 'Old Timer', NULL,
      '[{"line1":"1 Old Road","city":"Lisbon","country":"PT"}]', '[]', NULL, '{}', 0, 0, '{}', 0, NULL, 0,
      ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO customer_counts (tenant_id, tag, n) VALUES ('ten_old', '', 1)`.execute(db);
}

for (const dialect of DIALECTS) {
  describe(`migration 0025: imports on a store holding data (${dialect})`, () => {
    it('exports what the store held and imports into it', async () => {
      const upgraded = await upgradeFrom(dialect, '0025_analytics_pricing', writeOldStore);
      try {
        const api = await upgraded.clientFor('ten_old', 'usr_old');
        const exported = await api('GET', '/v1/exports/products');
        assert.equal(exported.status, 200);
        assert.equal(
          exported.raw.body,
          [
            'handle,name,description,category,status,tags,currency,images,attributes,option1_name,option1_value,option2_name,option2_value,option3_name,option3_value,sku,price,compare_at_price,stock,weight_grams,barcode',
            // Their handles, made from their names by migration 0038.
            'old-lamp,Old Lamp,,,active,,EUR,,,,,,,,,OLD-LAMP,4000,,3,,',
            'old-tee,Old Tee,,,active,,EUR,,,Size,S,,,,,OLD-TEE-S,2000,,4,,',
            'old-tee,,,,,,,,,,M,,,,,OLD-TEE-M,2200,,5,,',
            '',
          ].join('\r\n'),
        );
        const customers = await api('GET', '/v1/exports/customers?format=jsonl');
        assert.match(customers.raw.body, /^\{"email":"Old@Example.com","name":"Old Timer",/);
        // An import matches the old variants by SKU and adds to the old product.
        const file =
          exported.raw.body.replace('OLD-TEE-M,2200,,5', 'OLD-TEE-M,2300,,5') +
          'old-tee,,,,,,,,,,L,,,,,OLD-TEE-L,2400,,1,,\r\n';
        const res = await api<ImportObject>('POST', '/v1/imports?resource=products', {
          payload: file,
          headers: { 'content-type': 'text/csv' },
        });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        await upgraded.deps.importRunner.drain();
        const done = (await api<ImportObject>('GET', `/v1/imports/${res.body.id}`)).body;
        assert.deepEqual(
          [done.status, done.created_count, done.updated_count, done.unchanged_count],
          ['succeeded', 1, 1, 2],
        );
        const tee = (await api<ProductObject>('GET', '/v1/products/prod_OLDOLDOLDOLDOLDOLDOLDOLD2')).body;
        assert.deepEqual(
          [tee.options, tee.variant_count, tee.price_max, tee.stock],
          [[{ name: 'Size', values: ['S', 'M', 'L'] }], 3, 2400, 10],
        );
        assert.equal((await api<Page<ProductObject>>('GET', '/v1/products')).body.total, 2);
        const indexes =
          dialect === 'sqlite'
            ? (
                await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`.execute(
                  upgraded.deps.store.db,
                )
              ).rows
            : (
                await sql<{
                  name: string;
                }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()`.execute(
                  upgraded.deps.store.db,
                )
              ).rows;
        const names = indexes.map((row) => row.name);
        for (const index of [
          'products_tenant_seq_idx',
          'customers_tenant_seq_idx',
          'imports_tenant_created_idx',
        ]) {
          assert.ok(names.includes(index), index);
        }
      } finally {
        await upgraded.close();
      }
    });
  });
}
