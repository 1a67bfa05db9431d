import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';

/** Fulfilments and returns of orders, their stock at locations, and what older versions see. */

interface Order {
  id: string;
  status: string;
  fulfillment_status: string;
  fulfillments: {
    id: string;
    items: { variant_id: string; quantity: number }[];
    tracking: Record<string, unknown>;
  }[];
  returns: { id: string; status: string }[];
  refunded_amount: number;
}
interface Level {
  location_id: string;
  on_hand: number;
  committed: number;
  available: number;
}

for (const dialect of DIALECTS) {
  describe(`fulfilments and returns (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const made = await createTenant(ctx, { currency: 'USD' });
      tenantId = made.tenant.id;
      api = client(ctx.app, made.apiKey.key);
    });
    after(() => ctx.close());

    async function product(stock: number): Promise<{ productId: string; variantId: string }> {
      const made = await api<{ id: string; variants: { id: string }[] }>('POST', '/v1/products', {
        body: { name: 'Shirt', price: 1_000, currency: 'USD', stock },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { productId: made.body.id, variantId: made.body.variants[0]?.id ?? '' };
    }

    async function paidOrder(items: { variant_id: string; quantity: number }[]): Promise<string> {
      const made = await api<Order>('POST', '/v1/orders', {
        body: { customer: { email: 'buyer@example.com' }, items, payment_method: 'pm_card_visa' },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.status, 'paid');
      return made.body.id;
    }

    async function order(id: string): Promise<Order> {
      const read = await api<Order>('GET', `/v1/orders/${id}`);
      assert.equal(read.status, 200);
      return read.body;
    }

    async function levelsAt(productId: string, variantId: string, locationId: string): Promise<number[]> {
      const read = await api<{ data: Level[] }>(
        'GET',
        `/v1/products/${productId}/variants/${variantId}/inventory`,
      );
      const level = read.body.data.find((row) => row.location_id === locationId);
      return level ? [level.on_hand, level.committed, level.available] : [];
    }

    async function defaultLocation(): Promise<string> {
      const list = await api<{ data: { id: string; default: boolean }[] }>('GET', '/v1/locations');
      return list.body.data.find((row) => row.default)?.id ?? '';
    }

    async function eventTypes(orderOrObjectIds: string[]): Promise<string[]> {
      const rows = await ctx.deps.store.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('tenant_id', '=', tenantId)
        .orderBy('created')
        .execute();
      return rows
        .filter((row) => orderOrObjectIds.some((id) => String(row.data).includes(id)))
        .map((row) => row.type);
    }

    it('ships an order in parts, with tracking, and refuses more than is left, naming the item', async () => {
      const a = await product(10);
      const b = await product(10);
      const home = await defaultLocation();
      const id = await paidOrder([
        { variant_id: a.variantId, quantity: 3 },
        { variant_id: b.variantId, quantity: 1 },
      ]);
      assert.deepEqual(await levelsAt(a.productId, a.variantId, home), [10, 3, 7]);
      const first = await api<{
        id: string;
        status: string;
        tracking: Record<string, unknown>;
        location_id: string;
      }>('POST', `/v1/orders/${id}/fulfillments`, {
        body: {
          items: [{ variant_id: a.variantId, quantity: 2 }],
          carrier: 'UPS',
          tracking_number: '1Z1',
          tracking_url: 'https://ups.example/1Z1',
        },
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.match(first.body.id, /^ful_/);
      assert.equal(first.body.status, 'shipped');
      assert.equal(first.body.location_id, home);
      assert.deepEqual(first.body.tracking, {
        carrier: 'UPS',
        number: '1Z1',
        url: 'https://ups.example/1Z1',
      });
      assert.deepEqual(
        await levelsAt(a.productId, a.variantId, home),
        [8, 1, 7],
        'shipped units leave on hand',
      );
      let read = await order(id);
      assert.equal(read.status, 'paid');
      assert.equal(read.fulfillment_status, 'partial');
      assert.equal(read.fulfillments.length, 1);

      const tooMany = await api<{ code: string; variant_id: string; unfulfilled: number }>(
        'POST',
        `/v1/orders/${id}/fulfillments`,
        { body: { items: [{ variant_id: a.variantId, quantity: 2 }] } },
      );
      assert.equal(tooMany.status, 422);
      assert.equal(tooMany.body.code, 'quantity_exceeds_unfulfilled');
      assert.equal(tooMany.body.variant_id, a.variantId);
      assert.equal(tooMany.body.unfulfilled, 1);
      const stranger = await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { items: [{ variant_id: 'var_unknown', quantity: 1 }] },
      });
      assert.equal(stranger.status, 400);
      assert.equal((await order(id)).fulfillments.length, 1, 'refusals change nothing');

      // /ship fulfils the rest, and the order is shipped.
      const shipped = await api<Order>('POST', `/v1/orders/${id}/ship`, { body: { carrier: 'DHL' } });
      assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
      assert.equal(shipped.body.status, 'shipped');
      assert.equal(shipped.body.fulfillment_status, 'fulfilled');
      assert.equal(shipped.body.fulfillments.length, 2);
      assert.deepEqual(shipped.body.fulfillments[1]?.items, [
        { variant_id: a.variantId, quantity: 1 },
        { variant_id: b.variantId, quantity: 1 },
      ]);
      read = await order(id);
      assert.deepEqual(await levelsAt(a.productId, a.variantId, home), [7, 0, 7]);
      const types = await eventTypes([id]);
      assert.equal(types.filter((type) => type === 'order.shipped').length, 1, types.join());
      assert.equal(types.filter((type) => type === 'fulfillment.created').length, 2, types.join());
      assert.equal(
        (await api('POST', `/v1/orders/${id}/fulfillments`, { body: {} })).status,
        409,
        'a shipped order has nothing left',
      );
    });

    it('ships from another location, and refuses another store’s location', async () => {
      const { productId, variantId } = await product(1);
      const shop = await api<{ id: string }>('POST', '/v1/locations', { body: { name: 'Shop' } });
      await api('POST', '/v1/inventory/adjustments', {
        body: { variant_id: variantId, location_id: shop.body.id, delta: 4 },
      });
      const id = await paidOrder([{ variant_id: variantId, quantity: 2 }]);
      const home = await defaultLocation();
      // Committed: 1 at the default location, 1 at the shop; shipping both from the shop.
      assert.deepEqual(await levelsAt(productId, variantId, shop.body.id), [4, 1, 3]);
      const other = client(ctx.app, (await createTenant(ctx, { currency: 'USD' })).apiKey.key);
      const theirs = await other<{ id: string }>('POST', '/v1/locations', { body: { name: 'Theirs' } });
      const refused = await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { location_id: theirs.body.id },
      });
      assert.equal(refused.status, 404);
      const made = await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { location_id: shop.body.id },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual(await levelsAt(productId, variantId, shop.body.id), [2, 0, 2]);
      assert.deepEqual(await levelsAt(productId, variantId, home), [1, 0, 1], 'its commitment released');
      const read = await api<{ variants: { stock: number }[] }>('GET', `/v1/products/${productId}`);
      assert.equal(read.body.variants[0]?.stock, 3);
    });

    it('concurrent fulfilments of one order never exceed it', async () => {
      const { productId, variantId } = await product(10);
      const id = await paidOrder([{ variant_id: variantId, quantity: 5 }]);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          api('POST', `/v1/orders/${id}/fulfillments`, {
            body: { items: [{ variant_id: variantId, quantity: 2 }] },
          }),
        ),
      );
      const made = results.filter((result) => result.status === 201).length;
      assert.equal(made, 2, JSON.stringify(results.map((result) => result.status)));
      assert.ok(results.every((result) => result.status === 201 || result.status === 422));
      const read = await order(id);
      assert.equal(read.fulfillments.length, 2);
      assert.equal(read.fulfillment_status, 'partial');
      assert.deepEqual(await levelsAt(productId, variantId, await defaultLocation()), [6, 1, 5]);
    });

    it('returns shipped units; received twice restocks once; refunds in the same transaction', async () => {
      const { productId, variantId } = await product(5);
      const home = await defaultLocation();
      const id = await paidOrder([{ variant_id: variantId, quantity: 2 }]);
      const early = await api<{ code: string }>('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      assert.equal(early.status, 422, 'nothing shipped yet');
      assert.equal(early.body.code, 'quantity_exceeds_returnable');
      assert.equal((await api('POST', `/v1/orders/${id}/ship`, { body: {} })).status, 200);
      assert.deepEqual(await levelsAt(productId, variantId, home), [3, 0, 3]);

      const tooMany = await api<{ code: string; variant_id: string }>('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 3 }] },
      });
      assert.equal(tooMany.status, 422);
      assert.equal(tooMany.body.variant_id, variantId);
      const made = await api<{ id: string; status: string }>('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 2, reason: 'too small' }] },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.match(made.body.id, /^ret_/);
      assert.equal(made.body.status, 'requested');
      const again = await api('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      assert.equal(again.status, 422, 'both units are in a return already');

      const receipts = await Promise.all(
        [1, 2].map(() =>
          api<{ status: string; refund_id: string | null; restocked: boolean }>(
            'POST',
            `/v1/returns/${made.body.id}/receive`,
            { body: { restock: true, refund: true } },
          ),
        ),
      );
      const ok = receipts.filter((receipt) => receipt.status === 200);
      assert.equal(ok.length, 1, JSON.stringify(receipts.map((receipt) => receipt.body)));
      assert.equal(receipts.filter((receipt) => receipt.status === 409).length, 1);
      assert.match(ok[0]?.body.refund_id ?? '', /^re_/);
      assert.deepEqual(await levelsAt(productId, variantId, home), [5, 0, 5], 'restocked once');
      const read = await order(id);
      assert.equal(read.refunded_amount, 2_000);
      assert.equal(read.status, 'refunded');
      assert.equal(read.returns[0]?.status, 'received');
      const types = await eventTypes([made.body.id]);
      assert.ok(types.includes('return.created') && types.includes('return.received'), types.join());
      assert.equal((await api('POST', `/v1/returns/${made.body.id}/cancel`)).status, 409);
    });

    it('a cancelled return frees its units to be returned again', async () => {
      const { variantId } = await product(5);
      const id = await paidOrder([{ variant_id: variantId, quantity: 1 }]);
      await api('POST', `/v1/orders/${id}/ship`, { body: {} });
      const made = await api<{ id: string }>('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      const cancelled = await api<{ status: string }>('POST', `/v1/returns/${made.body.id}/cancel`);
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      const other = client(ctx.app, (await createTenant(ctx, { currency: 'USD' })).apiKey.key);
      assert.equal((await other('POST', `/v1/returns/${made.body.id}/receive`, { body: {} })).status, 404);
      assert.equal(
        (
          await api('POST', `/v1/orders/${id}/returns`, {
            body: { items: [{ variant_id: variantId, quantity: 1 }] },
          })
        ).status,
        201,
      );
    });

    it('a restocking refund releases units not shipped, and puts shipped ones back on hand', async () => {
      const { productId, variantId } = await product(10);
      const home = await defaultLocation();
      const id = await paidOrder([{ variant_id: variantId, quantity: 3 }]);
      await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      assert.deepEqual(await levelsAt(productId, variantId, home), [9, 2, 7]);
      const unshipped = await api('POST', `/v1/orders/${id}/refunds`, {
        body: { items: [{ variant_id: variantId, quantity: 2 }], restock: true },
      });
      assert.equal(unshipped.status, 201, JSON.stringify(unshipped.body));
      assert.deepEqual(await levelsAt(productId, variantId, home), [9, 0, 9], 'their commitment released');
      const read = await order(id);
      assert.equal(read.fulfillment_status, 'fulfilled', 'nothing is left to ship');
      const rest = await api('POST', `/v1/orders/${id}/refunds`, { body: { restock: true } });
      assert.equal(rest.status, 201, JSON.stringify(rest.body));
      assert.deepEqual(
        await levelsAt(productId, variantId, home),
        [10, 0, 10],
        'the shipped unit back on hand',
      );
    });

    it('a restocking refund of the last unshipped units ships the order; one of every unit does not', async () => {
      const { variantId } = await product(10);
      const id = await paidOrder([{ variant_id: variantId, quantity: 3 }]);
      await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      assert.equal((await order(id)).status, 'paid', 'partly fulfilled');
      const refund = await api('POST', `/v1/orders/${id}/refunds`, {
        body: { items: [{ variant_id: variantId, quantity: 2 }], restock: true },
      });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      const read = await order(id);
      assert.equal(read.fulfillment_status, 'fulfilled');
      assert.equal(read.status, 'shipped', 'fulfilled, and something was shipped');
      const shippedEvents = (await eventTypes([id])).filter((type) => type === 'order.shipped');
      assert.equal(shippedEvents.length, 1, 'order.shipped went with the first fulfilment only');
      assert.equal((await api('POST', `/v1/orders/${id}/deliver`)).status, 200, 'a shipped order delivers');

      // Nothing shipped: a restocking refund of some units leaves it paid, of all of them refunded.
      const none = await paidOrder([{ variant_id: variantId, quantity: 2 }]);
      await api('POST', `/v1/orders/${none}/refunds`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }], restock: true },
      });
      assert.deepEqual(
        [(await order(none)).status, (await order(none)).fulfillment_status],
        ['paid', 'unfulfilled'],
      );
      await api('POST', `/v1/orders/${none}/refunds`, { body: { restock: true } });
      const all = await order(none);
      assert.deepEqual([all.status, all.fulfillment_status], ['refunded', 'unfulfilled']);
    });

    it('an order with a fulfilment cannot be cancelled', async () => {
      const { variantId } = await product(5);
      const id = await paidOrder([{ variant_id: variantId, quantity: 2 }]);
      await api('POST', `/v1/orders/${id}/fulfillments`, {
        body: { items: [{ variant_id: variantId, quantity: 1 }] },
      });
      assert.equal((await api('POST', `/v1/orders/${id}/cancel`)).status, 409);
    });

    it('older versions see the order as it was, without fulfilment fields', async () => {
      const { variantId } = await product(5);
      const id = await paidOrder([{ variant_id: variantId, quantity: 1 }]);
      await api('POST', `/v1/orders/${id}/ship`, { body: {} });
      for (const version of ['2026-11-21', '2026-12-15']) {
        const read = await api<Record<string, unknown>>('GET', `/v1/orders/${id}`, {
          headers: { 'x-service-version': version },
        });
        assert.equal(read.status, 200);
        assert.equal(read.body.status, 'shipped');
        for (const field of ['fulfillment_status', 'fulfillments', 'returns']) {
          assert.ok(!(field in read.body), `${version} has no ${field}`);
        }
      }
      const latest = await api<Record<string, unknown>>('GET', `/v1/orders/${id}`, {
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.equal(latest.body.fulfillment_status, 'fulfilled');
    });
  });
}
