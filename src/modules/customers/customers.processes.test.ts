import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deps } from '../../deps.js';
import { caller, type ServerProcess } from '../../../test/helpers/process.js';
import { twoServers } from '../../../test/helpers/two-servers.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

/**
 * Two server processes on one PostgreSQL store take concurrent orders for emails nobody has used
 * yet: each email must become exactly one customer (the second transaction's insert waits for the
 * first's and then finds its row), and figures moved by concurrent order events in both processes
 * must add up to the captured totals.
 */

const CAPTURED = new Set(['paid', 'shipped', 'delivered']);

/** `email` with the letters picked by the bits of `n` in upper case: a different case for each n. */
function casify(email: string, n: number): string {
  return [...email].map((c, i) => ((n >> (i % 8)) & 1 ? c.toUpperCase() : c)).join('');
}

/** Per currency, the totals of the orders that hold a captured payment. */
function captured(orders: readonly OrderObject[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const order of orders) {
    if (order.paid_at !== null) out[order.currency] ??= 0;
    if (CAPTURED.has(order.status)) out[order.currency] = (out[order.currency] ?? 0) + order.total;
  }
  return out;
}

async function customerRows(deps: Deps, tenantId: string) {
  return deps.store.db
    .selectFrom('customers')
    .select(['id', 'email', 'email_key', 'orders_count', 'total_spent', 'total_spent_sort'])
    .where('tenant_id', '=', tenantId)
    .orderBy('email_key')
    .execute();
}

async function countEvents(deps: Deps, tenantId: string, type: string): Promise<number> {
  const { n } = await deps.store.db
    .selectFrom('events')
    .where('tenant_id', '=', tenantId)
    .where('type', '=', type)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

describe(
  'one customer per new email across two server processes on PostgreSQL',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    // One store and two processes for both tests; each test has its own tenant.
    const two = twoServers('postgres');

    it('30 concurrent orders with one new email in varying case: one customer, exact figures', async () => {
      const tenant = await two.deps.tenants.create({ name: 'Two processes', email: 'c2@example.com' });
      const ref = { id: tenant.tenant.id, currency: 'USD' };
      const usd = await two.deps.products.create(ref, { name: 'Cup', price: 700, stock: 10_000 });
      const eur = await two.deps.products.create(ref, {
        name: 'Plate',
        price: 1_500,
        currency: 'EUR',
        stock: 10_000,
      });
      const call = caller(tenant.apiKey.key);
      const server = (i: number) => two.servers[i % 2] as ServerProcess;

      // A third left pending, a third paid at once, a third declined; both currencies.
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call<OrderObject>(server(i), 'POST', '/v1/orders', {
            items: [{ product_id: (i % 4 === 0 ? eur : usd).id, quantity: 1 + (i % 3) }],
            customer: { email: casify('new.person@example.com', i), ...(i % 5 === 0 ? { name: 'New' } : {}) },
            ...(i % 3 === 0 ? {} : { payment_method: i % 3 === 1 ? 'pm_card_visa' : 'pm_card_declined' }),
          }),
        ),
      );
      assert.deepEqual(
        created.map((r) => r.status),
        created.map(() => 201),
        JSON.stringify(created.filter((r) => r.status !== 201).map((r) => r.body)),
      );
      const ids = new Set(created.map((r) => r.body.customer.id));
      assert.equal(ids.size, 1, [...ids].join(', '));
      const customerId = [...ids][0] as string;
      let rows = await customerRows(two.deps, tenant.tenant.id);
      assert.deepEqual(
        rows.map((r) => [r.id, r.email, r.email_key, Number(r.orders_count)]),
        [[customerId, 'new.person@example.com', 'new.person@example.com', 30]],
      );
      assert.equal(await countEvents(two.deps, tenant.tenant.id, 'customer.created'), 1);
      const orders = created.map((r) => r.body);
      let customer = (await call<CustomerObject>(server(0), 'GET', `/v1/customers/${customerId}`)).body;
      assert.equal(customer.orders_count, 30);
      assert.deepEqual(customer.total_spent, captured(orders));
      assert.equal(
        customer.last_order_at,
        new Date(Math.max(...orders.map((o) => Date.parse(o.created)))).toISOString(),
      );
      const listed = await call<Page<CustomerObject>>(server(1), 'GET', '/v1/customers');
      assert.deepEqual([listed.body.total, listed.body.data.map((c) => c.id)], [1, [customerId]]);

      // Then every order moves at once over both processes: the pending are paid, the paid are
      // refunded or cancelled, each move adding to or taking from the one customer row.
      const moved = await Promise.all(
        orders.map((order, i) => {
          if (order.status === 'pending') {
            return call<OrderObject>(server(i + 1), 'POST', `/v1/orders/${order.id}/pay`, {
              payment_method: 'pm_card_visa',
            });
          }
          return call<OrderObject>(
            server(i + 1),
            'POST',
            `/v1/orders/${order.id}/${i % 2 ? 'refund' : 'cancel'}`,
            {},
          );
        }),
      );
      assert.deepEqual(
        moved.map((r) => r.status),
        moved.map(() => 200),
        JSON.stringify(moved.filter((r) => r.status !== 200).map((r) => r.body)),
      );
      const after = await call<Page<OrderObject>>(
        server(0),
        'GET',
        `/v1/customers/${customerId}/orders?limit=100`,
      );
      assert.equal(after.body.data.length, 30);
      customer = (await call<CustomerObject>(server(1), 'GET', `/v1/customers/${customerId}`)).body;
      assert.equal(customer.orders_count, 30);
      const expected = captured(after.body.data);
      assert.ok((expected.USD ?? 0) > 0 && (expected.EUR ?? 0) > 0, JSON.stringify(expected));
      assert.deepEqual(customer.total_spent, expected);
      rows = await customerRows(two.deps, tenant.tenant.id);
      assert.equal(Number(rows[0]?.total_spent_sort), expected.USD);
    });

    it('concurrent orders for two new emails, interleaved over both processes: two customers', async () => {
      const tenant = await two.deps.tenants.create({ name: 'Two processes', email: 'c2b@example.com' });
      const cup = await two.deps.products.create(
        { id: tenant.tenant.id, currency: 'USD' },
        { name: 'Cup', price: 700, stock: 10_000 },
      );
      const call = caller(tenant.apiKey.key);
      const emails = ['first.one@example.com', 'second.two@example.com'];
      // Order i is for email i % 2 on process (i >> 1) % 2: each email reaches both processes.
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call<OrderObject>(two.servers[(i >> 1) % 2] as ServerProcess, 'POST', '/v1/orders', {
            items: [{ product_id: cup.id, quantity: 1 + (i % 4) }],
            customer: { email: casify(emails[i % 2] as string, i * 7) },
            ...(i % 3 === 0 ? {} : { payment_method: 'pm_card_visa' }),
          }),
        ),
      );
      assert.ok(
        created.every((r) => r.status === 201),
        JSON.stringify(created.filter((r) => r.status !== 201).map((r) => r.body)),
      );
      const rows = await customerRows(two.deps, tenant.tenant.id);
      assert.deepEqual(
        rows.map((r) => [r.email, Number(r.orders_count)]),
        emails.map((e) => [e, 15]),
      );
      assert.equal(await countEvents(two.deps, tenant.tenant.id, 'customer.created'), 2);
      for (const [k, email] of emails.entries()) {
        const row = rows[k] as (typeof rows)[number];
        const theirs = created.filter((_, i) => i % 2 === k).map((r) => r.body);
        assert.ok(theirs.every((o) => o.customer.id === row.id && o.customer.email === email));
        const customer = (
          await call<CustomerObject>(two.servers[k] as ServerProcess, 'GET', `/v1/customers/${row.id}`)
        ).body;
        assert.equal(customer.orders_count, 15);
        assert.deepEqual(customer.total_spent, captured(theirs));
        assert.equal(Number(row.total_spent_sort), captured(theirs).USD);
      }
      const listed = await call<Page<CustomerObject>>(
        two.servers[0] as ServerProcess,
        'GET',
        '/v1/customers',
      );
      assert.equal(listed.body.total, 2);
    });
  },
);
