import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

/**
 * Random histories over two tenants (one selling in USD, the other in EUR, both with products in
 * USD and EUR and a free one) and three emails they share: orders by email in any case or by
 * `customer_id`, paid at once, declined, or left pending; later paid or declined, shipped,
 * delivered, cancelled before or after payment, refunded in part (an amount, a unit) or in full;
 * the clock moving back and forth between steps. Every step's status is the one a model of the
 * lifecycle predicts. Then each customer's `orders_count`, `total_spent`, `last_order_at` (and the
 * `total_spent_sort` that `sort=-total_spent` reads) must equal a recount from its orders as the
 * API lists them.
 */

const HOUR = 3600 * 1000;
const BASE = Date.parse('2026-12-01T12:00:00.000Z');
const EMAILS = ['ana@example.com', 'ben.b@example.com', 'cy@example.org'];
const TENANT_CURRENCIES = ['USD', 'EUR'] as const;
const PRODUCTS = [
  { name: 'Mug', price: 1250, currency: 'USD' },
  { name: 'Sticker', price: 0, currency: 'USD' },
  { name: 'Beanie', price: 1999, currency: 'EUR' },
] as const;
const CAPTURED: Status[] = ['paid', 'shipped', 'delivered'];

type Status = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
type Action =
  'pay' | 'pay_declined' | 'ship' | 'deliver' | 'cancel' | 'refund' | 'refund_part' | 'refund_unit';

type Op =
  | {
      kind: 'order';
      tenant: number;
      customer: number;
      byId: boolean;
      upper: boolean[];
      product: number;
      quantity: number;
      payment: 'none' | 'visa' | 'declined';
      name: string | null;
      shipping: boolean;
    }
  | { kind: 'act'; target: number; recent: boolean; action: Action; share: number }
  | { kind: 'clock'; ms: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      tenant: fc.integer({ min: 0, max: 1 }),
      customer: fc.integer({ min: 0, max: EMAILS.length - 1 }),
      byId: fc.boolean(),
      upper: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
      product: fc.integer({ min: 0, max: PRODUCTS.length - 1 }),
      quantity: fc.integer({ min: 1, max: 3 }),
      payment: fc.constantFrom('none' as const, 'visa' as const, 'visa' as const, 'declined' as const),
      name: fc.constantFrom(null, 'Ana A.', 'B. Second'),
      shipping: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      target: fc.nat(),
      // Mostly one of the latest two orders, so that orders get far along their lifecycle.
      recent: fc.constantFrom(true, true, false),
      action: fc.constantFrom<Action>(
        'pay',
        'pay_declined',
        'ship',
        'deliver',
        'cancel',
        'refund',
        'refund_part',
        'refund_part',
        'refund_unit',
      ),
      // The part (%) of what is left a partial refund returns.
      share: fc.integer({ min: 1, max: 100 }),
    }),
  },
  {
    weight: 1,
    // Backwards too: an order created earlier than the latest one must not move last_order_at back.
    arbitrary: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }).map((ms) => ({ kind: 'clock' as const, ms })),
  },
);

/** The email with the letters `upper` marks in upper case. */
function casify(email: string, upper: readonly boolean[]): string {
  return [...email].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');
}

/** What the lifecycle lets each action do from each status (anything else is 409). */
const MOVES: Record<Action, { from: Status[]; to: Status | null }> = {
  pay: { from: ['pending'], to: 'paid' },
  // A declined charge is 422 and leaves the order pending.
  pay_declined: { from: ['pending'], to: null },
  ship: { from: ['paid'], to: 'shipped' },
  deliver: { from: ['shipped'], to: 'delivered' },
  cancel: { from: ['pending', 'paid'], to: 'cancelled' },
  refund: { from: CAPTURED, to: 'refunded' },
  // A partial refund leaves the status as it is, unless it leaves nothing to refund (`refunded`).
  refund_part: { from: CAPTURED, to: null },
  refund_unit: { from: CAPTURED, to: null },
};

/**
 * A partial refund through the API: `share`% of what is left (at least 1), or one unit of the
 * order's line. Refused outside paid, shipped and delivered, and (400 or 422) when there is not
 * that much left, changing nothing. The order stays in its status unless nothing is left.
 */
async function refundPart(
  api: Client,
  order: { id: string; status: Status },
  action: 'refund_part' | 'refund_unit',
  share: number,
): Promise<void> {
  const before = (await api<OrderObject>('GET', `/v1/orders/${order.id}`)).body;
  const body =
    action === 'refund_part'
      ? { amount: Math.max(1, Math.floor((before.refundable_amount * share) / 100)) }
      : { items: [{ variant_id: before.items[0]?.variant_id, quantity: 1 }] };
  const res = await api('POST', `/v1/orders/${order.id}/refunds`, { body });
  const after = (await api<OrderObject>('GET', `/v1/orders/${order.id}`)).body;
  if (!CAPTURED.includes(order.status)) {
    // A refunded order has nothing left (422 `amount_exceeds_refundable`); the others never paid.
    const refused = order.status === 'refunded' ? 422 : 409;
    assert.equal(res.status, refused, `${action} from ${order.status}: ${JSON.stringify(res.body)}`);
  } else if (res.status !== 201) {
    assert.ok([400, 422].includes(res.status), `${action}: ${res.status} ${JSON.stringify(res.body)}`);
  } else {
    assert.equal(after.refunded_amount, before.refunded_amount + (res.body as { amount: number }).amount);
    assert.ok([order.status, 'refunded'].includes(after.status), after.status);
    order.status = after.status as Status;
  }
  if (res.status !== 201) assert.deepEqual(after, before);
}

async function allPages<T>(api: Client, url: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const page: { status: number; body: Page<T> } = await api<Page<T>>(
      'GET',
      `${url}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    out.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return out;
}

/**
 * A customer's figures recounted from its orders: every order counts once; money spent is, for
 * each order whose payment was captured (`paid_at` set), its total less its refunds (partial ones,
 * a whole refund, the cancel of a paid order), in its currency. A currency appears once a payment
 * was captured in it, so a customer refunded in full shows 0 there, and one who never paid {}.
 */
function recount(orders: readonly OrderObject[]) {
  const totalSpent: Record<string, number> = {};
  for (const order of orders) {
    if (order.paid_at === null) continue;
    totalSpent[order.currency] = (totalSpent[order.currency] ?? 0) + order.total - order.refunded_amount;
  }
  const last = orders.reduce<number | null>(
    (max, order) => Math.max(max ?? -Infinity, Date.parse(order.created)),
    null,
  );
  return {
    orders_count: orders.length,
    total_spent: totalSpent,
    last_order_at: last === null ? null : new Date(last).toISOString(),
  };
}

for (const dialect of DIALECTS) {
  describe(`customer figures against a recount over random order histories (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(BASE);

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    it('orders_count, total_spent and last_order_at equal a recount from the orders', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 14 }), async (ops) => {
          clock.set(BASE);
          const tenants = await Promise.all(
            TENANT_CURRENCIES.map(async (currency) => {
              const created = await createTenant(ctx, { currency });
              const api = client(ctx.app, created.apiKey.key);
              const products: ProductObject[] = [];
              for (const product of PRODUCTS) {
                const res = await api<ProductObject>('POST', '/v1/products', {
                  body: { ...product, stock: 1000 },
                });
                assert.equal(res.status, 201, JSON.stringify(res.body));
                products.push(res.body);
              }
              return { id: created.tenant.id, currency, api, products };
            }),
          );
          // The model: each order's status and owner, each (tenant, email)'s customer id once known.
          const orders: { tenant: number; email: number; id: string; status: Status }[] = [];
          const customerIds = new Map<string, string>();

          for (const op of ops) {
            if (op.kind === 'clock') {
              clock.advance(op.ms);
              continue;
            }
            clock.advance(1);
            if (op.kind === 'order') {
              const tenant = tenants[op.tenant] as (typeof tenants)[number];
              const key = `${op.tenant}:${op.customer}`;
              const known = customerIds.get(key);
              const email = casify(EMAILS[op.customer] as string, op.upper);
              const body = {
                items: [
                  { product_id: (tenant.products[op.product] as ProductObject).id, quantity: op.quantity },
                ],
                ...(op.byId && known !== undefined
                  ? { customer_id: known }
                  : { customer: { email, ...(op.name === null ? {} : { name: op.name }) } }),
                ...(op.shipping
                  ? { shipping_address: { line1: '1 Main St', city: 'Oslo', country: 'NO' } }
                  : {}),
                ...(op.payment === 'none'
                  ? {}
                  : { payment_method: op.payment === 'visa' ? 'pm_card_visa' : 'pm_card_declined' }),
              };
              const res = await tenant.api<OrderObject>('POST', '/v1/orders', { body });
              assert.equal(res.status, 201, JSON.stringify(res.body));
              const status: Status = op.payment === 'visa' ? 'paid' : 'pending';
              assert.equal(res.body.status, status);
              assert.equal(res.body.customer.email, EMAILS[op.customer]);
              if (known !== undefined) assert.equal(res.body.customer.id, known);
              customerIds.set(key, res.body.customer.id);
              orders.push({ tenant: op.tenant, email: op.customer, id: res.body.id, status });
              continue;
            }
            const order = op.recent
              ? orders[orders.length - 1 - (op.target % Math.min(orders.length, 2))]
              : orders[op.target % Math.max(orders.length, 1)];
            if (order === undefined) continue;
            const api = (tenants[order.tenant] as (typeof tenants)[number]).api;
            if (op.action === 'refund_part' || op.action === 'refund_unit') {
              await refundPart(api, order, op.action, op.share);
              continue;
            }
            const [path, body] =
              op.action === 'pay' || op.action === 'pay_declined'
                ? ['pay', { payment_method: op.action === 'pay' ? 'pm_card_visa' : 'pm_card_declined' }]
                : [op.action, {}];
            const res = await api<OrProblem<OrderObject>>('POST', `/v1/orders/${order.id}/${path}`, {
              body,
            });
            const move = MOVES[op.action];
            if (!move.from.includes(order.status)) {
              assert.equal(res.status, 409, `${op.action} from ${order.status}: ${JSON.stringify(res.body)}`);
            } else if (move.to === null) {
              assert.equal(res.status, 422, JSON.stringify(res.body));
              assert.equal(res.body.code, 'payment_failed');
            } else {
              assert.equal(res.status, 200, `${op.action} from ${order.status}: ${JSON.stringify(res.body)}`);
              assert.equal(res.body.status, move.to);
              order.status = move.to;
            }
          }

          for (const [t, tenant] of tenants.entries()) {
            const customers = await allPages<CustomerObject>(tenant.api, '/v1/customers');
            const emails = new Set(orders.filter((o) => o.tenant === t).map((o) => o.email));
            // One customer per email ordered with, in this tenant only; its total from customer_counts.
            assert.deepEqual(
              customers.map((c) => c.email).sort(),
              [...emails].map((e) => EMAILS[e] as string).sort(),
            );
            const listed = await tenant.api<Page<CustomerObject>>('GET', '/v1/customers?limit=1');
            assert.equal(listed.body.total, emails.size);
            const spentSort = new Map<string, number>();
            for (const customer of customers) {
              const theirs = await allPages<OrderObject>(tenant.api, `/v1/customers/${customer.id}/orders`);
              // The API's orders are the model's: the recount is over the history that was played.
              const modelled = orders.filter((o) => o.tenant === t && EMAILS[o.email] === customer.email);
              assert.deepEqual(
                theirs.map((o) => [o.id, o.status, o.customer.id]).sort(),
                modelled.map((o) => [o.id, o.status, customer.id]).sort(),
              );
              const expected = recount(theirs);
              assert.deepEqual(
                {
                  orders_count: customer.orders_count,
                  total_spent: customer.total_spent,
                  last_order_at: customer.last_order_at,
                },
                expected,
                customer.email,
              );
              assert.deepEqual((await tenant.api('GET', `/v1/customers/${customer.id}`)).body, customer);
              spentSort.set(customer.id, expected.total_spent[tenant.currency] ?? 0);
            }
            // The figure `-total_spent` sorts on is the amount in the tenant's own currency.
            const rows = await ctx.deps.store.db
              .selectFrom('customers')
              .select(['id', 'total_spent_sort'])
              .where('tenant_id', '=', tenant.id)
              .execute();
            assert.deepEqual(
              new Map(rows.map((r) => [r.id, Number(r.total_spent_sort)])),
              spentSort,
              'total_spent_sort',
            );
            const bySpend = await allPages<CustomerObject>(tenant.api, '/v1/customers?sort=-total_spent');
            assert.deepEqual(
              bySpend.map((c) => c.id),
              [...spentSort]
                .sort(([a, x], [b, y]) => y - x || (a < b ? 1 : a > b ? -1 : 0))
                .map(([id]) => id),
            );
          }
        }),
        { numRuns: 30 },
      );
    });
  });
}
