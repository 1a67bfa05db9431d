import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { ManualClock } from '../../lib/clock.js';
import { createSandboxProvider, type PaymentProvider } from './payments.provider.js';
import { PAYMENT_LEASE_MS } from './payments.returns.js';
import type { BalanceObject } from '../wallet/wallet.schemas.js';
import type { OrderObject } from './orders.schemas.js';

/**
 * A refund is committed before the payment provider is told. When the telling never happens (the
 * process dies, the provider fails), the refund stays owed and a sweep tells the provider later:
 * money committed as returned is returned.
 */

/** The sandbox, with refunds that can be made to fail and charges that can be held. */
function controllableProvider() {
  const sandbox = createSandboxProvider();
  const state = {
    refundFails: false,
    /** Payment ids the provider refunded. */
    refunded: [] as string[],
    /** While set, charges wait for it. */
    hold: undefined as Promise<void> | undefined,
  };
  const provider: PaymentProvider = {
    ...sandbox,
    async charge(input) {
      if (state.hold) await state.hold;
      return sandbox.charge(input);
    },
    async refund(input) {
      if (state.refundFails) throw new Error('provider unreachable');
      state.refunded.push(input.paymentId);
      return sandbox.refund(input);
    },
  };
  return { provider, state };
}

for (const dialect of DIALECTS) {
  describe(`owed refunds (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    const clock = new ManualClock();
    const { provider, state } = controllableProvider();

    before(async () => {
      ctx = await createTestContext(dialect, { clock, paymentProvider: provider });
    });
    beforeEach(async () => {
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      state.refundFails = false;
      state.hold = undefined;
    });
    after(() => ctx.close());

    async function paidOrder(): Promise<OrderObject> {
      const made = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Lamp', price: 4200, stock: 5 },
      });
      const res = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: made.body.id, quantity: 1 }],
          customer: { email: 'buyer@example.com' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(res.body.status, 'paid', JSON.stringify(res.body));
      return res.body;
    }
    async function owed(paymentId: string): Promise<number | null> {
      const row = await ctx.deps.store.db
        .selectFrom('payments')
        .select(['status', 'refund_due_at'])
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'refunded');
      return row.refund_due_at;
    }
    /** When the provider is owed the order's one refund (its row), null once it confirmed. */
    async function owedRefund(orderId: string): Promise<number | null> {
      const rows = await ctx.deps.store.db
        .selectFrom('refunds')
        .select('due_at')
        .where('order_id', '=', orderId)
        .execute();
      assert.equal(rows.length, 1);
      return rows[0]?.due_at ?? null;
    }
    async function available(): Promise<number> {
      return (await api<BalanceObject>('GET', '/v1/wallet/balance')).body.available;
    }

    for (const action of ['refund', 'cancel'] as const) {
      it(`returns a ${action} the provider did not confirm once its lease is over, once`, async () => {
        const order = await paidOrder();
        const paymentId = order.payment?.id ?? '';
        state.refundFails = true;
        const res = await api<OrderObject>('POST', `/v1/orders/${order.id}/${action}`, { body: {} });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.payment?.status, 'refunded');
        assert.notEqual(
          await owedRefund(order.id),
          null,
          'committed as refunded, the provider still owes it',
        );
        assert.equal(await owed(paymentId), null, 'owed on the refund, not on the payment');
        assert.deepEqual(state.refunded, []);

        state.refundFails = false;
        assert.equal(await ctx.deps.payments.returnOwedRefunds(), 0, 'within its lease');
        clock.advance(PAYMENT_LEASE_MS);
        const sweeps = await Promise.all([
          ctx.deps.payments.returnOwedRefunds(),
          ctx.deps.payments.returnOwedRefunds(),
        ]);
        assert.equal(sweeps[0] + sweeps[1], 1);
        assert.deepEqual(state.refunded, [paymentId], 'told once');
        assert.equal(await owedRefund(order.id), null);
        assert.equal(await ctx.deps.payments.returnOwedRefunds(), 0);
        state.refunded.length = 0;
      });
    }

    it('clears a refund the provider confirms at once', async () => {
      const order = await paidOrder();
      await api('POST', `/v1/orders/${order.id}/refund`, { body: {} });
      assert.deepEqual(state.refunded, [order.payment?.id]);
      assert.equal(await owedRefund(order.id), null);
      assert.equal(await owed(order.payment?.id ?? ''), null);
      state.refunded.length = 0;
    });

    it('refunds a charge that succeeds after its order was cancelled, owed in the same transaction', async () => {
      const made = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Chair', price: 5100, stock: 5 },
      });
      const created = await api<OrderObject>('POST', '/v1/orders', {
        body: { items: [{ product_id: made.body.id, quantity: 1 }], customer: { email: 'late@example.com' } },
      });
      let release = () => {};
      state.hold = new Promise<void>((resolve) => (release = resolve));
      const paying = api<OrderObject>('POST', `/v1/orders/${created.body.id}/pay`, {
        body: { payment_method: 'pm_card_visa' },
      });
      // The charge is in flight (its attempt recorded) when the order is cancelled.
      let paymentId: string | undefined;
      for (let i = 0; i < 200 && paymentId === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        paymentId = (
          await ctx.deps.store.db
            .selectFrom('payments')
            .select('id')
            .where('order_id', '=', created.body.id)
            .executeTakeFirst()
        )?.id;
      }
      assert.ok(paymentId, 'the charge started');
      const cancelled = await api<OrderObject>('POST', `/v1/orders/${created.body.id}/cancel`, { body: {} });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      state.refundFails = true; // the provider cannot be told: as if the process died here
      release();
      await paying;

      assert.notEqual(await owed(paymentId), null);
      const after = (await api<OrderObject>('GET', `/v1/orders/${created.body.id}`)).body;
      assert.equal(after.status, 'cancelled');
      assert.equal(after.payment?.status, 'refunded');
      assert.equal(await available(), 0, 'a cancelled order credits nothing');
      // Its one event says so: the payment was received and is refunded, nothing to book.
      const received = await ctx.deps.store.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'payment.received')
        .where('object_id', '=', paymentId)
        .execute();
      assert.equal(received.length, 1);
      const data = JSON.parse(String(received[0]?.data)) as { status: string };
      assert.equal(data.status, 'refunded');

      state.refundFails = false;
      clock.advance(PAYMENT_LEASE_MS);
      assert.equal(await ctx.deps.payments.returnOwedRefunds(), 1);
      assert.deepEqual(state.refunded, [paymentId]);
      assert.equal(await owed(paymentId), null);
      state.refunded.length = 0;
    });
  });
}
