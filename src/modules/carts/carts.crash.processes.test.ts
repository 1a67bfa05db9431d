import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { openStore, type Store } from '../../db/store.js';
import { DIALECTS, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from '../../../test/helpers/process.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { CartObject } from './carts.schemas.js';

/**
 * A real kill -9 of cart completions: a server process serves 40 completions at once, its payment
 * provider slow (the sandbox answers 40 ms late, and keeps a journal of what it charged, as a
 * provider keeps its own record), and is killed with SIGKILL a moment after the first answers come
 * back, three times over; each time a new process starts on the same store. Then:
 *
 * - every completion the client saw acknowledged (201) has its paid order;
 * - once the restarted process's sweep has finished the completions the dead one left in flight
 *   (their lease made short: CHECKOUT_LEASE_MS=1500), no charge the provider made is without its
 *   order, no payment row is without its order, and no completion is left in flight;
 * - no cart has two orders, a completed cart names its order and an open one has none;
 * - the stock adds up: what each variant had, less what the orders took, is what it has, and each
 *   product's stock is its variants';
 * - the shopper's retry of each unacknowledged completion then answers with its order (200 for one
 *   the sweep finished, 201 for one that never began), and it all still adds up: one order per cart,
 *   one charge per order, the ledger verified.
 */

const CARTS_PER_ROUND = 40;
const ROUNDS = 3;
/**
 * Rounds at most: a kill lands at a random moment, and when none of the first rounds' kills found a
 * completion in flight, more rounds are run until one does (the test is of that case).
 */
const MAX_ROUNDS = 6;
const STOCK = 1_000;
const LEASE_MS = 1_500;

interface Seed {
  key: string;
  tenantId: string;
}

interface Attempt {
  cart: CartObject;
  /** The buyer address it is made and completed from (the storefront limits count per address). */
  ip: string;
  status: number | 'lost';
  order?: OrderObject;
}

function call(server: ServerProcess, key: string) {
  return async <T>(method: string, url: string, body?: unknown, ip?: string) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(ip === undefined ? {} : { 'x-buyer-ip': ip }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as T & { code?: string } };
  };
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const dialect of DIALECTS) {
  describe(`cart completions across kill -9 (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    let env: Record<string, string>;
    let journal: string;
    let reader: Store;
    const servers: ServerProcess[] = [];

    before(async () => {
      store = await migratedStore(dialect);
      journal = path.join(store.dataDir, 'provider-charges.jsonl');
      env = {
        ...store.env,
        CHECKOUT_LEASE_MS: String(LEASE_MS),
        PAYMENT_SANDBOX_DELAY_MS: '40',
        PAYMENT_SANDBOX_JOURNAL: journal,
      };
      reader = openStore({ ...loadConfig(env), poolSize: 2 });
    });
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) await server.kill();
      await reader.close();
      await store.drop();
    });

    async function seed(): Promise<Seed> {
      const deps = await createDeps(loadConfig(env));
      try {
        const made = await deps.tenants.create({ name: 'Crash shop', email: 'crash@example.com' });
        return { key: made.apiKey.key, tenantId: made.tenant.id };
      } finally {
        await deps.close();
      }
    }

    /** Payment ids the provider charged (a charge asked again appears twice, with one id). */
    function charged(): Set<string> {
      if (!fs.existsSync(journal)) return new Set();
      return new Set(
        fs
          .readFileSync(journal, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => (JSON.parse(line) as { payment_id: string }).payment_id),
      );
    }

    async function inFlight(tenantId: string): Promise<number> {
      const row = await reader.db
        .selectFrom('carts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('checkout', 'is not', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    /** The invariants that hold whatever was acknowledged; answers each cart's orders. */
    async function checkStore(seedRow: Seed, variants: Map<string, string>): Promise<Map<string, string[]>> {
      const db = reader.db;
      const orders = await db
        .selectFrom('orders')
        .select(['id', 'cart_id', 'status', 'payment_id'])
        .where('tenant_id', '=', seedRow.tenantId)
        .execute();
      const byCart = new Map<string, string[]>();
      for (const order of orders) {
        assert.equal(order.status, 'paid', `order ${order.id} is ${order.status}`);
        assert.ok(order.cart_id !== null);
        byCart.set(order.cart_id, [...(byCart.get(order.cart_id) ?? []), order.id]);
      }
      for (const [cartId, ids] of byCart)
        assert.equal(ids.length, 1, `cart ${cartId} has orders ${ids.join(', ')}`);

      // Every charge the provider made has its payment and its order; every payment has its order.
      const payments = await db
        .selectFrom('payments')
        .leftJoin('orders', 'orders.id', 'payments.order_id')
        .select(['payments.id', 'payments.status', 'orders.id as order_id'])
        .where('payments.tenant_id', '=', seedRow.tenantId)
        .execute();
      const paymentIds = new Set(payments.map((p) => p.id));
      for (const payment of payments) {
        assert.ok(payment.order_id !== null, `payment ${payment.id} has no order`);
        assert.equal(payment.status, 'succeeded');
      }
      for (const id of charged())
        assert.ok(paymentIds.has(id), `the provider charged ${id}, which has no order`);
      assert.equal(payments.length, orders.length);

      // Carts agree with their orders.
      const carts = await db
        .selectFrom('carts')
        .select(['id', 'status', 'order_id', 'checkout'])
        .where('tenant_id', '=', seedRow.tenantId)
        .execute();
      for (const cart of carts) {
        assert.equal(cart.checkout, null, `cart ${cart.id} is still being completed`);
        const order = byCart.get(cart.id)?.[0];
        assert.deepEqual(
          [cart.status, cart.order_id],
          order === undefined ? ['open', null] : ['completed', order],
          `cart ${cart.id}`,
        );
      }

      // The stock adds up, variant by variant and product by product.
      const items = await db
        .selectFrom('order_items')
        .select((eb) => ['variant_id', eb.fn.sum<number>('quantity').as('sold')])
        .where('tenant_id', '=', seedRow.tenantId)
        .groupBy('variant_id')
        .execute();
      const sold = new Map(items.map((item) => [item.variant_id, Number(item.sold)]));
      for (const [productId, variantId] of variants) {
        const variant = await db
          .selectFrom('product_variants')
          .select('stock')
          .where('id', '=', variantId)
          .executeTakeFirstOrThrow();
        const product = await db
          .selectFrom('products')
          .select('stock')
          .where('id', '=', productId)
          .executeTakeFirstOrThrow();
        assert.equal(variant.stock, STOCK - (sold.get(variantId) ?? 0), `stock of ${variantId}`);
        assert.equal(product.stock, variant.stock, `stock of ${productId}`);
      }
      return byCart;
    }

    it('keeps every acknowledged completion and leaves no charge without its order', async () => {
      const shop = await seed();
      let server = await spawnServer(env);
      servers.push(server);
      let api = call(server, shop.key);

      const variants = new Map<string, string>();
      for (const name of ['Lamp', 'Chair', 'Rug']) {
        const made = await api<{ id: string; variants: { id: string }[] }>('POST', '/v1/products', {
          name,
          price: 1_500,
          stock: STOCK,
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        variants.set(made.body.id, made.body.variants[0]?.id as string);
      }
      const variantIds = [...variants.values()];

      const attempts: Attempt[] = [];
      let leftInFlight = 0;
      let rounds = 0;
      for (let round = 0; round < ROUNDS || (leftInFlight === 0 && round < MAX_ROUNDS); round++) {
        rounds += 1;
        const mine: Attempt[] = [];
        for (let i = 0; i < CARTS_PER_ROUND; i++) {
          const ip = `10.${round}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
          const lines = variantIds
            .filter((_, v) => (i + v) % 2 === 0)
            .map((variant_id, v) => ({ variant_id, quantity: 1 + ((i + v) % 3) }));
          const cart = await api<CartObject>(
            'POST',
            '/v1/store/carts',
            { email: `buyer${round}-${i}@example.com`, lines },
            ip,
          );
          assert.equal(cart.status, 201, JSON.stringify(cart.body));
          mine.push({ cart: cart.body, ip, status: 'lost' });
        }

        // Every completion at once; the process dies a moment after the first few are answered.
        const answersBeforeKill = 1 + Math.floor(Math.random() * 5);
        const lateMs = Math.floor(Math.random() * 25);
        let answered = 0;
        let killed: Promise<void> | undefined;
        const victim = server;
        await Promise.all(
          mine.map(async (attempt) => {
            try {
              const res = await api<OrderObject>(
                'POST',
                `/v1/store/carts/${attempt.cart.id}/complete`,
                { payment_method: 'pm_card_visa', expected_total: attempt.cart.total },
                attempt.ip,
              );
              attempt.status = res.status;
              if (res.status === 201 || res.status === 200) attempt.order = res.body;
              else assert.fail(`completion answered ${res.status} ${JSON.stringify(res.body)}`);
              answered++;
              if (answered >= answersBeforeKill && killed === undefined) {
                killed = new Promise((resolve) => setTimeout(resolve, lateMs)).then(() => victim.kill());
              }
            } catch (error) {
              if (error instanceof assert.AssertionError) throw error;
              // The connection died with the process: never acknowledged.
            }
          }),
        );
        await killed;
        assert.notEqual(victim.child.exitCode, 0);
        assert.ok(
          mine.some((a) => a.status === 201),
          'some completions were acknowledged',
        );
        leftInFlight += await inFlight(shop.tenantId);
        attempts.push(...mine);

        server = await spawnServer(env);
        servers.push(server);
        api = call(server, shop.key);
        // The new process's sweep finishes what the dead one left in flight, once its lease is over.
        await eventually(async () => (await inFlight(shop.tenantId)) === 0, 'no completion is in flight');
        const byCart = await checkStore(shop, variants);
        for (const attempt of attempts.filter((a) => a.order !== undefined)) {
          const order = attempt.order as OrderObject;
          assert.deepEqual(byCart.get(attempt.cart.id), [order.id], `acknowledged ${order.id} is gone`);
          const read = await api<OrderObject>('GET', `/v1/orders/${order.id}`);
          assert.deepEqual([read.status, read.body.status, read.body.total], [200, 'paid', order.total]);
        }
      }
      assert.ok(leftInFlight > 0, 'the kills landed while completions were in flight');

      // The shoppers retry what they never saw answered: each gets its order, made once.
      const unanswered = attempts.filter((a) => a.order === undefined);
      const retried = await Promise.all(
        unanswered.map((attempt) =>
          api<OrderObject>(
            'POST',
            `/v1/store/carts/${attempt.cart.id}/complete`,
            { payment_method: 'pm_card_visa', expected_total: attempt.cart.total },
            attempt.ip,
          ),
        ),
      );
      for (const res of retried) assert.ok([200, 201].includes(res.status), JSON.stringify(res.body));
      const byCart = await checkStore(shop, variants);
      assert.equal(byCart.size, rounds * CARTS_PER_ROUND, 'every cart has its one order');
      assert.equal(charged().size, rounds * CARTS_PER_ROUND, 'one charge per order');
      assert.equal(await server.stop(), 0);

      const deps = await createDeps(loadConfig(env));
      try {
        const report = await deps.wallet.verify();
        assert.ok(report.ok, JSON.stringify(report.violations));
      } finally {
        await deps.close();
      }
    });
  });
}
