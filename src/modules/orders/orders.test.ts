import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import type { OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { ManualClock } from '../../lib/clock.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  migratedStore,
  whileResponsesAreRefused,
  type TestContext,
} from '../../../test/helpers/context.js';
import { spawnServer } from '../../../test/helpers/process.js';
import type { OrProblem, Page, Problem as ProblemBody } from '../../../test/helpers/responses.js';
import { MAX_PRICE, type ProductObject } from '../products/products.schemas.js';
import type { OrderObject } from './orders.schemas.js';
import { PAYMENT_LEASE_MS } from './payments.returns.js';
import { type OrderAction, TRANSITIONS } from './orders.lifecycle.js';

/** A problem with the members order refusals add (the problem schema leaves extra members open). */
type Problem = ProblemBody & {
  order_status?: string;
  product_id?: string;
  failure_code?: string;
  payment_id?: string;
};

async function countEvents(db: Db, type: string, objectId?: string): Promise<number> {
  let query = db.selectFrom('events').where('type', '=', type);
  if (objectId !== undefined) query = query.where('object_id', '=', objectId);
  const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

const ACTIONS: OrderAction[] = ['pay', 'ship', 'deliver', 'cancel', 'refund'];
const ACTION_BODY: Record<OrderAction, Record<string, unknown>> = {
  pay: { payment_method: 'pm_card_visa' },
  ship: { carrier: 'UPS', tracking_number: '1Z999' },
  deliver: {},
  cancel: {},
  refund: {},
};

for (const dialect of DIALECTS) {
  describe(`orders (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let api: Client;
    let other: Client;
    let failOn: string | undefined;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      // A failure after the change and before the commit: the emit of `failOn` throws, once.
      ctx.deps.events.onEmit(async (_trx, events) => {
        const failing = events.find((event) => event.type === failOn);
        if (failing) {
          failOn = undefined;
          throw new Error(`injected failure on ${failing.type}`);
        }
      });
    });
    after(() => ctx.close());

    const product = async (body: Record<string, unknown> = {}, as: Client = api) => {
      const res = await as<ProductObject>('POST', '/v1/products', {
        body: { name: 'Widget', price: 1500, stock: 10, ...body },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const stockOf = async (id: string, as: Client = api) =>
      (await as<ProductObject>('GET', `/v1/products/${id}`)).body.stock;
    const order = async (
      items: { product_id: string; quantity: number }[],
      extra: Record<string, unknown> = {},
    ) =>
      api<OrProblem<OrderObject, Problem>>('POST', '/v1/orders', {
        body: { items, customer: { email: 'buyer@example.com' }, ...extra },
      });
    const act = (id: string, action: OrderAction, body: Record<string, unknown> = ACTION_BODY[action]) =>
      api<OrProblem<OrderObject, Problem>>('POST', `/v1/orders/${id}/${action}`, { body });

    it('creates an order with a line-item snapshot, totals, customer, address and metadata', async () => {
      const a = await product({ name: 'Mug', sku: 'MUG-1', price: 1250, stock: 5, category: 'kitchen' });
      const b = await product({ name: 'Tea', price: 899, stock: 9 });
      const address = {
        name: 'Ada L',
        line1: '1 Main St',
        city: 'Springfield',
        postal_code: '12345',
        country: 'US',
      };
      const res = await order(
        [
          { product_id: a.id, quantity: 2 },
          { product_id: b.id, quantity: 3 },
        ],
        {
          customer: { email: 'Ada@Example.com', name: 'Ada' },
          shipping_address: address,
          metadata: { ref: 'A-1' },
        },
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const o = res.body;
      assert.match(o.id, /^ord_[0-9A-Za-z]{24}$/);
      assert.equal(o.status, 'pending');
      const variantOf = (p: ProductObject) => p.variants?.[0]?.id;
      assert.deepEqual(o.items, [
        {
          product_id: a.id,
          variant_id: variantOf(a),
          name: 'Mug',
          variant_title: 'Default',
          sku: 'MUG-1',
          quantity: 2,
          unit_price: 1250,
          total: 2500,
          discount: 0,
          tax: 0,
        },
        {
          product_id: b.id,
          variant_id: variantOf(b),
          name: 'Tea',
          variant_title: 'Default',
          sku: null,
          quantity: 3,
          unit_price: 899,
          total: 2697,
          discount: 0,
          tax: 0,
        },
      ]);
      // A store without discounts, shipping or tax rates: the total is the lines'.
      assert.deepEqual(
        [o.subtotal, o.discount_total, o.shipping_total, o.tax_total, o.total],
        [5197, 0, 0, 0, 5197],
      );
      assert.deepEqual([o.discounts, o.shipping, o.taxes], [[], null, []]);
      assert.equal(o.currency, 'USD');
      assert.match(o.customer.id, /^cus_[0-9A-Za-z]{24}$/);
      assert.deepEqual(o.customer, { id: o.customer.id, email: 'ada@example.com', name: 'Ada' });
      assert.deepEqual(o.shipping_address, address);
      assert.deepEqual(o.metadata, { ref: 'A-1' });
      assert.equal(o.payment, null);
      assert.equal(await stockOf(a.id), 3);
      assert.equal(await stockOf(b.id), 6);
      assert.deepEqual((await api('GET', `/v1/orders/${o.id}`)).body, o);
      assert.equal(await countEvents(ctx.deps.store.db, 'order.created', o.id), 1);

      // Editing and deleting the products never changes the order.
      await api('PATCH', `/v1/products/${a.id}`, { body: { name: 'Renamed', price: 1, sku: 'X' } });
      await api('DELETE', `/v1/products/${b.id}`);
      assert.deepEqual((await api('GET', `/v1/orders/${o.id}`)).body.items, o.items);
    });

    it('validates the order body and names the field', async () => {
      const p = await product();
      const cases: [Record<string, unknown>, string][] = [
        [{ items: [], customer: { email: 'a@b.co' } }, 'items'],
        [{ items: [{ product_id: p.id, quantity: 0 }], customer: { email: 'a@b.co' } }, 'items[0].quantity'],
        [
          { items: [{ product_id: p.id, quantity: '1' }], customer: { email: 'a@b.co' } },
          'items[0].quantity',
        ],
        [{ items: [{ product_id: p.id, quantity: 1 }], customer: { email: 'nope' } }, 'customer.email'],
        [{ items: [{ product_id: p.id, quantity: 1 }] }, 'customer'],
        [
          { items: [{ product_id: p.id, quantity: 1 }], customer: { email: 'a@b.co' }, status: 'paid' },
          'status',
        ],
        [
          {
            items: [{ product_id: p.id, quantity: 1 }],
            customer: { email: 'a@b.co' },
            shipping_address: { city: 'X' },
          },
          'shipping_address.line1',
        ],
        [
          { items: [{ product_id: p.id, quantity: 1 }], customer: { email: 'a@b.co' }, metadata: { n: 1 } },
          'metadata.n',
        ],
        [
          {
            items: [{ product_id: p.id, quantity: 1 }],
            customer: { email: 'a@b.co' },
            payment_method: 'pm_card_amex',
          },
          'payment_method',
        ],
        [
          {
            items: [
              { product_id: p.id, quantity: 1 },
              { product_id: p.id, quantity: 2 },
            ],
            customer: { email: 'a@b.co' },
          },
          'items[1].product_id',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/orders', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body)}`,
        );
      }
      const draft = await product({ status: 'draft' });
      const res = await order([{ product_id: draft.id, quantity: 1 }]);
      assert.equal(res.status, 400);
      assert.equal(res.body.errors?.[0]?.field, 'items[0].product_id');
      assert.equal(await stockOf(p.id), 10);
    });

    it('answers 404 for unknown and foreign products, and 422 for short stock and mixed currencies, reserving nothing', async () => {
      const mine = await product({ stock: 5 });
      const theirs = await product({ stock: 5 }, other);
      const unknown = await order([
        { product_id: mine.id, quantity: 1 },
        { product_id: 'prod_000000000000000000000000', quantity: 1 },
      ]);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'not_found');
      const foreign = await order([
        { product_id: mine.id, quantity: 1 },
        { product_id: theirs.id, quantity: 1 },
      ]);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'not_found');
      assert.equal(await stockOf(theirs.id, other), 5);

      const scarce = await product({ name: 'Scarce', stock: 2 });
      const short = await order([
        { product_id: mine.id, quantity: 1 },
        { product_id: scarce.id, quantity: 3 },
      ]);
      assert.equal(short.status, 422);
      assert.equal(short.body.code, 'insufficient_stock');
      assert.equal(short.body.product_id, scarce.id);
      assert.match(short.body.detail, /Scarce/);

      const euro = await product({ currency: 'EUR', stock: 5 });
      const mixed = await order([
        { product_id: mine.id, quantity: 1 },
        { product_id: euro.id, quantity: 1 },
      ]);
      assert.equal(mixed.status, 422);
      assert.equal(mixed.body.code, 'currency_mismatch');
      assert.deepEqual(
        [await stockOf(mine.id), await stockOf(scarce.id), await stockOf(euro.id)],
        [5, 2, 5],
        'a refused order reserves nothing',
      );
      const euroOrder = await order([{ product_id: euro.id, quantity: 2 }]);
      assert.equal(euroOrder.body.currency, 'EUR');
    });

    it('refuses an order whose total the wallet could not take, before reserving or charging anything', async () => {
      const big = await product({ name: 'Big', price: MAX_PRICE, stock: 5000 });
      const small = await product({ stock: 5 });
      const countOf = async (table: 'orders' | 'payments') =>
        Number(
          (
            await ctx.deps.store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [orders, payments] = [await countOf('orders'), await countOf('payments')];
      const over = MAX_AMOUNT / MAX_PRICE + 1;
      const refused = await order(
        [
          { product_id: small.id, quantity: 1 },
          { product_id: big.id, quantity: over },
        ],
        { payment_method: 'pm_card_visa' },
      );
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'validation_failed');
      assert.equal(refused.body.errors?.[0]?.field, 'items');
      assert.match(refused.body.errors?.[0]?.message ?? '', new RegExp(String(MAX_AMOUNT)));
      assert.deepEqual([await stockOf(big.id), await stockOf(small.id)], [5000, 5]);
      assert.deepEqual([await countOf('orders'), await countOf('payments')], [orders, payments]);

      // At the maximum exactly, it is taken and paid.
      const most = await order([{ product_id: big.id, quantity: over - 1 }], {
        payment_method: 'pm_card_visa',
      });
      assert.equal(most.status, 201, JSON.stringify(most.body));
      assert.equal(most.body.total, MAX_AMOUNT);
      assert.equal(most.body.status, 'paid');
    });

    it('charges a payment_method on creation; a decline still creates the pending order', async () => {
      const p = await product({ stock: 10, price: 2000 });
      const paid = await order([{ product_id: p.id, quantity: 1 }], { payment_method: 'pm_card_visa' });
      assert.equal(paid.status, 201);
      assert.equal(paid.body.status, 'paid');
      assert.match(paid.body.payment?.id ?? '', /^pay_/);
      assert.deepEqual(
        { ...paid.body.payment, id: '' },
        { id: '', status: 'succeeded', method: 'pm_card_visa' },
      );
      assert.ok(paid.body.paid_at);
      const payment = paid.body.payment?.id ?? '';
      assert.equal(await countEvents(ctx.deps.store.db, 'payment.received', payment), 1);
      assert.equal(await countEvents(ctx.deps.store.db, 'order.paid', paid.body.id), 1);

      for (const [method, failure] of [
        ['pm_card_declined', 'card_declined'],
        ['pm_card_insufficient_funds', 'insufficient_funds'],
      ]) {
        const res = await order([{ product_id: p.id, quantity: 1 }], { payment_method: method });
        assert.equal(res.status, 201);
        assert.equal(res.body.status, 'pending');
        assert.equal(res.body.payment?.status, 'failed');
        assert.equal(res.body.payment?.failure_code, failure);
        assert.equal(await countEvents(ctx.deps.store.db, 'payment.failed', res.body.payment?.id), 1);
        assert.equal(await countEvents(ctx.deps.store.db, 'order.paid', res.body.id), 0);
      }
      assert.equal(await stockOf(p.id), 7, 'a declined order still holds its stock');
      const row = await ctx.deps.store.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', payment)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.amount, row.currency, row.provider, row.status],
        [2000, 'USD', 'sandbox', 'succeeded'],
      );
    });

    it('pays a pending order; a declined method is 422 payment_failed and is still recorded', async () => {
      const p = await product();
      const o = (await order([{ product_id: p.id, quantity: 2 }])).body;
      for (const [method, failure] of [
        ['pm_card_declined', 'card_declined'],
        ['pm_card_insufficient_funds', 'insufficient_funds'],
      ]) {
        const res = await act(o.id, 'pay', { payment_method: method });
        assert.equal(res.status, 422);
        assert.equal(res.body.code, 'payment_failed');
        assert.equal(res.body.failure_code, failure);
        assert.match(res.body.payment_id ?? '', /^pay_/);
        assert.equal(await countEvents(ctx.deps.store.db, 'payment.failed', res.body.payment_id), 1);
        const now = (await api<OrderObject>('GET', `/v1/orders/${o.id}`)).body;
        assert.equal(now.status, 'pending');
        assert.deepEqual(now.payment, {
          id: res.body.payment_id,
          status: 'failed',
          method,
          failure_code: failure,
        });
      }
      const bad = await act(o.id, 'pay', { payment_method: 'pm_unknown' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors?.[0]?.field, 'payment_method');
      const ok = await act(o.id, 'pay', { payment_method: 'pm_card_mastercard' });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.status, 'paid');
      assert.equal(ok.body.payment?.method, 'pm_card_mastercard');
      const attempts = await ctx.deps.store.db
        .selectFrom('payments')
        .select('status')
        .where('order_id', '=', o.id)
        .orderBy('created')
        .execute();
      assert.deepEqual(attempts.map((a) => a.status).sort(), ['failed', 'failed', 'succeeded']);
    });

    it('lets one payment attempt run at a time, and settles an attempt whose process died', async () => {
      const p = await product();
      const o = (await order([{ product_id: p.id, quantity: 1 }])).body;
      const racing = await Promise.all(Array.from({ length: 5 }, () => act(o.id, 'pay')));
      assert.deepEqual(racing.map((r) => r.status).sort(), [200, 409, 409, 409, 409]);
      assert.equal(await countEvents(ctx.deps.store.db, 'order.paid', o.id), 1);
      const charged = await ctx.deps.store.db
        .selectFrom('payments')
        .select('status')
        .where('order_id', '=', o.id)
        .execute();
      assert.deepEqual(charged, [{ status: 'succeeded' }]);

      // A process that recorded an attempt and died before the provider answered.
      const stale = (await order([{ product_id: p.id, quantity: 1 }])).body;
      const now = clock.now();
      await ctx.deps.store.db
        .insertInto('payments')
        .values({
          id: 'pay_stale00000000000000000000',
          tenant_id: (
            await ctx.deps.store.db
              .selectFrom('orders')
              .select('tenant_id')
              .where('id', '=', stale.id)
              .executeTakeFirstOrThrow()
          ).tenant_id,
          order_id: stale.id,
          provider: 'sandbox',
          method: 'pm_card_declined',
          amount: stale.total,
          currency: stale.currency,
          status: 'pending',
          failure_code: null,
          failure_message: null,
          provider_reference: null,
          created: now,
          updated: now,
        })
        .execute();
      const busy = await act(stale.id, 'pay');
      assert.equal(busy.status, 409, 'an attempt in flight blocks a second one');
      assert.match(busy.body.detail, /in progress/);
      clock.advance(3 * 60_000);
      const retried = await act(stale.id, 'pay');
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      assert.equal(retried.body.status, 'paid');
      const attempts = await ctx.deps.store.db
        .selectFrom('payments')
        .select(['id', 'status', 'failure_code'])
        .where('order_id', '=', stale.id)
        .orderBy('created')
        .execute();
      assert.deepEqual(
        attempts.map((a) => [a.id === 'pay_stale00000000000000000000', a.status, a.failure_code]),
        [
          [true, 'failed', 'card_declined'],
          [false, 'succeeded', null],
        ],
      );
      assert.equal(
        await countEvents(ctx.deps.store.db, 'payment.failed', 'pay_stale00000000000000000000'),
        1,
      );
    });

    it('runs the lifecycle with an event for every step', async () => {
      const p = await product({ stock: 3 });
      const o = (await order([{ product_id: p.id, quantity: 1 }])).body;
      clock.advance(1000);
      const paid = await act(o.id, 'pay');
      assert.equal(paid.body.status, 'paid');
      clock.advance(1000);
      const shipped = await act(o.id, 'ship', { carrier: 'DHL', tracking_number: 'JD0001' });
      assert.equal(shipped.status, 200);
      assert.equal(shipped.body.status, 'shipped');
      assert.equal(shipped.body.carrier, 'DHL');
      assert.equal(shipped.body.tracking_number, 'JD0001');
      assert.equal(shipped.body.shipped_at, new Date(clock.now()).toISOString());
      clock.advance(1000);
      const delivered = await act(o.id, 'deliver');
      assert.equal(delivered.body.status, 'delivered');
      clock.advance(1000);
      const refunded = await act(o.id, 'refund', { restock: true });
      assert.equal(refunded.status, 200);
      assert.equal(refunded.body.status, 'refunded');
      assert.equal(refunded.body.payment?.status, 'refunded');
      assert.equal(refunded.body.restocked, true);
      assert.equal(await stockOf(p.id), 3);
      for (const type of [
        'order.created',
        'order.paid',
        'order.shipped',
        'order.delivered',
        'order.refunded',
      ]) {
        assert.equal(await countEvents(ctx.deps.store.db, type, o.id), 1, type);
      }
      const listed = await api<Page<{ type: string; data: { object: OrderObject } }>>(
        'GET',
        '/v1/events?type=order.shipped',
      );
      assert.equal(listed.body.data.find((e) => e.data.object.id === o.id)?.data.object.carrier, 'DHL');
      // The order's timeline: its own events only, newest first, counted.
      const timeline = await api<Page<{ type: string; data: { object: { id: string } } }>>(
        'GET',
        `/v1/events?object_id=${o.id}&limit=2`,
      );
      assert.equal(timeline.status, 200, JSON.stringify(timeline.body));
      assert.equal(timeline.body.total, 5);
      assert.deepEqual(
        timeline.body.data.map((e) => e.type),
        ['order.refunded', 'order.delivered'],
      );
      const rest = await api<Page<{ type: string; data: { object: { id: string } } }>>(
        'GET',
        `/v1/events?object_id=${o.id}&limit=10&cursor=${timeline.body.next_cursor}`,
      );
      assert.deepEqual(
        rest.body.data.map((e) => e.type),
        ['order.shipped', 'order.paid', 'order.created'],
      );
      assert.ok([...timeline.body.data, ...rest.body.data].every((e) => e.data.object.id === o.id));
      const itsShipping = await api<Page<{ type: string }>>(
        'GET',
        `/v1/events?object_id=${o.id}&type=order.shipped`,
      );
      assert.deepEqual(
        itsShipping.body.data.map((e) => e.type),
        ['order.shipped'],
      );
      const none = await api<Page<unknown>>('GET', '/v1/events?object_id=ord_unknown');
      assert.deepEqual([none.status, none.body.data.length, none.body.total], [200, 0, 0]);
      const empty = await api<Problem>('GET', '/v1/events?object_id=');
      assert.equal(empty.status, 400);
      assert.ok(
        empty.body.errors?.some((e) => e.field === 'object_id'),
        JSON.stringify(empty.body),
      );
    });

    it('refuses every illegal transition with 409 invalid_state_transition', async () => {
      const p = await product({ stock: 100 });
      const reach: Record<OrderStatus, OrderAction[]> = {
        pending: [],
        paid: ['pay'],
        shipped: ['pay', 'ship'],
        delivered: ['pay', 'ship', 'deliver'],
        cancelled: ['cancel'],
        refunded: ['pay', 'refund'],
      };
      let checked = 0;
      for (const [status, path] of Object.entries(reach) as [OrderStatus, OrderAction[]][]) {
        for (const action of ACTIONS) {
          if (TRANSITIONS[action].from.includes(status)) continue;
          const o = (await order([{ product_id: p.id, quantity: 1 }])).body;
          for (const step of path)
            assert.equal((await act(o.id, step)).status, 200, `${step} to reach ${status}`);
          const res = await act(o.id, action);
          assert.equal(res.status, 409, `${action} from ${status}`);
          assert.equal(res.body.code, 'invalid_state_transition');
          assert.equal(res.body.status, 409, 'the problem keeps its HTTP status');
          assert.equal(res.body.order_status, status);
          assert.equal((await api<OrderObject>('GET', `/v1/orders/${o.id}`)).body.status, status);
          checked += 1;
        }
      }
      // 6 statuses x 5 actions minus the 8 legal moves.
      assert.equal(checked, 22);
    });

    it('releases stock exactly once, even for concurrent cancels, and returns a captured payment', async () => {
      const p = await product({ stock: 10 });
      const o = (await order([{ product_id: p.id, quantity: 4 }])).body;
      assert.equal(await stockOf(p.id), 6);
      assert.equal((await act(o.id, 'cancel')).status, 200);
      assert.equal(await stockOf(p.id), 10);
      const again = await act(o.id, 'cancel');
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'invalid_state_transition');
      assert.equal(await stockOf(p.id), 10);

      const racing = (await order([{ product_id: p.id, quantity: 3 }], { payment_method: 'pm_card_visa' }))
        .body;
      const results = await Promise.all(Array.from({ length: 5 }, () => act(racing.id, 'cancel')));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409]);
      assert.equal(await stockOf(p.id), 10);
      const cancelled = results.find((r) => r.status === 200)?.body;
      assert.equal(cancelled?.payment?.status, 'refunded');
      assert.equal(await countEvents(ctx.deps.store.db, 'order.cancelled', racing.id), 1);
    });

    it('refunds without restock by default', async () => {
      const p = await product({ stock: 5 });
      const o = (await order([{ product_id: p.id, quantity: 2 }], { payment_method: 'pm_card_visa' })).body;
      const res = await act(o.id, 'refund');
      assert.equal(res.body.status, 'refunded');
      assert.equal(res.body.restocked, false);
      assert.equal(await stockOf(p.id), 3);
      const bad = await act(o.id, 'refund', { restock: 'yes' });
      assert.equal(bad.status, 400);
    });

    it('emits product.outofstock when an order takes the last unit, and counts it', async () => {
      const p = await product({ stock: 2, category: 'last-units' });
      await order([{ product_id: p.id, quantity: 1 }]);
      assert.equal(await countEvents(ctx.deps.store.db, 'product.outofstock', p.id), 0);
      const last = (await order([{ product_id: p.id, quantity: 1 }])).body;
      assert.equal(await countEvents(ctx.deps.store.db, 'product.outofstock', p.id), 1);
      const out = await api<Page<ProductObject>>('GET', '/v1/products?category=last-units&in_stock=false');
      assert.deepEqual([out.body.total, out.body.data[0]?.id], [1, p.id]);
      await act(last.id, 'cancel');
      const back = await api<Page<ProductObject>>('GET', '/v1/products?category=last-units&in_stock=true');
      assert.deepEqual([back.body.total, back.body.data[0]?.stock], [1, 1]);
    });

    it('emits product.updated with the stock each order leaves or gives back', async () => {
      const a = await product({ stock: 5 });
      const b = await product({ stock: 3 });
      const db = ctx.deps.store.db;
      /** The stock each product.updated event of `id` carries, oldest first. */
      const stockSeen = async (id: string) =>
        (
          await db
            .selectFrom('events')
            .where('type', '=', 'product.updated')
            .where('object_id', '=', id)
            .orderBy('created')
            .select('data')
            .execute()
        ).map((e) => (JSON.parse(e.data) as ProductObject).stock);

      const placed = (
        await order([
          { product_id: a.id, quantity: 2 },
          { product_id: b.id, quantity: 3 },
        ])
      ).body;
      assert.deepEqual(await stockSeen(a.id), [3]);
      assert.deepEqual(await stockSeen(b.id), [0]);
      assert.equal(await countEvents(db, 'product.outofstock', b.id), 1);
      assert.equal(await countEvents(db, 'product.outofstock', a.id), 0);

      // A refusal moves no stock and says nothing.
      clock.advance(1000);
      assert.equal((await order([{ product_id: b.id, quantity: 1 }])).status, 422);
      assert.deepEqual(await stockSeen(b.id), [0]);

      clock.advance(1000);
      await act(placed.id, 'cancel');
      assert.deepEqual(await stockSeen(a.id), [3, 5]);
      assert.deepEqual(await stockSeen(b.id), [0, 3]);
      assert.equal(await countEvents(db, 'product.outofstock', b.id), 1);

      // A refund without restock leaves the stock, and so product.updated, alone.
      const paid = { payment_method: 'pm_card_visa' };
      clock.advance(1000);
      const kept = (await order([{ product_id: a.id, quantity: 1 }], paid)).body;
      clock.advance(1000);
      const returned = (await order([{ product_id: a.id, quantity: 2 }], paid)).body;
      assert.deepEqual(await stockSeen(a.id), [3, 5, 4, 2]);
      clock.advance(1000);
      assert.equal((await act(kept.id, 'refund', { restock: false })).status, 200);
      assert.deepEqual(await stockSeen(a.id), [3, 5, 4, 2]);
      clock.advance(1000);
      assert.equal((await act(returned.id, 'refund', { restock: true })).status, 200);
      assert.deepEqual(await stockSeen(a.id), [3, 5, 4, 2, 4]);
      assert.equal(await stockOf(a.id), 4);
    });

    it('answers 404 for another tenant’s order on every route', async () => {
      const p = await product();
      const o = (await order([{ product_id: p.id, quantity: 1 }])).body;
      assert.equal((await other('GET', `/v1/orders/${o.id}`)).status, 404);
      for (const action of ACTIONS) {
        const res = await other<Problem>('POST', `/v1/orders/${o.id}/${action}`, {
          body: ACTION_BODY[action],
        });
        assert.equal(res.status, 404, action);
        assert.equal(res.body.code, 'not_found');
      }
      const theirs = await other<Page<OrderObject>>('GET', '/v1/orders');
      assert.ok(!theirs.body.data.some((x) => x.id === o.id));
      assert.equal((await api<OrderObject>('GET', `/v1/orders/${o.id}`)).body.status, 'pending');
    });

    it('replays an order with the same Idempotency-Key without a second order or reservation', async () => {
      const p = await product({ stock: 5 });
      const body = { items: [{ product_id: p.id, quantity: 2 }], customer: { email: 'i@example.com' } };
      const headers = { 'idempotency-key': `order-${p.id}` };
      const first = await api<OrderObject>('POST', '/v1/orders', { body, headers });
      const second = await api<OrderObject>('POST', '/v1/orders', { body, headers });
      assert.equal(first.status, 201);
      assert.equal(second.status, 201);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(second.body.id, first.body.id);
      assert.equal(await stockOf(p.id), 3);
    });

    it('answers a committed order whose payment outcome could not be recorded as 201 pending, once', async () => {
      const db = ctx.deps.store.db;
      const p = await product({ stock: 5 });
      const body = {
        items: [{ product_id: p.id, quantity: 1 }],
        customer: { email: 'settle@example.com' },
        payment_method: 'pm_card_visa',
      };
      const headers = { 'idempotency-key': `settle-${p.id}` };
      failOn = 'payment.received'; // the settle transaction fails after the order committed
      const first = await api<OrderObject>('POST', '/v1/orders', { body, headers });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.status, 'pending');
      assert.equal(first.body.payment?.status, 'pending');
      const again = await api<OrderObject>('POST', '/v1/orders', { body, headers });
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.id, first.body.id);
      assert.equal(await stockOf(p.id), 4, 'reserved once');
      assert.equal(await countEvents(db, 'order.created', first.body.id), 1);

      // Within its lease the attempt belongs to its process; past it, the sweep settles it once.
      await ctx.deps.payments.settleStalePayments();
      assert.equal((await api<OrderObject>('GET', `/v1/orders/${first.body.id}`)).body.status, 'pending');
      clock.advance(PAYMENT_LEASE_MS);
      await ctx.deps.payments.settleStalePayments();
      await ctx.deps.payments.settleStalePayments();
      const settled = (await api<OrderObject>('GET', `/v1/orders/${first.body.id}`)).body;
      assert.equal(settled.status, 'paid');
      assert.equal(settled.payment?.id, first.body.payment?.id);
      assert.equal(settled.payment?.status, 'succeeded');
      assert.equal(await countEvents(db, 'payment.received', settled.payment?.id), 1);
      assert.equal(await countEvents(db, 'order.paid', first.body.id), 1);
    });

    it('resumes a payment whose answer was a 5xx when retried with its Idempotency-Key: one charge', async () => {
      const db = ctx.deps.store.db;
      const p = await product({ stock: 5 });
      const o = (await order([{ product_id: p.id, quantity: 1 }])).body;
      const pay = () =>
        api<OrProblem<OrderObject, Problem>>('POST', `/v1/orders/${o.id}/pay`, {
          body: { payment_method: 'pm_card_visa' },
          headers: { 'idempotency-key': `pay-${o.id}` },
        });
      failOn = 'payment.received'; // charged, then recording the outcome fails
      assert.equal((await pay()).status, 500);
      const retried = await pay();
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      assert.equal(retried.headers['idempotent-replayed'], undefined);
      assert.equal(retried.body.status, 'paid');
      const replayed = await pay();
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.body.payment?.id, retried.body.payment?.id);
      const attempts = await db
        .selectFrom('payments')
        .select(['id', 'status'])
        .where('order_id', '=', o.id)
        .execute();
      assert.deepEqual(attempts, [{ id: retried.body.payment?.id, status: 'succeeded' }]);
      assert.equal(await countEvents(db, 'payment.received', retried.body.payment?.id), 1);
      assert.equal(await countEvents(db, 'order.paid', o.id), 1);
    });

    it('answers a retry for the order it committed when the first answer could not be stored', async () => {
      const db = ctx.deps.store.db;
      const p = await product({ stock: 5 });
      const email = `lost-${p.id.toLowerCase()}@example.com`;
      const send = () =>
        api<OrProblem<OrderObject, Problem>>('POST', '/v1/orders', {
          body: { items: [{ product_id: p.id, quantity: 2 }], customer: { email } },
          headers: { 'idempotency-key': `lost-${p.id}` },
        });
      // Storing the response fails after the order committed (a trigger refuses the update).
      assert.ok((await whileResponsesAreRefused(db, dialect, send)).status >= 500);
      const retried = await send();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      const stored = await db.selectFrom('orders').select('id').where('customer_email', '=', email).execute();
      assert.deepEqual(stored, [{ id: retried.body.id }], 'one order');
      assert.equal(await stockOf(p.id), 3, 'reserved once');
      assert.equal(await countEvents(db, 'order.created', retried.body.id), 1);
      assert.equal((await send()).headers['idempotent-replayed'], 'true');
    });

    it('writes an event if and only if its change commits', async () => {
      const db = ctx.deps.store.db;
      const before = await api<Page<ProductObject>>('GET', '/v1/products?limit=1');

      failOn = 'product.created';
      const created = await api<Problem>('POST', '/v1/products', {
        body: { name: 'Ghost', price: 1, sku: 'GHOST' },
      });
      assert.equal(created.status, 500);
      assert.equal(created.body.code, 'internal_error');
      const found = await db.selectFrom('products').select('id').where('sku', '=', 'GHOST').execute();
      assert.deepEqual(found, []);
      assert.equal(
        (await api<Page<ProductObject>>('GET', '/v1/products?limit=1')).body.total,
        before.body.total,
      );

      const p = await product({ stock: 1 });
      const eventsBefore = await countEvents(db, 'order.created');
      failOn = 'product.outofstock';
      const failed = await order([{ product_id: p.id, quantity: 1 }]);
      assert.equal(failed.status, 500);
      assert.equal(await stockOf(p.id), 1, 'the reservation rolled back');
      assert.equal(
        await countEvents(db, 'order.created'),
        eventsBefore,
        'no event for the order that never was',
      );
      assert.equal(await countEvents(db, 'product.outofstock', p.id), 0);

      const o = (await order([{ product_id: p.id, quantity: 1 }], { payment_method: 'pm_card_visa' })).body;
      assert.equal(o.status, 'paid');
      failOn = 'order.cancelled';
      assert.equal((await act(o.id, 'cancel')).status, 500);
      const still = (await api<OrderObject>('GET', `/v1/orders/${o.id}`)).body;
      assert.equal(still.status, 'paid');
      assert.equal(still.payment?.status, 'succeeded');
      assert.equal(await stockOf(p.id), 0);
      assert.equal(await countEvents(db, 'order.cancelled', o.id), 0);

      failOn = 'product.updated';
      assert.equal((await api('PATCH', `/v1/products/${p.id}`, { body: { name: 'Changed' } })).status, 500);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${p.id}`)).body.name, 'Widget');

      // Without the injected failure each change commits with exactly its event.
      assert.equal((await act(o.id, 'cancel')).status, 200);
      assert.equal(await countEvents(db, 'order.cancelled', o.id), 1);
      assert.equal(await stockOf(p.id), 1);
    });

    it('lists orders with filters, exact totals and cursors', async () => {
      const lister = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const p = await product({ stock: 100 }, lister);
      clock.set('2026-03-01T00:00:00.000Z');
      const made: OrderObject[] = [];
      for (let i = 0; i < 7; i++) {
        clock.advance(3_600_000);
        const res = await lister<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: p.id, quantity: 1 }],
            customer: { email: i % 2 === 0 ? 'even@example.com' : 'Odd@example.com' },
            ...(i < 3 ? { payment_method: 'pm_card_visa' } : {}),
          },
        });
        made.push(res.body);
      }
      const newest = [...made].reverse();
      const all = await lister<Page<OrderObject>>('GET', '/v1/orders');
      assert.deepEqual(
        all.body.data.map((o) => o.id),
        newest.map((o) => o.id),
      );
      assert.equal(all.body.total, 7);
      assert.equal(all.body.data[6]?.items[0]?.product_id, p.id);

      const check = async (query: string, want: OrderObject[]) => {
        const res = await lister<Page<OrderObject>>('GET', `/v1/orders?${query}`);
        assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(
          res.body.data.map((o) => o.id),
          want.map((o) => o.id),
          query,
        );
        assert.equal(res.body.total, want.length, query);
      };
      await check(
        'status=paid',
        newest.filter((o) => o.status === 'paid'),
      );
      await check(
        'status=pending',
        newest.filter((o) => o.status === 'pending'),
      );
      await check(
        'customer_email=ODD@example.com',
        newest.filter((o) => o.customer.email === 'odd@example.com'),
      );
      await check(
        `created_from=${made[2]?.created}&created_to=${made[4]?.created}`,
        newest.filter((o) => o.created >= (made[2]?.created ?? '') && o.created <= (made[4]?.created ?? '')),
      );

      const ids: string[] = [];
      let url = '/v1/orders?limit=3';
      for (;;) {
        const page = await lister<Page<OrderObject>>('GET', url);
        ids.push(...page.body.data.map((o) => o.id));
        if (page.body.next_cursor === null) break;
        url = `/v1/orders?limit=3&cursor=${page.body.next_cursor}`;
      }
      assert.deepEqual(
        ids,
        newest.map((o) => o.id),
      );

      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['offset=-1', 'offset'],
        ['cursor=bad', 'cursor'],
        ['status=lost', 'status'],
        ['created_from=yesterday', 'created_from'],
        ['created_to=2026-12-31T23:59:60Z', 'created_to'],
        [`created_from=${made[4]?.created}&created_to=${made[2]?.created}`, 'created_from'],
        ['sort=price', 'sort'],
      ]) {
        const res = await lister<Problem>('GET', `/v1/orders?${query}`);
        assert.equal(res.status, 400, query);
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${query}: ${JSON.stringify(res.body)}`,
        );
      }
    });

    it('never oversells: with stock N, N+20 concurrent orders give exactly N successes', async () => {
      const n = 15;
      const p = await product({ stock: n, name: 'Hot item' });
      const results = await Promise.all(
        Array.from({ length: n + 20 }, (_, i) =>
          order([{ product_id: p.id, quantity: 1 }], { customer: { email: `rush${i}@example.com` } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, n);
      assert.equal(statuses.filter((s) => s === 422).length, 20);
      for (const r of results.filter((r) => r.status === 422))
        assert.equal(r.body.code, 'insufficient_stock');
      assert.equal(await stockOf(p.id), 0);
      assert.equal(await countEvents(ctx.deps.store.db, 'product.outofstock', p.id), 1);
      // One product.updated for each order placed, none for a refused one.
      assert.equal(await countEvents(ctx.deps.store.db, 'product.updated', p.id), n);
    });
  });
}

describe(
  'no oversell across two server processes on PostgreSQL',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    it('with stock N, N+20 concurrent orders over two processes give exactly N successes', async () => {
      const store = await migratedStore('postgres');
      const deps = await createDeps(loadConfig(store.env), { poolSize: 2 });
      const servers: Awaited<ReturnType<typeof spawnServer>>[] = [];
      try {
        const tenant = await deps.tenants.create({ name: 'Two processes', email: 'two@example.com' });
        const n = 20;
        const p = await deps.products.create(
          { id: tenant.tenant.id, currency: 'USD' },
          {
            name: 'Contended',
            price: 500,
            stock: n,
          },
        );
        servers.push(await spawnServer(store.env), await spawnServer(store.env));
        const results = await Promise.all(
          Array.from({ length: n + 20 }, async (_, i) => {
            const server = servers[i % 2];
            const res = await fetch(`${server?.url}/v1/orders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${tenant.apiKey.key}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                items: [{ product_id: p.id, quantity: 1 }],
                customer: { email: `p${i}@example.com` },
              }),
            });
            const body = (await res.json()) as { code?: string };
            return { status: res.status, code: body.code };
          }),
        );
        assert.equal(results.filter((r) => r.status === 201).length, n, JSON.stringify(results));
        assert.equal(results.filter((r) => r.status === 422 && r.code === 'insufficient_stock').length, 20);
        const row = await deps.store.db
          .selectFrom('products')
          .select('stock')
          .where('id', '=', p.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.stock, 0);
        assert.equal(await countEvents(deps.store.db, 'product.outofstock', p.id), 1);
        assert.equal(await countEvents(deps.store.db, 'order.created'), n);
      } finally {
        for (const server of servers) await server.stop();
        await deps.close();
        await store.drop();
      }
    });

    it('variants of one product ordered together and apart over two processes: exact stock, no deadlock', async () => {
      const store = await migratedStore('postgres');
      const deps = await createDeps(loadConfig(store.env), { poolSize: 2 });
      const servers: Awaited<ReturnType<typeof spawnServer>>[] = [];
      try {
        const tenant = await deps.tenants.create({ name: 'Two processes', email: 'two-v@example.com' });
        const p = await deps.products.create(
          { id: tenant.tenant.id, currency: 'USD' },
          {
            name: 'Contended shirt',
            options: [{ name: 'Size', values: ['S', 'M'] }],
            variants: [
              { options: { Size: 'S' }, price: 500, stock: 10 },
              { options: { Size: 'M' }, price: 600, stock: 10 },
            ],
          },
        );
        const [small, medium] = (p.variants ?? []).map((v) => v.id);
        servers.push(await spawnServer(store.env), await spawnServer(store.env));
        // Each variant is asked for 20 units; a third of the orders take one of each, in both orders.
        const lines = (i: number) =>
          i % 3 === 0
            ? [
                { variant_id: i % 2 ? small : medium, quantity: 1 },
                { variant_id: i % 2 ? medium : small, quantity: 1 },
              ]
            : [{ variant_id: i % 3 === 1 ? small : medium, quantity: 1 }];
        const results = await Promise.all(
          Array.from({ length: 30 }, async (_, i) => {
            const res = await fetch(`${servers[i % 2]?.url}/v1/orders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${tenant.apiKey.key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ items: lines(i), customer: { email: `v${i}@example.com` } }),
            });
            return { status: res.status, body: (await res.json()) as OrderObject & { code?: string } };
          }),
        );
        assert.ok(
          results.every(
            (r) => r.status === 201 || (r.status === 422 && r.body.code === 'insufficient_stock'),
          ),
          JSON.stringify(results.map((r) => [r.status, r.body.code])),
        );
        const sold = new Map<string, number>();
        for (const r of results.filter((r) => r.status === 201))
          for (const item of r.body.items)
            sold.set(item.variant_id, (sold.get(item.variant_id) ?? 0) + item.quantity);
        const variants = await deps.store.db
          .selectFrom('product_variants')
          .select(['id', 'stock'])
          .where('product_id', '=', p.id)
          .execute();
        let total = 0;
        for (const v of variants) {
          assert.equal(v.stock + (sold.get(v.id) ?? 0), 10, v.id);
          total += v.stock;
          const soldOut = await deps.store.db
            .selectFrom('events')
            .where('type', '=', 'product.outofstock')
            .where('extra', 'like', `%${v.id}%`)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          assert.equal(Number(soldOut.n), v.stock === 0 ? 1 : 0, v.id);
        }
        const product = await deps.store.db
          .selectFrom('products')
          .select('stock')
          .where('id', '=', p.id)
          .executeTakeFirstOrThrow();
        assert.equal(product.stock, total);
        assert.ok((sold.get(small ?? '') ?? 0) > 0 && (sold.get(medium ?? '') ?? 0) > 0);
      } finally {
        for (const server of servers) await server.stop();
        await deps.close();
        await store.drop();
      }
    });
  },
);
