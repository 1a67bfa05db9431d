import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../lib/errors.js';
import {
  planRefund,
  type Refundable,
  type RefundableLine,
  refundItems,
  unitsAmount,
  unitsOut,
} from './refunds.plan.js';

/** The arithmetic of refunds, without a store: pro-rata shares, the rest, and what is refused. */

function line(
  position: number,
  variant: string,
  quantity: number,
  paid: number,
  refunded = 0,
): RefundableLine {
  return {
    position,
    product_id: `prod_${variant}`,
    variant_id: `var_${variant}`,
    quantity,
    paid,
    refunded_quantity: refunded,
  };
}

function left(lines: RefundableLine[], amount: number, shipping = 0): Refundable {
  return { amount, currency: 'USD', shipping, lines };
}

/** The field a 400 names, or the code of another refusal. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.code === 'validation_failed' ? (error.errors?.[0]?.field ?? '?') : error.code;
  }
  return 'accepted';
}

describe('refund arithmetic', () => {
  it('returns units at their share of what the line was paid, the last units taking the remainder', () => {
    assert.deepEqual(
      [0, 1, 2].map((before) => unitsAmount(1000, 3, before, 1)),
      [333, 333, 334],
    );
    assert.equal(unitsAmount(1000, 3, 0, 3), 1000);
    assert.equal(unitsAmount(1000, 3, 1, 2), 667);
    // The largest line: its last unit takes what the first 999 left.
    assert.equal(unitsAmount(999_999_999_999, 1000, 0, 999), 998_999_999_999);
    assert.equal(unitsAmount(999_999_999_999, 1000, 999, 1), 1_000_000_000);
  });

  it('adds up to what the line was paid however its units are refunded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 60 }),
        (paid, quantity, steps) => {
          let before = 0;
          let sum = 0;
          for (const step of steps) {
            const units = Math.min(step, quantity - before);
            if (units === 0) break;
            const amount = unitsAmount(paid, quantity, before, units);
            assert.ok(amount >= 0 && amount <= paid);
            sum += amount;
            before += units;
          }
          sum += unitsAmount(paid, quantity, before, quantity - before);
          assert.equal(sum, paid);
        },
      ),
    );
  });

  it('plans an amount, items with shipping, and all that is left', () => {
    const lines = [line(0, 'a', 3, 1000, 1), line(1, 'b', 2, 600)];
    assert.deepEqual(planRefund(left(lines, 2000, 500), { amount: 250 }), {
      parts: [],
      shipping: 0,
      amount: 250,
      rest: false,
    });
    const items = planRefund(left(lines, 2000, 500), {
      items: [
        { variant_id: 'var_a', quantity: 2 },
        { variant_id: 'var_b', quantity: 1 },
      ],
      shipping: true,
    });
    assert.deepEqual(
      items.parts.map((part) => [part.variant_id, part.quantity, part.amount]),
      [
        ['var_a', 2, 667],
        ['var_b', 1, 300],
      ],
    );
    assert.deepEqual([items.shipping, items.amount, items.rest], [500, 1467, false]);
    const rest = planRefund(left(lines, 2000, 500), {});
    assert.deepEqual([rest.amount, rest.shipping, rest.rest], [2000, 500, true]);
    assert.deepEqual(refundItems(rest.parts), [
      { variant_id: 'var_a', quantity: 2, amount: 667 },
      { variant_id: 'var_b', quantity: 2, amount: 600 },
    ]);
  });

  it('scales the rest down to what is left after refunds of a bare amount', () => {
    const rest = planRefund(left([line(0, 'a', 2, 1000), line(1, 'b', 1, 500)], 900, 300), {});
    assert.equal(rest.amount, 900);
    const parts = rest.parts.map((part) => part.amount);
    assert.equal(
      parts.reduce((a, b) => a + b, rest.shipping),
      900,
    );
    assert.ok((parts[0] ?? 0) <= 1000 && (parts[1] ?? 0) <= 500 && rest.shipping <= 300);
  });

  it('takes a variant repeated on several lines (orders older than variants) line by line', () => {
    const plan = planRefund(left([line(0, 'a', 2, 200, 1), line(1, 'a', 3, 300)], 400), {
      items: [{ variant_id: 'var_a', quantity: 3 }],
    });
    assert.deepEqual(
      plan.parts.map((part) => [part.position, part.quantity, part.amount]),
      [
        [0, 1, 100],
        [1, 2, 200],
      ],
    );
    assert.deepEqual(refundItems(plan.parts), [{ variant_id: 'var_a', quantity: 3, amount: 300 }]);
  });

  it('refuses what it cannot do, naming the field', () => {
    const state = left([line(0, 'a', 3, 900, 1)], 900, 100);
    const cases: [Parameters<typeof planRefund>[1], string][] = [
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: 1.5 }, 'amount'],
      [{ amount: 10, items: [{ variant_id: 'var_a', quantity: 1 }] }, 'items'],
      [{ amount: 10, shipping: true }, 'shipping'],
      [{ amount: 10, restock: true }, 'restock'],
      [{ shipping: true, restock: true }, 'restock'],
      [{ items: [{ variant_id: 'var_x', quantity: 1 }] }, 'items[0].variant_id'],
      [{ items: [{ variant_id: 'var_a', quantity: 3 }] }, 'items[0].quantity'],
      [
        {
          items: [
            { variant_id: 'var_a', quantity: 1 },
            { variant_id: 'var_a', quantity: 1 },
          ],
        },
        'items[1].variant_id',
      ],
      [{ amount: 901 }, 'amount_exceeds_refundable'],
      [{ items: [{ variant_id: 'var_a', quantity: 2 }], shipping: true }, 'accepted'],
    ];
    for (const [request, expected] of cases) {
      assert.equal(
        refusal(() => planRefund(state, request)),
        expected,
        JSON.stringify(request),
      );
    }
    assert.equal(
      refusal(() => planRefund(left([line(0, 'a', 1, 100)], 100), { shipping: true })),
      'shipping',
      'no shipping was paid',
    );
    // Units worth more than is left (a bare amount went back before) exceed it.
    assert.equal(
      refusal(() =>
        planRefund(left([line(0, 'a', 2, 1000)], 400), { items: [{ variant_id: 'var_a', quantity: 1 }] }),
      ),
      'amount_exceeds_refundable',
    );
  });

  it('counts the units still out of stock: those no refund put back', () => {
    const lines = [line(0, 'a', 3, 300), line(1, 'b', 2, 200)];
    const refunds = [
      { items: JSON.stringify([{ variant_id: 'var_a', quantity: 2, amount: 200 }]), restocked: 1 },
      { items: JSON.stringify([{ variant_id: 'var_b', quantity: 2, amount: 200 }]), restocked: 0 },
    ];
    assert.deepEqual(unitsOut(lines, refunds), [
      { product_id: 'prod_a', variant_id: 'var_a', quantity: 1 },
      { product_id: 'prod_b', variant_id: 'var_b', quantity: 2 },
    ]);
  });
});
