import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { OrderObject } from './orders.schemas.js';
import { createSandboxProvider, type PaymentProvider, type RefundInput } from './payments.provider.js';
import { PAYMENT_LEASE_MS } from './payments.returns.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { BalanceObject, TransactionObject } from '../wallet/wallet.schemas.js';
import type { RefundObject } from './refunds.schemas.js';

/**
 * Refunds through the API: a part of an order (an amount, units, the shipping), several per order,
 * the last one closing it, the whole refund and the cancel through the same code, refusals that
 * write nothing, concurrent refunds that never pass what was captured, and the provider told once.
 */

/** The sandbox, recording the refunds it is sent, and able to fail them. */
function recordingProvider() {
  const sandbox = createSandboxProvider();
  const state = { fail: false, sent: [] as RefundInput[] };
  const provider: PaymentProvider = {
    ...sandbox,
    async refund(input) {
      if (state.fail) throw new Error('provider unreachable');
      state.sent.push(input);
      return sandbox.refund(input);
    },
  };
  return { provider, state };
}

type Refused = OrProblem<RefundObject, Problem & { refundable_amount?: number; order_status?: string }>;

interface Line {
  price: number;
  quantity: number;
  /** What the buyer paid for the line, when a checkout's discount or tax made it other than price × quantity. */
  paid?: number;
  /** An existing variant to order instead of a new product. */
  variant?: { id: string; product: string };
}

for (const dialect of DIALECTS) {
  describe(`refunds (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let other: Client;
    const clock = new ManualClock();
    const { provider, state } = recordingProvider();

    before(async () => {
      ctx = await createTestContext(dialect, { clock, paymentProvider: provider });
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    beforeEach(async () => {
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      state.fail = false;
      state.sent.length = 0;
    });
    after(() => ctx.close());

    const db = () => ctx.deps.store.db;

    async function product(price: number, stock = 10): Promise<{ id: string; product: string }> {
      const res = await api<ProductObject>('POST', '/v1/products', { body: { name: 'Lamp', price, stock } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { id: res.body.variants?.[0]?.id ?? '', product: res.body.id };
    }

    /**
     * A paid order of `lines`, priced as a checkout would: each line's `paid` and the shipping paid
     * are set before payment (as discounts, tax and shipping make them), the order's total their
     * sum, which the payment captures and credits to the wallet.
     */
    async function paidOrder(lines: Line[], shippingPaid = 0): Promise<OrderObject> {
      const variants = [];
      for (const line of lines) variants.push(line.variant ?? (await product(line.price)));
      const created = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: variants.map((variant, index) => ({
            variant_id: variant.id,
            quantity: lines[index]?.quantity ?? 1,
          })),
          customer: { email: 'buyer@example.com' },
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      let total = shippingPaid;
      for (const [position, line] of lines.entries()) {
        const paid = line.paid ?? line.price * line.quantity;
        total += paid;
        await db()
          .updateTable('order_items')
          .set({ paid })
          .where('order_id', '=', created.body.id)
          .where('position', '=', position)
          .execute();
      }
      await db()
        .updateTable('orders')
        .set({ total, shipping_paid: shippingPaid })
        .where('id', '=', created.body.id)
        .execute();
      const paid = await api<OrderObject>('POST', `/v1/orders/${created.body.id}/pay`, {
        body: { payment_method: 'pm_card_visa' },
      });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.total, total);
      return paid.body;
    }

    const refund = (orderId: string, body: Record<string, unknown>, as: Client = api) =>
      as<Refused>('POST', `/v1/orders/${orderId}/refunds`, { body });
    const getOrder = async (id: string) => (await api<OrderObject>('GET', `/v1/orders/${id}`)).body;
    const available = async () => (await api<BalanceObject>('GET', '/v1/wallet/balance')).body.available;
    const stockOf = async (variant: { product: string }) =>
      (await api<ProductObject>('GET', `/v1/products/${variant.product}`)).body.stock;

    async function eventsOf(type: string, objectId: string): Promise<Record<string, unknown>[]> {
      const rows = await db()
        .selectFrom('events')
        .select('data')
        .where('type', '=', type)
        .where('object_id', '=', objectId)
        .orderBy('created')
        .execute();
      return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
    }
    async function refundEventsOf(orderId: string): Promise<RefundObject[]> {
      const rows = await db()
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'refund.created')
        .orderBy('created')
        .execute();
      return rows
        .map((row) => JSON.parse(row.data) as RefundObject)
        .filter((object) => object.order_id === orderId);
    }
    async function ledgerOk(): Promise<void> {
      const report = await ctx.deps.wallet.verify();
      assert.ok(report.ok, JSON.stringify(report.violations));
    }

    it('refunds an amount: the refund, the order, the wallet, the event and the provider', async () => {
      const order = await paidOrder([{ price: 2500, quantity: 2 }]);
      const balance = await available();
      clock.advance(1000);
      const res = await refund(order.id, { amount: 700, reason: 'Late delivery' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const made = res.body;
      assert.match(made.id, /^re_[0-9A-Za-z]{24}$/);
      assert.deepEqual(made, {
        id: made.id,
        order_id: order.id,
        amount: 700,
        currency: 'USD',
        items: [],
        shipping: 0,
        restocked: false,
        reason: 'Late delivery',
        status: 'succeeded',
        created: new Date(clock.now()).toISOString(),
        livemode: true,
      });

      const after = await getOrder(order.id);
      assert.equal(after.status, 'paid');
      assert.equal(after.payment?.status, 'succeeded');
      assert.deepEqual([after.refunded_amount, after.refundable_amount], [700, 4300]);
      // The order holds its refunds as the refund's own route answers them, `livemode` included.
      assert.deepEqual(after.refunds, [made]);
      assert.equal(await available(), balance - 700);
      assert.deepEqual(await refundEventsOf(order.id), [made]);
      assert.deepEqual(await eventsOf('order.refunded', order.id), []);
      const listed = await api<Page<RefundObject>>('GET', `/v1/orders/${order.id}/refunds`);
      assert.equal(listed.status, 200);
      assert.deepEqual([listed.body.data, listed.body.total, listed.body.has_more], [[made], 1, false]);

      // Told at once, keyed by the refund, for its amount; nothing owed after.
      assert.deepEqual(
        state.sent.map((sent) => [sent.refundId, sent.paymentId, sent.amount, sent.currency]),
        [[made.id, order.payment?.id, 700, 'USD']],
      );
      const row = await db()
        .selectFrom('refunds')
        .select(['due_at', 'provider_reference'])
        .where('id', '=', made.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.due_at, null);
      assert.match(row.provider_reference ?? '', /^re_sandbox_/);
      // One wallet transaction of the refund, naming it; the ledger holds.
      const txns = await api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?type=refund');
      assert.deepEqual(
        txns.body.data.map((t) => [t.amount, t.source_id, (t.description ?? '').includes(made.id)]),
        [[-700, order.id, true]],
      );
      await ledgerOk();
    });

    it('refunds units at what the buyer paid for them, pro rata, adding up to the line exactly', async () => {
      // A line of 3 paid 1000 (a discount took 500 off 1500): 333, 333, then 334.
      const order = await paidOrder([
        { price: 500, quantity: 3, paid: 1000 },
        { price: 800, quantity: 1 },
      ]);
      const variant = order.items[0]?.variant_id ?? '';
      const amounts = [];
      for (let i = 0; i < 3; i++) {
        const res = await refund(order.id, { items: [{ variant_id: variant, quantity: 1 }] });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(res.body.items, [{ variant_id: variant, quantity: 1, amount: res.body.amount }]);
        amounts.push(res.body.amount);
      }
      assert.deepEqual(amounts, [333, 333, 334]);
      const after = await getOrder(order.id);
      assert.deepEqual([after.status, after.refunded_amount, after.refundable_amount], ['paid', 1000, 800]);
      const lines = await db()
        .selectFrom('order_items')
        .select(['position', 'refunded_quantity'])
        .where('order_id', '=', order.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        lines.map((line) => Number(line.refunded_quantity)),
        [3, 0],
      );
      // Its units are all refunded now.
      const more = await refund(order.id, { items: [{ variant_id: variant, quantity: 1 }] });
      assert.equal(more.status, 400);
      assert.equal(more.body.errors?.[0]?.field, 'items[0].quantity');
    });

    it('puts refunded units back in stock per variant with restock, and leaves it alone without', async () => {
      const shirt = await api<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Shirt',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { options: { Size: 'S' }, price: 2000, stock: 5 },
            { options: { Size: 'M' }, price: 2000, stock: 5 },
          ],
        },
      });
      assert.equal(shirt.status, 201, JSON.stringify(shirt.body));
      const [small, medium] = (shirt.body.variants ?? []).map((v) => ({ id: v.id, product: shirt.body.id }));
      assert.ok(small && medium);
      const order = await paidOrder([
        { price: 2000, quantity: 3, variant: small },
        { price: 2000, quantity: 2, variant: medium },
      ]);
      const variantStock = async (id: string) =>
        Number(
          (
            await db()
              .selectFrom('product_variants')
              .select('stock')
              .where('id', '=', id)
              .executeTakeFirstOrThrow()
          ).stock,
        );
      assert.deepEqual([await variantStock(small.id), await variantStock(medium.id)], [2, 3]);
      const updatesBefore = (await eventsOf('product.updated', shirt.body.id)).length;

      const kept = await refund(order.id, { items: [{ variant_id: small.id, quantity: 1 }] });
      assert.equal(kept.status, 201, JSON.stringify(kept.body));
      assert.equal(kept.body.restocked, false);
      assert.deepEqual([await variantStock(small.id), await variantStock(medium.id)], [2, 3]);
      assert.equal((await eventsOf('product.updated', shirt.body.id)).length, updatesBefore);

      clock.advance(1000);
      const back = await refund(order.id, {
        items: [
          { variant_id: medium.id, quantity: 2 },
          { variant_id: small.id, quantity: 1 },
        ],
        restock: true,
      });
      assert.equal(back.status, 201, JSON.stringify(back.body));
      assert.equal(back.body.restocked, true);
      assert.deepEqual(back.body.items, [
        { variant_id: medium.id, quantity: 2, amount: 4000 },
        { variant_id: small.id, quantity: 1, amount: 2000 },
      ]);
      assert.deepEqual([await variantStock(small.id), await variantStock(medium.id)], [3, 5]);
      assert.equal(await stockOf(small), 8);
      const updates = await eventsOf('product.updated', shirt.body.id);
      assert.equal(updates.length, updatesBefore + 1, 'one product.updated for the product moved');
      assert.equal(updates.at(-1)?.stock, 8);
      const after = await getOrder(order.id);
      assert.deepEqual([after.status, after.restocked, after.refundable_amount], ['paid', true, 2000]);

      // A cancel then puts back only the units no refund put back: 2 of S (1 refunded kept, 2 never refunded).
      const cancelled = await api<OrderObject>('POST', `/v1/orders/${order.id}/cancel`, { body: {} });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.deepEqual([await variantStock(small.id), await variantStock(medium.id)], [5, 5]);
    });

    it('refunds the shipping once, alone or with items', async () => {
      const order = await paidOrder([{ price: 1200, quantity: 2 }], 450);
      assert.equal(order.total, 2850);
      const variant = order.items[0]?.variant_id ?? '';
      const both = await refund(order.id, { items: [{ variant_id: variant, quantity: 1 }], shipping: true });
      assert.equal(both.status, 201, JSON.stringify(both.body));
      assert.deepEqual([both.body.amount, both.body.shipping], [1650, 450]);
      const again = await refund(order.id, { shipping: true });
      assert.equal(again.status, 400);
      assert.equal(again.body.errors?.[0]?.field, 'shipping');
      // All that is left: the other unit, no shipping.
      const rest = await refund(order.id, {});
      assert.equal(rest.status, 201, JSON.stringify(rest.body));
      assert.deepEqual(
        [rest.body.amount, rest.body.shipping, rest.body.items],
        [1200, 0, [{ variant_id: variant, quantity: 1, amount: 1200 }]],
      );
      assert.equal((await getOrder(order.id)).status, 'refunded');
    });

    it('takes several refunds; the last closes the order, with order.refunded once', async () => {
      const order = await paidOrder([{ price: 1000, quantity: 4 }], 300);
      const variant = order.items[0]?.variant_id ?? '';
      const balance = await available();
      const steps: Record<string, unknown>[] = [
        { amount: 150 },
        { items: [{ variant_id: variant, quantity: 2 }] },
        { shipping: true },
        { amount: 50 },
      ];
      for (const body of steps) {
        clock.advance(1000);
        const res = await refund(order.id, body);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const now = await getOrder(order.id);
        assert.equal(now.status, 'paid');
        assert.equal(now.payment?.status, 'succeeded');
      }
      assert.deepEqual(await eventsOf('order.refunded', order.id), []);
      let now = await getOrder(order.id);
      assert.deepEqual([now.refunded_amount, now.refundable_amount], [2500, 1800]);
      // The last two units are worth 2000, more than the 1800 left after 200 of bare amounts.
      const over = await refund(order.id, { items: [{ variant_id: variant, quantity: 2 }] });
      assert.equal(over.status, 422);
      assert.equal(over.body.code, 'amount_exceeds_refundable');
      assert.equal(over.body.refundable_amount, 1800);

      clock.advance(1000);
      const last = await refund(order.id, { amount: 1800 });
      assert.equal(last.status, 201, JSON.stringify(last.body));
      now = await getOrder(order.id);
      assert.equal(now.status, 'refunded');
      assert.equal(now.payment?.status, 'refunded');
      assert.equal(now.refunded_at, new Date(clock.now()).toISOString());
      assert.deepEqual([now.refunded_amount, now.refundable_amount], [4300, 0]);
      assert.deepEqual(
        now.refunds.map((r) => r.amount),
        [150, 2000, 300, 50, 1800],
        'oldest first',
      );
      const closed = await eventsOf('order.refunded', order.id);
      assert.equal(closed.length, 1);
      // An event's object holds its refunds without `livemode` (the event's object says it).
      assert.deepEqual(
        closed[0]?.refunds,
        now.refunds.map(({ livemode: _mode, ...refund }: RefundObject & { livemode?: boolean }) => refund),
      );
      assert.equal((await refundEventsOf(order.id)).length, 5);
      assert.equal(await available(), balance - 4300);

      // Nothing is left: another refund is 422, the whole refund 409, as for a refunded order.
      const more = await refund(order.id, { amount: 1 });
      assert.deepEqual(
        [more.status, more.body.code, more.body.refundable_amount],
        [422, 'amount_exceeds_refundable', 0],
      );
      assert.equal((await refund(order.id, {})).status, 422);
      const whole = await api<Refused>('POST', `/v1/orders/${order.id}/refund`, { body: {} });
      assert.deepEqual([whole.status, whole.body.code], [409, 'invalid_state_transition']);
      await ledgerOk();
    });

    it('refunds the rest through /refund: one refund of the units not refunded and the shipping left', async () => {
      const a = await product(1000, 10);
      const b = await product(500, 10);
      const order = await paidOrder(
        [
          { price: 1000, quantity: 3, variant: a },
          { price: 500, quantity: 2, variant: b },
        ],
        250,
      );
      const partial = await refund(order.id, { items: [{ variant_id: a.id, quantity: 1 }], restock: true });
      assert.equal(partial.status, 201, JSON.stringify(partial.body));
      assert.deepEqual([await stockOf(a), await stockOf(b)], [8, 8]);
      const balance = await available();
      clock.advance(1000);

      const res = await api<OrderObject>('POST', `/v1/orders/${order.id}/refund`, {
        body: { restock: true },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'refunded');
      assert.equal(res.body.payment?.status, 'refunded');
      assert.equal(res.body.restocked, true);
      assert.equal(res.body.refunds.length, 2);
      const rest = res.body.refunds[1];
      assert.deepEqual(
        [rest?.amount, rest?.shipping, rest?.restocked, rest?.items],
        [
          3250,
          250,
          true,
          [
            { variant_id: a.id, quantity: 2, amount: 2000 },
            { variant_id: b.id, quantity: 2, amount: 1000 },
          ],
        ],
      );
      assert.deepEqual([await stockOf(a), await stockOf(b)], [10, 10], 'each unit back once');
      assert.equal(await available(), balance - 3250);
      assert.deepEqual(
        (await refundEventsOf(order.id)).map((r) => r.id),
        res.body.refunds.map((r) => r.id),
      );
      assert.equal((await eventsOf('order.refunded', order.id)).length, 1);
      assert.deepEqual(await getOrder(order.id), res.body);
    });

    it('returns what is left of a paid order on cancel as a refund; cancelled, not refunded', async () => {
      const order = await paidOrder([{ price: 1500, quantity: 2 }]);
      assert.equal((await refund(order.id, { amount: 400 })).status, 201);
      const balance = await available();
      clock.advance(1000);
      const res = await api<OrderObject>('POST', `/v1/orders/${order.id}/cancel`, { body: {} });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.status, res.body.payment?.status, res.body.refunded_amount, res.body.refundable_amount],
        ['cancelled', 'refunded', 3000, 0],
      );
      const cancelRefund = res.body.refunds[1];
      assert.deepEqual(
        [cancelRefund?.amount, cancelRefund?.restocked, cancelRefund?.items.map((i) => i.quantity)],
        [2600, true, [2]],
      );
      assert.equal(await available(), balance - 2600);
      assert.deepEqual(
        (await refundEventsOf(order.id)).map((r) => r.amount),
        [400, 2600],
      );
      assert.deepEqual(await eventsOf('order.refunded', order.id), []);
      assert.equal((await eventsOf('order.cancelled', order.id)).length, 1);
      const refused = await refund(order.id, { amount: 1 });
      assert.deepEqual([refused.status, refused.body.code], [409, 'invalid_state_transition']);
      // A pending order's cancel returns no money: no refund.
      const pending = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ variant_id: order.items[0]?.variant_id, quantity: 1 }],
          customer: { email: 'p@example.com' },
        },
      });
      const cancelled = await api<OrderObject>('POST', `/v1/orders/${pending.body.id}/cancel`, { body: {} });
      assert.deepEqual([cancelled.body.status, cancelled.body.refunds], ['cancelled', []]);
      await ledgerOk();
    });

    it('refuses bad input naming the field, and writes nothing', async () => {
      const lamp = await product(1000, 10);
      const order = await paidOrder([{ price: 1000, quantity: 2, variant: lamp }], 200);
      const foreign = await product(700, 10);
      const snapshot = async () => ({
        order: await getOrder(order.id),
        available: await available(),
        stock: await stockOf(lamp),
        refunds: Number(
          (
            await db()
              .selectFrom('refunds')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
        events: Number(
          (
            await db()
              .selectFrom('events')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      });
      const before = await snapshot();
      const cases: [Record<string, unknown>, number, string][] = [
        [{ amount: 0 }, 400, 'amount'],
        [{ amount: -100 }, 400, 'amount'],
        [{ amount: 10.5 }, 400, 'amount'],
        [{ amount: 100, items: [{ variant_id: lamp.id, quantity: 1 }] }, 400, 'items'],
        [{ amount: 100, shipping: true }, 400, 'shipping'],
        [{ amount: 100, restock: true }, 400, 'restock'],
        [{ items: [{ variant_id: foreign.id, quantity: 1 }] }, 400, 'items[0].variant_id'],
        [{ items: [{ variant_id: 'var_nope', quantity: 1 }] }, 400, 'items[0].variant_id'],
        [{ items: [{ variant_id: lamp.id, quantity: 3 }] }, 400, 'items[0].quantity'],
        [{ items: [{ variant_id: lamp.id, quantity: 0 }] }, 400, 'items[0].quantity'],
        [
          {
            items: [
              { variant_id: lamp.id, quantity: 1 },
              { variant_id: lamp.id, quantity: 1 },
            ],
          },
          400,
          'items[1].variant_id',
        ],
        [{ items: [] }, 400, 'items'],
        [{ reason: '' }, 400, 'reason'],
        [{ amount: 100, extra: true }, 400, 'extra'],
        [{ amount: 2201 }, 422, 'amount_exceeds_refundable'],
      ];
      for (const [body, status, expected] of cases) {
        const res = await refund(order.id, body);
        assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        if (status === 400) {
          assert.equal(res.body.code, 'validation_failed');
          assert.ok(
            res.body.errors?.some((e) => e.field === expected),
            `${JSON.stringify(body)} names ${expected}: ${JSON.stringify(res.body.errors)}`,
          );
        } else {
          assert.equal(res.body.code, expected);
        }
      }
      assert.deepEqual(await snapshot(), before);

      // A wallet that cannot cover it: 422 insufficient_funds, nothing written.
      const out = await api('POST', '/v1/wallet/transfer', {
        body: { amount: before.available, currency: 'USD', destination_wallet_id: await otherWallet() },
      });
      assert.equal(out.status, 201, JSON.stringify(out.body));
      const broke = await snapshot();
      const poor = await refund(order.id, { amount: 100 });
      assert.deepEqual([poor.status, poor.body.code], [422, 'insufficient_funds']);
      assert.deepEqual(await snapshot(), broke);

      // The order's state: another tenant's is 404, an unknown one 404, an unpaid one 409.
      assert.equal((await refund(order.id, { amount: 100 }, other)).status, 404);
      assert.equal((await other('GET', `/v1/orders/${order.id}/refunds`)).status, 404);
      assert.equal((await refund('ord_nope', { amount: 100 })).status, 404);
      const pending = await api<OrderObject>('POST', '/v1/orders', {
        body: { items: [{ variant_id: lamp.id, quantity: 1 }], customer: { email: 'p@example.com' } },
      });
      const unpaid = await refund(pending.body.id, { amount: 100 });
      assert.deepEqual(
        [unpaid.status, unpaid.body.code, unpaid.body.order_status],
        [409, 'invalid_state_transition', 'pending'],
      );
      assert.deepEqual(
        (await api<Page<RefundObject>>('GET', `/v1/orders/${pending.body.id}/refunds`)).body.data,
        [],
      );
    });

    async function otherWallet(): Promise<string> {
      return (await other<BalanceObject>('GET', '/v1/wallet/balance')).body.wallet_id;
    }

    it('never refunds more than was captured under concurrent refunds', async () => {
      const order = await paidOrder([{ price: 1000, quantity: 1 }]);
      const balance = await available();
      const results = await Promise.all(Array.from({ length: 20 }, () => refund(order.id, { amount: 100 })));
      assert.deepEqual(results.map((r) => r.status).sort(), [
        ...Array<number>(10).fill(201),
        ...Array<number>(10).fill(422),
      ]);
      for (const res of results.filter((r) => r.status === 422)) {
        assert.equal(res.body.code, 'amount_exceeds_refundable');
      }
      const after = await getOrder(order.id);
      assert.deepEqual(
        [after.status, after.refunded_amount, after.refundable_amount, after.refunds.length],
        ['refunded', 1000, 0, 10],
      );
      assert.equal(await available(), balance - 1000);
      assert.equal((await refundEventsOf(order.id)).length, 10);
      assert.equal((await eventsOf('order.refunded', order.id)).length, 1);
      const debits = await db()
        .selectFrom('ledger_postings')
        .select((eb) => eb.fn.sum<number>('amount').as('sum'))
        .where('type', '=', 'refund')
        .where('source_id', '=', order.id)
        .where('tenant_id', 'is not', null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(debits.sum), -1000);
      assert.equal(state.sent.length, 10);
      assert.equal(new Set(state.sent.map((s) => s.refundId)).size, 10);
      await ledgerOk();
    });

    it('takes at most 99 partial refunds per order, then only the refund of all that is left', async () => {
      const order = await paidOrder([{ price: 10_000, quantity: 1 }]);
      for (let i = 0; i < 99; i++) {
        const res = await refund(order.id, { amount: 1 });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const hundredth = await refund(order.id, { amount: 1 });
      assert.deepEqual([hundredth.status, hundredth.body.code], [422, 'limit_exceeded']);
      const rest = await refund(order.id, {});
      assert.equal(rest.status, 201, JSON.stringify(rest.body));
      assert.equal(rest.body.amount, 10_000 - 99);
      const listed = await api<Page<RefundObject>>('GET', `/v1/orders/${order.id}/refunds`);
      assert.deepEqual([listed.body.total, listed.body.data.length], [100, 100]);
      assert.equal((await getOrder(order.id)).status, 'refunded');
    });

    it('answers a retried refund with the same Idempotency-Key once', async () => {
      const order = await paidOrder([{ price: 1000, quantity: 1 }]);
      const headers = { 'idempotency-key': `refund-${order.id}` };
      const send = () =>
        api<RefundObject>('POST', `/v1/orders/${order.id}/refunds`, { body: { amount: 300 }, headers });
      const first = await send();
      const second = await send();
      assert.equal(first.status, 201);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal((await getOrder(order.id)).refunds.length, 1);
    });

    it('sends a refund the provider did not confirm once its lease is over, once, keyed by the refund', async () => {
      const order = await paidOrder([{ price: 1000, quantity: 2 }]);
      state.fail = true;
      const made = await refund(order.id, { amount: 250 });
      assert.equal(made.status, 201, 'committed whatever the provider says');
      const owed = async () =>
        (
          await db()
            .selectFrom('refunds')
            .select('due_at')
            .where('id', '=', made.body.id)
            .executeTakeFirstOrThrow()
        ).due_at;
      assert.equal(await owed(), clock.now() + PAYMENT_LEASE_MS);
      state.fail = false;
      assert.equal(await ctx.deps.payments.returnOwedRefunds(), 0, 'within its lease');
      clock.advance(PAYMENT_LEASE_MS);
      const sweeps = await Promise.all([
        ctx.deps.payments.returnOwedRefunds(),
        ctx.deps.payments.returnOwedRefunds(),
      ]);
      assert.equal(sweeps[0] + sweeps[1], 1);
      assert.deepEqual(
        state.sent.map((s) => [s.refundId, s.amount]),
        [[made.body.id, 250]],
      );
      assert.equal(await owed(), null);
      assert.equal(await ctx.deps.payments.returnOwedRefunds(), 0);
    });

    it('shows refunds on order lists, read in one query for the page', async () => {
      const lister = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const saved = api;
      api = lister;
      try {
        const first = await paidOrder([{ price: 1000, quantity: 1 }]);
        const second = await paidOrder([{ price: 2000, quantity: 1 }]);
        await refund(first.id, { amount: 100 });
        await refund(second.id, { amount: 200 });
        clock.advance(1000);
        await refund(second.id, { amount: 300 });
        const page = await lister<Page<OrderObject>>('GET', '/v1/orders');
        const byId = new Map(page.body.data.map((o) => [o.id, o]));
        assert.deepEqual(
          byId.get(first.id)?.refunds.map((r) => r.amount),
          [100],
        );
        assert.deepEqual(
          byId.get(second.id)?.refunds.map((r) => r.amount),
          [200, 300],
        );
        assert.deepEqual(byId.get(second.id), await getOrder(second.id));
      } finally {
        api = saved;
      }
    });

    it('carries a whole refund owed before refunds existed to its refund row, sent keyed by its payment', async () => {
      // As release v2.4 left it: refunded, its refund owed on the payment (migrations 0022 and 0024 move it).
      const order = await paidOrder([{ price: 1000, quantity: 1 }]);
      const paymentId = order.payment?.id ?? '';
      const legacyId = `re_${order.id.slice(4)}`;
      await db().deleteFrom('refunds').where('order_id', '=', order.id).execute();
      await db()
        .insertInto('refunds')
        .values({
          id: legacyId,
          tenant_id: (
            await db()
              .selectFrom('orders')
              .select('tenant_id')
              .where('id', '=', order.id)
              .executeTakeFirstOrThrow()
          ).tenant_id,
          order_id: order.id,
          payment_id: paymentId,
          amount: 1000,
          currency: 'USD',
          items: JSON.stringify([{ variant_id: order.items[0]?.variant_id, quantity: 1, amount: 1000 }]),
          shipping: 0,
          restocked: 0,
          reason: null,
          status: 'succeeded',
          due_at: clock.now(),
          provider_reference: null,
          created: clock.now(),
        })
        .execute();
      await db()
        .updateTable('payments')
        .set({ status: 'refunded', refund_due_at: clock.now() })
        .where('id', '=', paymentId)
        .execute();
      await sql`UPDATE orders SET status = 'refunded', refunded_amount = total, refunded_at = ${clock.now()}
        WHERE id = ${order.id}`.execute(db());
      const migration = await import('../../db/migrations/0024_refunds_owed.js');
      // The migration's own statement, on this store (a migration takes the untyped database).
      await migration.up(db() as unknown as Kysely<unknown>);
      const payment = await db()
        .selectFrom('payments')
        .select('refund_due_at')
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      assert.equal(payment.refund_due_at, null, 'owed on the refund row only');

      assert.equal(await ctx.deps.payments.returnOwedRefunds(), 1);
      assert.deepEqual(
        state.sent.map((s) => [s.refundId, s.paymentId, s.amount]),
        [[paymentId, paymentId, 1000]],
        'keyed by the payment, as that release sent it',
      );
      assert.equal(await ctx.deps.payments.returnOwedRefunds(), 0);
      const shown = await getOrder(order.id);
      assert.deepEqual(
        [shown.status, shown.refundable_amount, shown.refunds.map((r) => r.id)],
        ['refunded', 0, [legacyId]],
      );
    });
  });
}
