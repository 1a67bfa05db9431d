import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { OrderObject } from './orders.schemas.js';

const MINUTE = 60_000;

/** An order's members in version 2026-12-15, before `cancel_reason` (and the rest of 2027-01-20). */
const ORDER_KEYS_2026_12_15 = [
  'id',
  'status',
  'items',
  'subtotal',
  'discount_total',
  'shipping_total',
  'tax_total',
  'total',
  'discounts',
  'shipping',
  'taxes',
  'currency',
  'customer',
  'shipping_address',
  'payment',
  'metadata',
  'carrier',
  'tracking_number',
  'restocked',
  'created',
  'updated',
  'paid_at',
  'shipped_at',
  'delivered_at',
  'cancelled_at',
  'refunded_at',
  'refunded_amount',
  'refundable_amount',
  'refunds',
];

interface EventObject {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

for (const dialect of DIALECTS) {
  describe(`unpaid orders expire (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    /** A store with one product of 10 units and a discount code; its client and the variant. */
    async function shop(input: { apiVersion?: string } = {}) {
      const created = await createTenant(ctx, input);
      const api = client(ctx.app, created.apiKey.key as string);
      const product = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Mug', price: 1000, stock: 10 },
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const discount = await api<{ id: string }>('POST', '/v1/discounts', {
        body: { code: 'TENOFF', type: 'percentage', value: 1000, usage_limit: 5 },
      });
      assert.equal(discount.status, 201, JSON.stringify(discount.body));
      return { api, tenantId: created.tenant.id, productId: product.body.id, discountId: discount.body.id };
    }

    async function order(api: Client, productId: string, extra: Record<string, unknown> = {}) {
      const res = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: productId, quantity: 2 }],
          customer: { email: 'buyer@example.com' },
          ...extra,
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }

    const stockOf = async (api: Client, productId: string) =>
      (await api<ProductObject>('GET', `/v1/products/${productId}`)).body.stock;
    const usesOf = async (api: Client, discountId: string) =>
      (await api<{ times_used: number }>('GET', `/v1/discounts/${discountId}`)).body.times_used;
    const get = async (api: Client, id: string) => (await api<OrderObject>('GET', `/v1/orders/${id}`)).body;

    async function cancelledEvents(api: Client, orderId: string, headers: Record<string, string> = {}) {
      const page = await api<Page<EventObject>>('GET', '/v1/events?type=order.cancelled&limit=100', {
        headers,
      });
      return page.body.data.filter((event) => event.data.object.id === orderId);
    }

    /** A payment attempt in progress on `order` (its charge not answered yet), as `pay` records it. */
    async function attemptInProgress(tenantId: string, o: OrderObject) {
      return ctx.deps.store.transaction(async (trx) => {
        const attempt = await ctx.deps.payments.newAttempt(
          trx,
          { id: o.id, tenant_id: tenantId, total: o.total, currency: o.currency },
          'pm_card_declined',
          clock.now(),
        );
        await ctx.deps.payments.insertAttempt(trx, attempt);
        return attempt;
      });
    }

    it('cancels a pending order past the store’s expiry once, giving its stock and discount use back', async () => {
      const { api, tenantId, productId, discountId } = await shop();
      const expiring = await order(api, productId, { discount_codes: ['TENOFF'] });
      const paid = await order(api, productId, { payment_method: 'pm_card_visa' });
      assert.equal(paid.status, 'paid');
      const paying = await order(api, productId);
      const attempt = await attemptInProgress(tenantId, paying);
      clock.advance(1439 * MINUTE);
      const young = await order(api, productId);
      assert.equal(await stockOf(api, productId), 2);
      assert.equal(await usesOf(api, discountId), 1);

      // A minute before its time nothing expires.
      assert.equal(await ctx.deps.orders.expireUnpaid(), 0);
      assert.equal((await get(api, expiring.id)).status, 'pending');

      // At 1440 minutes it does: two sweepers at once expire it once, and a third finds nothing.
      clock.advance(MINUTE);
      const runs = await Promise.all([ctx.deps.orders.expireUnpaid(), ctx.deps.orders.expireUnpaid()]);
      assert.equal(runs[0] + runs[1], 1, JSON.stringify(runs));
      assert.equal(await ctx.deps.orders.expireUnpaid(), 0);

      const expired = await get(api, expiring.id);
      assert.equal(expired.status, 'cancelled');
      assert.equal(expired.cancel_reason, 'expired');
      assert.equal(expired.cancelled_at, new Date(clock.now()).toISOString());
      assert.equal(expired.restocked, true);
      assert.equal(await stockOf(api, productId), 4, 'its 2 units back, once');
      assert.equal(await usesOf(api, discountId), 0, 'its discount use back, once');
      const events = await cancelledEvents(api, expiring.id);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.data.object.cancel_reason, 'expired');

      // Paid, paying (its outcome unknown) and young orders are left alone.
      assert.equal((await get(api, paid.id)).status, 'paid');
      assert.equal((await get(api, paying.id)).status, 'pending');
      assert.equal((await get(api, young.id)).status, 'pending');

      // Paying the expired order now is refused; it stays as it is.
      const late = await api<Problem>('POST', `/v1/orders/${expiring.id}/pay`, {
        body: { payment_method: 'pm_card_visa' },
      });
      assert.equal(late.status, 409);
      assert.equal(late.body.code, 'invalid_state_transition');
      assert.equal((await get(api, expiring.id)).status, 'cancelled');

      // The attempt in progress fails: the order it was paying expires at the next sweep.
      const settled = await ctx.deps.payments.chargeAndSettle(attempt);
      assert.equal(settled.payment.status, 'failed');
      assert.equal(await ctx.deps.orders.expireUnpaid(), 1);
      const after = await get(api, paying.id);
      assert.equal(after.status, 'cancelled');
      assert.equal(after.cancel_reason, 'expired');
      assert.equal(await stockOf(api, productId), 6);
      assert.equal((await get(api, young.id)).status, 'pending');
    });

    it('follows each store’s setting: 0 never expires, a shorter one sooner, a change at the next sweep', async () => {
      const never = await shop();
      const quick = await shop();
      const setExpiry = async (api: Client, minutes: number) => {
        const res = await api('PATCH', '/v1/settings', { body: { unpaid_order_expiry_minutes: minutes } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      };
      await setExpiry(never.api, 0);
      await setExpiry(quick.api, 5);
      const kept = await order(never.api, never.productId);
      const soon = await order(quick.api, quick.productId);

      clock.advance(4 * MINUTE);
      await ctx.deps.orders.expireUnpaid();
      assert.equal((await get(quick.api, soon.id)).status, 'pending');
      clock.advance(MINUTE);
      await ctx.deps.orders.expireUnpaid();
      assert.equal((await get(quick.api, soon.id)).cancel_reason, 'expired');

      clock.advance(40 * 24 * 60 * MINUTE);
      await ctx.deps.orders.expireUnpaid();
      assert.equal((await get(never.api, kept.id)).status, 'pending', '0: never');
      assert.equal(await stockOf(never.api, never.productId), 8);

      await setExpiry(never.api, 43_200);
      await ctx.deps.orders.expireUnpaid();
      const gone = await get(never.api, kept.id);
      assert.equal(gone.status, 'cancelled');
      assert.equal(gone.cancel_reason, 'expired');
      assert.equal(await stockOf(never.api, never.productId), 10);
    });

    it('says `requested` for a cancel through the API, and hides cancel_reason from 2026-12-15', async () => {
      const { api, productId } = await shop();
      const placed = await order(api, productId);
      assert.equal(placed.cancel_reason, null);
      const cancelled = await api<OrderObject>('POST', `/v1/orders/${placed.id}/cancel`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.cancel_reason, 'requested');

      const old = { 'x-service-version': '2026-12-15' };
      const asBefore = await api<Record<string, unknown>>('GET', `/v1/orders/${placed.id}`, { headers: old });
      assert.deepEqual(Object.keys(asBefore.body), ORDER_KEYS_2026_12_15);
      const [event] = await cancelledEvents(api, placed.id, old);
      assert.ok(event);
      assert.equal(event.data.object.status, 'cancelled');
      assert.deepEqual(Object.keys(event.data.object), ORDER_KEYS_2026_12_15);
      const [latest] = await cancelledEvents(api, placed.id);
      assert.equal(latest?.data.object.cancel_reason, 'requested');

      // A store pinned to 2026-12-15 sees the old shape without asking, expired orders too.
      const pinned = await shop({ apiVersion: '2026-12-15' });
      const stale = await order(pinned.api, pinned.productId);
      clock.advance(1440 * MINUTE);
      await ctx.deps.orders.expireUnpaid();
      const seen = await get(pinned.api, stale.id);
      assert.equal(seen.status, 'cancelled');
      assert.deepEqual(Object.keys(seen), ORDER_KEYS_2026_12_15);
      const list = await pinned.api<Page<Record<string, unknown>>>('GET', '/v1/orders');
      for (const item of list.body.data) assert.equal('cancel_reason' in item, false);
    });
  });
}
