import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Page } from '../../../test/helpers/responses.js';
import * as pricingRules from '../../db/migrations/0023_pricing_rules.js';
import type { Db } from '../../db/store.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { DiscountObject } from './discounts.schemas.js';
import type { ShippingRateObject, TaxRateObject } from './rates.schemas.js';

const T0 = Date.parse('2026-12-01T09:00:00.000Z');

/** A store of the previous release (migrations up to 0022): a tenant, its owner and a paid order. */
async function writeOldStore(old: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_old', 'Old shop', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_old', 'ten_old', 'owner@old.example', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
  await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_name,
      shipping_address, metadata, payment_id, carrier, tracking_number, restocked, created, updated,
      paid_at, shipped_at, delivered_at, cancelled_at, refunded_at)
    VALUES ('ord_old', 'ten_old', 'pending', 'USD', 2500, 2500, 'ana@example.com', 'Ana', NULL, '{}', NULL,
      NULL, NULL, 0, ${T0}, ${T0}, NULL, NULL, NULL, NULL, NULL)`.execute(old);
  await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id, variant_title, name,
      sku, category, quantity, unit_price, total, discount, tax, paid, refunded_quantity)
    VALUES ('ord_old', 0, 'ten_old', 'prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'var_OLDOLDOLDOLDOLDOLDOLDOLD1', 'Default',
      'Old thing', NULL, NULL, 1, 2500, 2500, 0, 0, 2500, 0)`.execute(old);
  await sql`INSERT INTO order_counts (tenant_id, status, n) VALUES ('ten_old', 'pending', 1)`.execute(old);
}

for (const dialect of DIALECTS) {
  describe(`migration 0023 to pricing rules (${dialect})`, () => {
    it('adds empty pricing tables to a store with data; the rules work and the old data is intact', async () => {
      const store = await upgradeFrom(dialect, '0022_order_pricing', writeOldStore);
      try {
        const api = await store.clientFor('ten_old', 'usr_old');
        for (const url of ['/v1/discounts', '/v1/shipping-rates', '/v1/tax-rates']) {
          const list = await api<Page<unknown>>('GET', url);
          assert.deepEqual([list.status, list.body.total, list.body.data], [200, 0, []], url);
        }
        const order = await api<OrderObject>('GET', '/v1/orders/ord_old');
        assert.deepEqual([order.status, order.body.total, order.body.items.length], [200, 2500, 1]);

        const discount = await api<DiscountObject>('POST', '/v1/discounts', {
          body: { code: 'welcome', type: 'fixed_amount', value: 500, currency: 'USD', usage_limit: 3 },
        });
        assert.equal(discount.status, 201, JSON.stringify(discount.body));
        assert.deepEqual([discount.body.times_used, discount.body.status], [0, 'active']);
        const twin = await api('POST', '/v1/discounts', { body: { code: 'WELCOME', type: 'free_shipping' } });
        assert.equal(twin.status, 409);
        // Automatic discounts have no code: the unique index lets them all through.
        for (let i = 0; i < 2; i++) {
          const auto = await api('POST', '/v1/discounts', {
            body: { automatic: true, type: 'free_shipping' },
          });
          assert.equal(auto.status, 201);
        }
        const rate = await api<ShippingRateObject>('POST', '/v1/shipping-rates', {
          body: { name: 'Standard', countries: ['US'], price: 500, currency: 'USD' },
        });
        assert.equal(rate.status, 201, JSON.stringify(rate.body));
        const tax = await api<TaxRateObject>('POST', '/v1/tax-rates', {
          body: { name: 'VAT', country: 'DE', rate_bps: 1900, inclusive: true, shipping_taxable: true },
        });
        assert.equal(tax.status, 201, JSON.stringify(tax.body));
        // The one rate per (country, state) holds in the store itself, where state is null too.
        await assert.rejects(
          store.deps.store.db
            .insertInto('tax_rates')
            .values({ ...taxRow(tax.body), id: 'txr_twin' })
            .execute(),
        );

        // And back: 0023's down drops exactly its tables, and its up makes them again, empty.
        const db = store.deps.store.db as unknown as Kysely<unknown>;
        await pricingRules.down(db);
        for (const table of ['discounts', 'discount_customer_uses', 'shipping_rates', 'tax_rates']) {
          await assert.rejects(sql`SELECT count(*) FROM ${sql.table(table)}`.execute(db), table);
        }
        assert.equal((await api<OrderObject>('GET', '/v1/orders/ord_old')).body.total, 2500);
        await pricingRules.up(db);
        const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM discounts`.execute(db);
        assert.equal(Number(rows[0]?.n), 0);
      } finally {
        await store.close();
      }
    });
  });
}

function taxRow(tax: TaxRateObject) {
  return {
    id: tax.id,
    tenant_id: 'ten_old',
    name: tax.name,
    country: tax.country,
    state: null,
    state_key: '',
    rate_bps: tax.rate_bps,
    inclusive: 1,
    shipping_taxable: 1,
    created: T0,
    updated: T0,
  };
}

/** Tax rates as the release before 0035 stored them: states as typed, keys trimmed and upper-cased. */
const OLD_RATES: [id: string, country: string, state: string | null][] = [
  ['txr_us', 'US', null],
  ['txr_ca_zw', 'US', 'ca\u200b'],
  ['txr_ca_name', 'US', 'California'],
  ['txr_calif', 'US', 'Calif'],
  ['txr_blank', 'US', '\u200b'],
  ['txr_qc', 'CA', 'Que\u0301bec'],
  ['txr_by', 'DE', 'by'],
  ['txr_gg', 'GG', ' St.  Peter\u200b Port'],
];

async function writeOldRates(old: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_old', 'Old shop', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_old', 'ten_old', 'owner@old.example', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
  for (const [index, [id, country, state]] of OLD_RATES.entries()) {
    await sql`INSERT INTO tax_rates (id, tenant_id, name, country, state, state_key, rate_bps, inclusive,
        shipping_taxable, created, updated)
      VALUES (${id}, 'ten_old', ${id}, ${country}, ${state}, ${(state ?? '').trim().toUpperCase()},
        ${100 + index}, 0, 0, ${T0 + index}, ${T0 + index})`.execute(old);
  }
}

for (const dialect of DIALECTS) {
  describe(`migration 0035 to normalised states (${dialect})`, () => {
    it("rewrites stored tax rates' states in the form addresses are matched in; orders then find them", async () => {
      const store = await upgradeFrom(dialect, '0033_catalog_versions', writeOldRates);
      try {
        const rows = await store.deps.store.db
          .selectFrom('tax_rates')
          .select(['id', 'state', 'state_key'])
          .orderBy('id')
          .execute();
        assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, [row.state, row.state_key]])), {
          txr_us: [null, ''],
          txr_ca_zw: ['CA', 'CA'],
          // Now one state with the older rate, which keeps it: left as it was, matching no address.
          txr_ca_name: ['California', 'CALIFORNIA'],
          // No state of the US: kept, as text.
          txr_calif: ['Calif', 'CALIF'],
          // Blank once normalised: left as it was (it never was the country's own rate).
          txr_blank: ['\u200b', '\u200b'],
          txr_qc: ['QC', 'QC'],
          txr_by: ['BY', 'BY'],
          txr_gg: ['St. Peter Port', 'ST. PETER PORT'],
        });

        const api = await store.clientFor('ten_old', 'usr_old');
        const lamp = await api<{ id: string }>('POST', '/v1/products', {
          body: { name: 'Lamp', price: 1000, stock: 10 },
        });
        assert.equal(lamp.status, 201, JSON.stringify(lamp.body));
        const taxedBy = async (country: string, state: string) => {
          const res = await api<OrderObject>('POST', '/v1/orders/preview', {
            body: {
              items: [{ product_id: lamp.body.id, quantity: 1 }],
              customer: { email: 'buyer@old.example' },
              shipping_address: { line1: '1 Main St', city: 'X', country, state },
            },
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return res.body.taxes.map((tax) => tax.rate_id);
        };
        assert.deepEqual(await taxedBy('US', 'ca\u200b'), ['txr_ca_zw']);
        assert.deepEqual(await taxedBy('US', 'California'), ['txr_ca_zw']);
        assert.deepEqual(await taxedBy('CA', 'Qu\u00e9bec'), ['txr_qc']);
        assert.deepEqual(await taxedBy('DE', 'Bayern'), ['txr_by']);
        assert.deepEqual(await taxedBy('GG', 'st. peter port'), ['txr_gg']);
        assert.deepEqual(await taxedBy('US', ' '), ['txr_us']);
        // The rate left behind is refused as a second California until its state changes.
        const twin = await api<{ code: string }>('PATCH', '/v1/tax-rates/txr_ca_name', {
          body: { state: 'CA' },
        });
        assert.deepEqual([twin.status, twin.body.code], [409, 'duplicate_tax_rate']);
      } finally {
        await store.close();
      }
    });
  });
}
