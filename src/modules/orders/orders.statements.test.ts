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
import {
  byTransaction,
  durableWrites,
  endsWithCommit,
  statementsOf,
} from '../../../test/helpers/statements.js';
import { complete, newCart, openShop, product } from '../carts/carts.test-kit.js';
import type { OrderObject } from './orders.schemas.js';

/**
 * What selling costs the store, counted (statements and, on PostgreSQL, round trips: each
 * statement is one), pinned so it cannot grow unnoticed: a paid order of one unit to a returning
 * customer (`POST /orders` with `payment_method` and an `Idempotency-Key`), the same without the
 * payment, and a cart's completion. The figures are in docs/benchmarks.md ("Orders"), with what
 * they were before. A change that adds a statement to these paths changes the pins here and there,
 * on purpose.
 *
 * Beside the counts, the shape that keeps a store's orders from waiting on one another: no order
 * writes a row every order of the store writes (order counts and analytics rollups were such rows),
 * an order takes its products' stock after its own rows are written, and a payment credits the
 * store's wallet (the one row every payment takes) as the last statement before its commit.
 */

/**
 * Statements of one paid order: outside a transaction (the key's claim and stored answer; on SQLite
 * each between a `PRAGMA synchronous` pair, as they need not wait for the disk), then each
 * transaction's, BEGIN and COMMIT included. On PostgreSQL each is a round trip.
 */
const PAID = {
  sqlite: { outside: 6, transactions: [17, 13] },
  postgres: { outside: 2, transactions: [14, 9] },
} as const;
const UNPAID = {
  sqlite: { outside: 6, transactions: [15] },
  postgres: { outside: 2, transactions: [13] },
} as const;
/** A cart's completion: the storefront's read of its products, then the hold and the placing. */
const COMPLETION = {
  sqlite: { outside: 1, transactions: [12, 20] },
  postgres: { outside: 1, transactions: [10, 14] },
} as const;
/** SQLite: the writes of a paid order that wait for the disk (an fsync each): its two transactions. */
const PAID_DURABLE_WRITES = 2;

/**
 * Rows every order of a store would write: none may be in an order's statements. Since the audit
 * log (issue 46), every audited transaction also inserts its entries, as its last statement before
 * the commit: one statement, no read, and no lock of the store's audit chain (`audit_chains`), which
 * entries are sealed into after the commit; the pins above grew by that one statement, on purpose;
 * see docs/audit-and-request-logs.md.
 */
const STORE_WIDE =
  /\b(order_counts|analytics_daily|analytics_currencies|analytics_members|analytics_running)\b/;

for (const dialect of DIALECTS) {
  describe(`what selling costs the store (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let productId: string;
    let variantId: string;
    let n = 0;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx, { currency: 'USD' })).apiKey.key);
      const made = await api<{ id: string; variants: { id: string }[] }>('POST', '/v1/products', {
        body: { name: 'Mug', price: 1_200, currency: 'USD', stock: 1_000 },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      productId = made.body.id;
      variantId = made.body.variants[0]?.id ?? '';
      const customer = await api('POST', '/v1/customers', { body: { email: 'regular@example.com' } });
      assert.equal(customer.status, 201, JSON.stringify(customer.body));
      // The store's first payment opens its platform account: a first order the rest need not repeat.
      assert.equal((await order({ payment_method: 'pm_card_visa' })).status, 201);
    });
    after(() => ctx.close());

    function order(
      extra: Record<string, unknown>,
      item: Record<string, unknown> = { product_id: productId },
    ) {
      n += 1;
      return api<OrderObject>('POST', '/v1/orders', {
        body: { customer: { email: 'regular@example.com' }, items: [{ ...item, quantity: 1 }], ...extra },
        headers: { 'idempotency-key': `statements-${n}` },
      });
    }

    async function counted(work: () => Promise<{ status: number; body: unknown }>) {
      let status = 0;
      const statements = await statementsOf(ctx, async () => {
        const res = await work();
        status = res.status;
        assert.ok(res.status < 300, JSON.stringify(res.body));
      });
      assert.ok(status > 0);
      return statements;
    }

    it('a paid order: the pinned statements, in two transactions around the charge', async () => {
      for (const item of [{ product_id: productId }, { variant_id: variantId }]) {
        const statements = await counted(() => order({ payment_method: 'pm_card_visa' }, item));
        assert.deepEqual(byTransaction(statements), PAID[dialect], statements.join('\n'));
        assert.deepEqual(
          statements.filter((s) => STORE_WIDE.test(s)),
          [],
        );
        if (dialect === 'sqlite') assert.equal(durableWrites(statements), PAID_DURABLE_WRITES);
        const [first, second] = transactions(statements);
        // The order's own rows, then the stock.
        assert.ok(
          indexOf(first, dialect === 'postgres' ? /^with "placed_order"/ : /^insert into "orders"/) <
            indexOf(first, dialect === 'postgres' ? /^WITH moved/ : /^update "products"/),
        );
        // The wallet's credit last, after the audit entries (one insert, no lock: sealed into
        // their chain after the commit): its row is held only for its own statements and the commit,
        // on PostgreSQL one statement sent with the COMMIT, during which the process holds no lock.
        if (dialect === 'postgres') assert.match(second.at(-1) ?? '', /^WITH lines .*; COMMIT$/);
        else assert.match(second.at(-2) ?? '', /^insert into "ledger_postings"/);
        assert.ok(
          indexOf(second, /^insert into "?audit_entries"?/i) <
            indexOf(second, dialect === 'postgres' ? /^WITH lines/ : /^update "ledger_accounts"/),
        );
        assert.deepEqual(
          statements.filter((statement) => /"?audit_chains"?/i.test(statement)),
          [],
        );
      }
    });

    it('an unpaid order: one transaction', async () => {
      const statements = await counted(() => order({}));
      assert.deepEqual(byTransaction(statements), UNPAID[dialect], statements.join('\n'));
      assert.deepEqual(
        statements.filter((s) => STORE_WIDE.test(s)),
        [],
      );
    });

    it('a cart completed: a hold and its placing, around the charge', async () => {
      const shop = await openShop(ctx, { currency: 'USD' });
      const lamp = await product(shop.admin, { name: 'Lamp', price: 4_000, stock: 10 });
      await shop.admin('POST', '/v1/customers', { body: { email: 'shopper@example.com' } });
      const warm = await newCart(shop.shopper, {
        email: 'shopper@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 1 }],
      });
      assert.equal((await complete(shop.shopper, warm)).status, 201);
      const cart = await newCart(shop.shopper, {
        email: 'shopper@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 1 }],
      });
      const statements = await counted(() => complete(shop.shopper, cart));
      assert.deepEqual(byTransaction(statements), COMPLETION[dialect], statements.join('\n'));
      // The hold: the cart's checkout written before the stock, which is its last statement, so the
      // product many shoppers buy is locked only for it and the commit: on PostgreSQL one statement
      // sent with the COMMIT, a round trip in all, during which the process holds no lock.
      const [hold] = transactions(statements);
      // What pricing the cart read (its variants, products and customer) the order is built from,
      // not read a second time.
      for (const table of ['product_variants', 'products', 'customers']) {
        const reads = (hold ?? []).filter((s) => s.startsWith('select') && s.includes(` from "${table}" `));
        assert.equal(reads.length, 1, `${table}: ${reads.join('\n')}`);
      }
      const stock =
        dialect === 'postgres' ? /^SELECT take_stock_as_read\(.*\); COMMIT$/ : /^update "products"/;
      assert.ok(indexOf(hold, /^update "carts" set "checkout"/) < indexOf(hold, stock));
      if (dialect === 'postgres') assert.match(hold?.at(-1) ?? '', stock);
      else assert.match(hold?.at(-2) ?? '', /^update "product_variants"/);
      assert.deepEqual(
        statements.filter((s) => STORE_WIDE.test(s)),
        [],
      );
    });

    it('a cart completed for the last units: its stock taken the ordinary way, with the sell-out', async () => {
      const shop = await openShop(ctx, { currency: 'USD' });
      const vase = await product(shop.admin, { name: 'Vase', price: 2_500, stock: 3 });
      await shop.admin('POST', '/v1/customers', { body: { email: 'last@example.com' } });
      const warm = await newCart(shop.shopper, {
        email: 'last@example.com',
        lines: [{ variant_id: vase.variantId, quantity: 1 }],
      });
      assert.equal((await complete(shop.shopper, warm)).status, 201);
      const cart = await newCart(shop.shopper, {
        email: 'last@example.com',
        lines: [{ variant_id: vase.variantId, quantity: 2 }],
      });
      const statements = await counted(() => complete(shop.shopper, cart));
      const holds = transactions(statements).slice(0, -1);
      if (dialect === 'postgres') {
        // The one-statement take declined (the variant would reach 0, its event must follow): the
        // attempt rolled back, and the next took the stock statement by statement.
        assert.equal(holds.length, 2, statements.join('\n'));
        const declined = indexOf(statements, /^SELECT take_stock_as_read/);
        assert.match(statements[declined + 1] ?? '', /^ROLLBACK/);
        assert.ok(indexOf(holds[1], /^WITH moved/) > 0);
      } else assert.equal(holds.length, 1);
      const sold = await shop.admin<{ data: { type: string }[] }>(
        'GET',
        `/v1/events?type=product.outofstock&limit=10`,
      );
      assert.equal(sold.status, 200, JSON.stringify(sold.body));
      assert.equal(sold.body.data.length, 1);
      const after = await shop.admin<{ stock: number }>('GET', `/v1/products/${vase.product.id}`);
      assert.equal(after.body.stock, 0);
    });
  });
}

/** Each transaction's statements, BEGIN to COMMIT (or to the statement sent with it). */
function transactions(statements: readonly string[]): string[][] {
  const out: string[][] = [];
  let open: string[] | undefined;
  for (const statement of statements) {
    if (/^BEGIN/i.test(statement)) open = [statement];
    else if (open) {
      open.push(statement);
      if (/^(COMMIT|ROLLBACK)/i.test(statement) || endsWithCommit(statement)) {
        out.push(open);
        open = undefined;
      }
    }
  }
  return out;
}

function indexOf(statements: readonly string[] | undefined, pattern: RegExp): number {
  const index = (statements ?? []).findIndex((s) => pattern.test(s));
  assert.ok(index >= 0, `no statement matches ${pattern}`);
  return index;
}
