import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { type Client, DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { Address } from './customers.address.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

const T0 = Date.parse('2026-11-01T09:00:00.000Z');
const HOUR = 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

type Status = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';

interface OldOrder {
  id: string;
  tenant: 'ten_a' | 'ten_b';
  email: string;
  name: string | null;
  address: Address | null;
  currency: 'USD' | 'EUR';
  total: number;
  status: Status;
  /** Paid before it reached its status (a payment row goes with it). */
  paid: boolean;
  created: number;
}

const HOME: Address = { name: 'Ana', line1: '1 Old Road', city: 'Lisbon', country: 'PT' };
const WORK: Address = {
  line1: '9 New Street',
  line2: 'Floor 2',
  city: 'Porto',
  postal_code: '4000',
  country: 'PT',
};
const BERLIN: Address = { line1: 'Hauptstr. 5', city: 'Berlin', country: 'DE' };

/**
 * The orders of a store of release v2.5 (migrations up to 0019), one in every state: pending,
 * paid, shipped, delivered, cancelled before payment, cancelled after payment (its payment
 * refunded), refunded; in two currencies, with and without names and shipping addresses, and an
 * email that two tenants share. Listed out of creation order on purpose.
 */
const ORDERS: OldOrder[] = [
  // ana (tenant A): the latest order has neither name nor address; the latest with each is ord_a3.
  {
    id: 'ord_a1',
    tenant: 'ten_a',
    email: 'ana@example.com',
    name: 'Ana',
    address: HOME,
    currency: 'USD',
    total: 1000,
    status: 'pending',
    paid: false,
    created: T0,
  },
  {
    id: 'ord_a4',
    tenant: 'ten_a',
    email: 'ana@example.com',
    name: null,
    address: null,
    currency: 'USD',
    total: 700,
    status: 'delivered',
    paid: true,
    created: T0 + 3 * HOUR,
  },
  {
    id: 'ord_a2',
    tenant: 'ten_a',
    email: 'ana@example.com',
    name: null,
    address: null,
    currency: 'USD',
    total: 2500,
    status: 'paid',
    paid: true,
    created: T0 + HOUR,
  },
  {
    id: 'ord_a3',
    tenant: 'ten_a',
    email: 'ana@example.com',
    name: 'Ana Two',
    address: WORK,
    currency: 'EUR',
    total: 1800,
    status: 'shipped',
    paid: true,
    created: T0 + 2 * HOUR,
  },
  {
    id: 'ord_a5',
    tenant: 'ten_a',
    email: 'ana@example.com',
    name: 'Ana Before',
    address: HOME,
    currency: 'USD',
    total: 300,
    status: 'cancelled',
    paid: false,
    created: T0 + HOUR / 2,
  },
  // ben (tenant A): paid twice, and gave it all back.
  {
    id: 'ord_b1',
    tenant: 'ten_a',
    email: 'ben@example.com',
    name: null,
    address: null,
    currency: 'USD',
    total: 900,
    status: 'cancelled',
    paid: true,
    created: T0 + 4 * HOUR,
  },
  {
    id: 'ord_b2',
    tenant: 'ten_a',
    email: 'ben@example.com',
    name: null,
    address: BERLIN,
    currency: 'EUR',
    total: 1200,
    status: 'refunded',
    paid: true,
    created: T0 + 5 * HOUR,
  },
  // cy (tenant A): never paid.
  {
    id: 'ord_c1',
    tenant: 'ten_a',
    email: 'cy@example.com',
    name: 'Cy',
    address: null,
    currency: 'EUR',
    total: 450,
    status: 'pending',
    paid: false,
    created: T0 + 6 * HOUR,
  },
  // ana again, at tenant B: another person there.
  {
    id: 'ord_x1',
    tenant: 'ten_b',
    email: 'ana@example.com',
    name: 'Ana B',
    address: BERLIN,
    currency: 'EUR',
    total: 4000,
    status: 'delivered',
    paid: true,
    created: T0 + 7 * HOUR,
  },
  {
    id: 'ord_x2',
    tenant: 'ten_b',
    email: 'ana@example.com',
    name: null,
    address: null,
    currency: 'USD',
    total: 650,
    status: 'refunded',
    paid: true,
    created: T0 + 8 * HOUR,
  },
];

/** Writes the orders as release v2.5 did: order, its line, its payment, and the kept status counts. */
async function writeOldStore(old: Db): Promise<void> {
  for (const [tenant, currency] of [
    ['ten_a', 'USD'],
    ['ten_b', 'EUR'],
  ] as const) {
    await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
      VALUES (${tenant}, ${tenant}, 'free', ${currency}, '2026-12-15', ${T0 - HOUR}, ${T0 - HOUR})`.execute(
      old,
    );
    await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
      VALUES (${`usr_${tenant}`}, ${tenant}, ${`owner@${tenant}.example`}, 'O', 'owner', NULL, ${T0}, ${T0})`.execute(
      old,
    );
  }
  const counts = new Map<string, number>();
  for (const o of ORDERS) {
    const paidAt = o.paid ? o.created + 60_000 : null;
    const at = (statuses: Status[], offset: number) =>
      statuses.includes(o.status) ? o.created + offset : null;
    const paymentId = o.paid ? `pay_${o.id}` : null;
    await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_name,
        shipping_address, metadata, payment_id, carrier, tracking_number, restocked, created, updated,
        paid_at, shipped_at, delivered_at, cancelled_at, refunded_at)
      VALUES (${o.id}, ${o.tenant}, ${o.status}, ${o.currency}, ${o.total}, ${o.total}, ${o.email}, ${o.name},
        ${o.address === null ? null : JSON.stringify(o.address)}, '{}', ${paymentId}, NULL, NULL,
        ${o.status === 'cancelled' ? 1 : 0}, ${o.created}, ${o.created + 10 * 60_000},
        ${paidAt}, ${at(['shipped', 'delivered'], 2 * 60_000)}, ${at(['delivered'], 3 * 60_000)},
        ${at(['cancelled'], 4 * 60_000)}, ${at(['refunded'], 5 * 60_000)})`.execute(old);
    await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id, variant_title, name,
        sku, category, quantity, unit_price, total)
      VALUES (${o.id}, 0, ${o.tenant}, 'prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'var_OLDOLDOLDOLDOLDOLDOLDOLD1', 'Default',
        'Old thing', NULL, NULL, 1, ${o.total}, ${o.total})`.execute(old);
    if (paymentId !== null) {
      const refunded = o.status === 'cancelled' || o.status === 'refunded';
      await sql`INSERT INTO payments (id, tenant_id, order_id, provider, method, amount, currency, status,
          failure_code, failure_message, provider_reference, refund_due_at, created, updated)
        VALUES (${paymentId}, ${o.tenant}, ${o.id}, 'sandbox', 'pm_card_visa', ${o.total}, ${o.currency},
          ${refunded ? 'refunded' : 'succeeded'}, NULL, NULL, ${`ch_${o.id}`}, NULL, ${o.created}, ${o.created})`.execute(
        old,
      );
    }
    const key = `${o.tenant}\n${o.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of counts) {
    const [tenant, status] = key.split('\n') as [string, string];
    await sql`INSERT INTO order_counts (tenant_id, status, n) VALUES (${tenant}, ${status}, ${n})`.execute(
      old,
    );
  }
}

/**
 * What migration 0020 must make of `ORDERS`: per tenant and email, every order counted; the
 * totals of the orders holding a captured payment (paid, shipped, delivered) per currency, with
 * the currency present once a payment was captured in it, as the live figures keep it (0 after a
 * full refund); the latest order's time; the name of the latest order with one; the address of
 * the latest order with one.
 */
function expectedCustomer(tenant: string, email: string) {
  const theirs = ORDERS.filter((o) => o.tenant === tenant && o.email === email).sort(
    (a, b) => a.created - b.created,
  );
  const totalSpent: Record<string, number> = {};
  for (const o of theirs) {
    if (o.paid) totalSpent[o.currency] ??= 0;
    if (['paid', 'shipped', 'delivered'].includes(o.status)) {
      totalSpent[o.currency] = (totalSpent[o.currency] ?? 0) + o.total;
    }
  }
  const first = theirs[0] as OldOrder;
  const last = theirs[theirs.length - 1] as OldOrder;
  const address = theirs.filter((o) => o.address !== null).pop()?.address;
  return {
    email,
    name: theirs.filter((o) => o.name !== null).pop()?.name ?? null,
    phone: null,
    addresses: address === undefined ? [] : [address],
    tags: [],
    note: null,
    metadata: {},
    marketing_consent: false,
    orders_count: theirs.length,
    total_spent: totalSpent,
    last_order_at: iso(last.created),
    redacted: false,
    created: iso(first.created),
    updated: iso(first.created),
  };
}

for (const dialect of DIALECTS) {
  describe(`migration 0020 to customers (${dialect})`, () => {
    it('makes one customer per email per tenant with exact figures; new orders join them', async () => {
      // This release starts on a store of the previous one: migration 0020 runs, then the API answers.
      const store = await upgradeFrom(dialect, '0019_variants', writeOldStore);
      const { deps } = store;
      try {
        const apis: Record<string, Client> = {};
        for (const tenant of ['ten_a', 'ten_b'])
          apis[tenant] = await store.clientFor(tenant, `usr_${tenant}`);
        const a = apis.ten_a as Client;
        const b = apis.ten_b as Client;

        // One customer per distinct email per tenant, each exactly as its orders make it.
        const people: Record<string, CustomerObject> = {};
        for (const [tenant, api] of Object.entries(apis)) {
          const emails = [...new Set(ORDERS.filter((o) => o.tenant === tenant).map((o) => o.email))].sort();
          const list = await api<Page<CustomerObject>>('GET', '/v1/customers?sort=email&limit=100');
          assert.equal(list.status, 200, JSON.stringify(list.body));
          // `total` without a filter comes from customer_counts, which the migration filled.
          assert.equal(list.body.total, emails.length);
          assert.deepEqual(
            list.body.data.map(({ id: _id, ...rest }) => rest),
            emails.map((email) => expectedCustomer(tenant, email)),
          );
          for (const customer of list.body.data) {
            assert.match(customer.id, /^cus_[0-9A-Za-z]{24}$/);
            people[`${tenant}:${customer.email}`] = customer;
          }
        }
        const ana = people['ten_a:ana@example.com'] as CustomerObject;
        const anaB = people['ten_b:ana@example.com'] as CustomerObject;
        assert.notEqual(ana.id, anaB.id);

        // Every order names its customer; each customer's orders are its own, newest first.
        for (const o of ORDERS) {
          const order = await (apis[o.tenant] as Client)<OrderObject>('GET', `/v1/orders/${o.id}`);
          assert.equal(order.status, 200, JSON.stringify(order.body));
          assert.deepEqual(order.body.customer, {
            id: people[`${o.tenant}:${o.email}`]?.id,
            email: o.email,
            name: o.name,
          });
        }
        for (const [key, customer] of Object.entries(people)) {
          const [tenant, email] = key.split(':') as [string, string];
          const theirs = await (apis[tenant] as Client)<Page<OrderObject>>(
            'GET',
            `/v1/customers/${customer.id}/orders`,
          );
          assert.deepEqual(
            theirs.body.data.map((o) => o.id),
            ORDERS.filter((o) => o.tenant === tenant && o.email === email)
              .sort((x, y) => y.created - x.created)
              .map((o) => o.id),
          );
        }
        // The other tenant's customer is not there.
        assert.equal((await a('GET', `/v1/customers/${anaB.id}`)).status, 404);

        // Search finds the migrated customers by email (in any case) and by name.
        for (const [api, q, ids] of [
          [a, 'ANA@example', [ana.id]],
          [a, 'ben@', [people['ten_a:ben@example.com']?.id]],
          [a, 'Ana Two', [ana.id]],
          [b, 'ana@example.com', [anaB.id]],
          [b, 'ben@', []],
        ] as const) {
          const found = await api<Page<CustomerObject>>('GET', `/v1/customers?q=${encodeURIComponent(q)}`);
          assert.deepEqual([found.body.total, found.body.data.map((c) => c.id)], [ids.length, ids], `${q}`);
        }
        // `-total_spent` sorts on the amount in the tenant's currency (USD at A): ana, then the 0s.
        const rows = await deps.store.db
          .selectFrom('customers')
          .select(['email', 'tenant_id', 'total_spent_sort'])
          .orderBy('tenant_id')
          .orderBy('email')
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.tenant_id, r.email, Number(r.total_spent_sort)]),
          [
            ['ten_a', 'ana@example.com', 3200],
            ['ten_a', 'ben@example.com', 0],
            ['ten_a', 'cy@example.com', 0],
            ['ten_b', 'ana@example.com', 4000],
          ],
        );
        const bySpend = await a<Page<CustomerObject>>('GET', '/v1/customers?sort=-total_spent');
        assert.equal(bySpend.body.data[0]?.id, ana.id);

        // A new order by the same email, in another case, joins the migrated customer and moves
        // its figures; the customer keeps its name and addresses.
        const product = await a<ProductObject>('POST', '/v1/products', {
          body: { name: 'Kettle', price: 3000, stock: 10 },
        });
        assert.equal(product.status, 201, JSON.stringify(product.body));
        const order = await a<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: product.body.id, quantity: 1 }],
            customer: { email: 'ANA@Example.COM' },
            payment_method: 'pm_card_visa',
          },
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        assert.equal(order.body.status, 'paid');
        assert.deepEqual(order.body.customer, { id: ana.id, email: 'ana@example.com', name: 'Ana Two' });
        let now = (await a<CustomerObject>('GET', `/v1/customers/${ana.id}`)).body;
        assert.deepEqual(
          [now.orders_count, now.total_spent, now.last_order_at, now.name, now.addresses],
          [6, { USD: 6200, EUR: 1800 }, order.body.created, 'Ana Two', [WORK]],
        );
        // A migrated order refunded and another cancelled: the migrated figures move back.
        assert.equal((await a('POST', '/v1/orders/ord_a2/refund')).status, 200);
        assert.equal((await a('POST', '/v1/orders/ord_a1/cancel')).status, 200);
        now = (await a<CustomerObject>('GET', `/v1/customers/${ana.id}`)).body;
        assert.deepEqual([now.orders_count, now.total_spent], [6, { USD: 3700, EUR: 1800 }]);
        // By customer_id too; and a new email makes a new customer next to the migrated ones.
        const byId = await a<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: product.body.id, quantity: 1 }],
            customer_id: people['ten_a:ben@example.com']?.id,
          },
        });
        assert.equal(byId.body.customer.email, 'ben@example.com');
        const ben = (await a<CustomerObject>('GET', `/v1/customers/${byId.body.customer.id}`)).body;
        assert.deepEqual([ben.orders_count, ben.last_order_at], [3, byId.body.created]);
        const dee = await a<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: product.body.id, quantity: 1 }],
            customer: { email: 'Dee@Example.com' },
          },
        });
        assert.equal(dee.status, 201);
        assert.equal((await a<Page<CustomerObject>>('GET', '/v1/customers')).body.total, 4);
        assert.equal((await b<Page<CustomerObject>>('GET', '/v1/customers')).body.total, 1);
      } finally {
        await store.close();
      }
    });
  });
}
