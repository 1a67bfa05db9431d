import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultVersionRegistry } from './changes/index.js';
import type { Json } from './versions.registry.js';

/**
 * Orders stored (in events) before 2026-12-15 are brought to today's shape by `upgradeStored`, and
 * rendered back for a tenant pinned to 2026-11-21 exactly as they were written.
 */

const V24_REFUNDED = {
  id: 'ord_5mRt8YpW2bX9sT2uV7wY3cE5',
  status: 'refunded',
  items: [
    {
      product_id: 'prod_4hUr0aQX3cY0tU3vW8xZ4dF6',
      name: 'Mug',
      sku: 'MUG-1',
      quantity: 2,
      unit_price: 1250,
      total: 2500,
    },
  ],
  subtotal: 2500,
  total: 2500,
  currency: 'USD',
  customer: { email: 'ann@example.com', name: 'Ann' },
  shipping_address: null,
  payment: { id: 'pay_7cQp2ZxW1bX9sT2uV7wY3cE5', status: 'refunded', method: 'pm_card_visa' },
  metadata: {},
  carrier: null,
  tracking_number: null,
  restocked: true,
  created: '2026-11-22T10:00:00.000Z',
  updated: '2026-11-23T10:00:00.000Z',
  paid_at: '2026-11-22T10:01:00.000Z',
  shipped_at: null,
  delivered_at: null,
  cancelled_at: null,
  refunded_at: '2026-11-23T10:00:00.000Z',
};

describe('orders stored before 2026-12-15', () => {
  const registry = defaultVersionRegistry();

  it('gain the pricing and refund fields of 2026-12-15, with the refund migration 0022 keeps', () => {
    const latest = registry.upgradeStored('order', V24_REFUNDED as Json) as Record<string, unknown>;
    assert.deepEqual(
      [
        latest.discount_total,
        latest.shipping_total,
        latest.tax_total,
        latest.discounts,
        latest.shipping,
        latest.taxes,
      ],
      [0, 0, 0, [], null, []],
    );
    assert.deepEqual([latest.refunded_amount, latest.refundable_amount], [2500, 0]);
    assert.deepEqual(latest.refunds, [
      {
        id: 're_5mRt8YpW2bX9sT2uV7wY3cE5',
        order_id: V24_REFUNDED.id,
        amount: 2500,
        currency: 'USD',
        items: [{ variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6', quantity: 2, amount: 2500 }],
        shipping: 0,
        restocked: true,
        reason: null,
        status: 'succeeded',
        created: '2026-11-23T10:00:00.000Z',
      },
    ]);
    assert.deepEqual((latest.items as Record<string, unknown>[])[0], {
      ...V24_REFUNDED.items[0],
      variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6',
      variant_title: 'Default',
      discount: 0,
      tax: 0,
    });
  });

  it('keep what is refundable of a paid order, and have no refund', () => {
    const paid = { ...V24_REFUNDED, status: 'shipped', refunded_at: null, restocked: false };
    const latest = registry.upgradeStored('order', paid as Json) as Record<string, unknown>;
    assert.deepEqual([latest.refunded_amount, latest.refundable_amount, latest.refunds], [0, 2500, []]);
  });

  it('render for 2026-11-21 exactly as they were written', () => {
    for (const status of ['refunded', 'shipped', 'pending']) {
      const stored = { ...V24_REFUNDED, status } as Json;
      const back = registry.render('order', registry.upgradeStored('order', stored), '2026-11-21');
      assert.deepEqual(back, stored);
    }
  });
});
