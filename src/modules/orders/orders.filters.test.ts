import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import * as repo from './orders.repository.js';
import {
  FULFILLMENT_STATUSES,
  type OrderObject,
  PAYMENT_STATUSES,
  type PaymentStatus,
} from './orders.schemas.js';

/**
 * The order list's `fulfillment_status` and `payment_status` filters, in SQL on each store: every
 * value finds exactly the orders whose object says so, combined with the other filters and paged.
 */

/** What `payment_status` promises, read from the order object. */
function paymentStatusOf(order: OrderObject): PaymentStatus {
  if (order.paid_at === null) return 'unpaid';
  if (order.refunded_amount === 0) return 'paid';
  return order.refunded_amount >= order.total ? 'refunded' : 'partially_refunded';
}

for (const dialect of DIALECTS) {
  describe(`order list filters: fulfilment and payment (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    const clock = new ManualClock();
    const made: OrderObject[] = [];

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx, { currency: 'USD' });
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      clock.set('2026-05-01T00:00:00.000Z');
      const product = await api<{ variants: { id: string }[] }>('POST', '/v1/products', {
        body: { name: 'Shirt', price: 1_000, currency: 'USD', stock: 100 },
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const variant = product.body.variants[0]?.id ?? '';

      const place = async (email: string, quantity: number, paid: boolean) => {
        clock.advance(60_000);
        const res = await api<OrderObject>('POST', '/v1/orders', {
          body: {
            customer: { email },
            items: [{ variant_id: variant, quantity }],
            ...(paid ? { payment_method: 'pm_card_visa' } : {}),
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id;
      };
      const post = async (url: string, body: Record<string, unknown>) => {
        clock.advance(1_000);
        const res = await api('POST', url, { body });
        assert.ok(res.status === 200 || res.status === 201, `${url}: ${JSON.stringify(res.body)}`);
      };
      const ship = (id: string, quantity: number) =>
        post(`/v1/orders/${id}/fulfillments`, { items: [{ variant_id: variant, quantity }] });
      const refund = (id: string, body: Record<string, unknown>) => post(`/v1/orders/${id}/refunds`, body);

      await place('a@example.com', 1, false); // unpaid, unfulfilled
      await place('b@example.com', 2, true); // paid, unfulfilled
      const partial = await place('a@example.com', 3, true);
      await ship(partial, 1); // paid, partial
      const shipped = await place('b@example.com', 2, true);
      await ship(shipped, 2); // paid, fulfilled
      const someBack = await place('a@example.com', 2, true);
      await refund(someBack, { amount: 300 }); // partially refunded, unfulfilled
      const allBack = await place('b@example.com', 1, true);
      await refund(allBack, {}); // refunded (its unit released: unfulfilled)
      const paidCancelled = await place('a@example.com', 1, true);
      await post(`/v1/orders/${paidCancelled}/cancel`, {}); // refunded, as cancelled after payment
      const unpaidCancelled = await place('b@example.com', 1, false);
      await post(`/v1/orders/${unpaidCancelled}/cancel`, {}); // unpaid
      const rest = await place('a@example.com', 2, true);
      await ship(rest, 1);
      await refund(rest, { items: [{ variant_id: variant, quantity: 1 }] }); // fulfilled, partially refunded
      const returned = await place('b@example.com', 2, true);
      await ship(returned, 2);
      await refund(returned, {}); // fulfilled, refunded

      const all = await api<Page<OrderObject>>('GET', '/v1/orders?limit=100');
      made.push(...all.body.data);
      assert.equal(made.length, 10);
    });
    after(() => ctx.close());

    const ids = (orders: readonly OrderObject[]) => orders.map((order) => order.id);

    async function check(query: string, want: readonly OrderObject[]) {
      const res = await api<Page<OrderObject>>('GET', `/v1/orders?limit=100&${query}`);
      assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(ids(res.body.data), ids(want), query);
      assert.equal(res.body.total, want.length, `${query}: total`);
    }

    it('finds, for every fulfilment status, exactly the orders whose object has it', async () => {
      const seen = new Set(made.map((order) => order.fulfillment_status));
      assert.deepEqual([...seen].sort(), [...FULFILLMENT_STATUSES].sort(), 'the data covers every value');
      for (const status of FULFILLMENT_STATUSES) {
        await check(
          `fulfillment_status=${status}`,
          made.filter((order) => order.fulfillment_status === status),
        );
      }
    });

    it('finds, for every payment status, exactly the orders paid and refunded so', async () => {
      const seen = new Set(made.map(paymentStatusOf));
      assert.deepEqual([...seen].sort(), [...PAYMENT_STATUSES].sort(), 'the data covers every value');
      for (const status of PAYMENT_STATUSES) {
        await check(
          `payment_status=${status}`,
          made.filter((order) => paymentStatusOf(order) === status),
        );
      }
      // A cancelled order counts as refunded once it had been paid, as unpaid otherwise.
      const cancelled = made.filter((order) => order.status === 'cancelled').map(paymentStatusOf);
      assert.deepEqual(cancelled.sort(), ['refunded', 'unpaid']);
    });

    it('combines with each other and with the other filters', async () => {
      for (const fulfillment of FULFILLMENT_STATUSES) {
        for (const payment of PAYMENT_STATUSES) {
          await check(
            `fulfillment_status=${fulfillment}&payment_status=${payment}&customer_email=A@example.com`,
            made.filter(
              (order) =>
                order.fulfillment_status === fulfillment &&
                paymentStatusOf(order) === payment &&
                order.customer.email === 'a@example.com',
            ),
          );
        }
      }
      await check(
        'status=paid&payment_status=paid&fulfillment_status=unfulfilled',
        made.filter(
          (order) =>
            order.status === 'paid' &&
            paymentStatusOf(order) === 'paid' &&
            order.fulfillment_status === 'unfulfilled',
        ),
      );
      const third = made[3]?.created ?? '';
      await check(
        `payment_status=refunded&created_to=${third}`,
        made.filter((order) => paymentStatusOf(order) === 'refunded' && order.created <= third),
      );
    });

    it('pages a filtered list by cursor, newest first, with its total on every page', async () => {
      const seen: string[] = [];
      for (const payment of ['paid', 'partially_refunded', 'refunded']) {
        let url = `/v1/orders?limit=1&payment_status=${payment}&fulfillment_status=unfulfilled`;
        for (;;) {
          const page = await api<Page<OrderObject>>('GET', url);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          seen.push(...ids(page.body.data));
          if (page.body.next_cursor === null) break;
          url = `/v1/orders?limit=1&payment_status=${payment}&fulfillment_status=unfulfilled&cursor=${page.body.next_cursor}`;
        }
      }
      const unfulfilledPaid = made.filter(
        (order) => paymentStatusOf(order) !== 'unpaid' && order.fulfillment_status === 'unfulfilled',
      );
      assert.deepEqual(seen.sort(), ids(unfulfilledPaid).sort());

      const paged: string[] = [];
      let url = '/v1/orders?limit=2&fulfillment_status=fulfilled';
      for (;;) {
        const page = await api<Page<OrderObject>>('GET', url);
        paged.push(...ids(page.body.data));
        assert.equal(
          page.body.total,
          made.filter((order) => order.fulfillment_status === 'fulfilled').length,
        );
        if (page.body.next_cursor === null) break;
        url = `/v1/orders?limit=2&fulfillment_status=fulfilled&cursor=${page.body.next_cursor}`;
      }
      assert.deepEqual(paged, ids(made.filter((order) => order.fulfillment_status === 'fulfilled')));
    });

    it('refuses an unknown value, naming the query field', async () => {
      for (const [query, field] of [
        ['fulfillment_status=shipped', 'fulfillment_status'],
        ['fulfillment_status=', 'fulfillment_status'],
        ['payment_status=pending', 'payment_status'],
        ['payment_status=PAID', 'payment_status'],
      ] as const) {
        const res = await api<Problem>('GET', `/v1/orders?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((error) => error.field === field),
          `${query}: ${JSON.stringify(res.body)}`,
        );
      }
    });

    // SQLite plans by the schema alone (PostgreSQL would plan tables this small by their size).
    it(
      'seeks each filtered page and count by an index of migration 0060, with no sort',
      {
        skip: dialect !== 'sqlite',
      },
      async () => {
        const db = ctx.deps.store.db;
        for (const [filter, index] of [
          [{ fulfillment: 'partial' }, 'orders_tenant_fulfillment_idx'],
          [{ fulfillment: 'unfulfilled', payment: 'paid' }, 'orders_tenant_fulfillment_idx'],
          [{ payment: 'unpaid' }, 'orders_tenant_unpaid_idx'],
          [{ payment: 'partially_refunded' }, 'orders_tenant_refunded_idx'],
          [{ payment: 'refunded' }, 'orders_tenant_refunded_idx'],
        ] satisfies [repo.OrderFilter, string][]) {
          const queries = await sentQueries(db, async (db) => {
            await repo.listOrders(db, tenantId, filter, { limit: 20, offset: 0, cursor: undefined });
            await repo.countOrders(db, tenantId, filter);
          });
          assert.equal(queries.length, 2);
          for (const query of queries) {
            const plan = await db.executeQuery<{ detail: string }>(
              CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
            );
            const details = plan.rows.map((row) => row.detail).join('\n');
            const at = `${JSON.stringify(filter)}: ${details}`;
            assert.match(details, new RegExp(`orders USING (COVERING )?INDEX ${index}\\b`), at);
            assert.doesNotMatch(details, /TEMP B-TREE/, at);
          }
        }
      },
    );
  });
}
