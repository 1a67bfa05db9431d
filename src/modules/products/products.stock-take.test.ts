import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Db } from '../../db/store.js';
import * as repo from './products.repository.js';
import { isNotTakenAsRead, stockTakenAsRead, takeProductStock } from './products.stock-take.js';
import * as variantsRepo from './variants.repository.js';

/**
 * PostgreSQL's one statement for a product's units (products.stock-take.ts) against the two it
 * replaces (`moveStock`, then `reserveVariantStock` per line): the same rows answered, field for
 * field and type for type (the order's pricing is checked against them); the same refusals; and
 * the product locked before its variants, the order every writer of variants takes them in.
 */
for (const dialect of DIALECTS.filter((name) => name === 'postgres')) {
  describe(`taking a product's units in one statement (${dialect})`, () => {
    let ctx: TestContext;
    let tenantId: string;
    let productId: string;
    let variantIds: string[];

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx, { currency: 'USD' });
      tenantId = tenant.tenant.id;
      const made = await client(ctx.app, tenant.apiKey.key)<{ id: string; variants: { id: string }[] }>(
        'POST',
        '/v1/products',
        {
          body: {
            // Merchant text with a quote and a backslash: written inline by `stockTakenAsRead`.
            name: String.raw`Tom's \' mug`,
            options: [{ name: 'Color', values: ['Red', 'Blue', 'Green'] }],
            variants: ['Red', 'Blue', 'Green'].map((color, i) => ({
              options: { Color: color },
              price: 1_000 + i,
              stock: 3,
            })),
          },
        },
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      productId = made.body.id;
      variantIds = made.body.variants.map((variant) => variant.id).sort();
    });
    after(() => ctx.close());

    /** Runs `work` in a transaction that is then rolled back, and answers what it answered. */
    async function rolledBack<T>(work: (trx: Db) => Promise<T>): Promise<T> {
      let answer: T | undefined;
      await assert.rejects(
        ctx.deps.store.db.transaction().execute(async (trx) => {
          answer = await work(trx);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      return answer as T;
    }

    /** The statements it replaces, in their order. */
    async function twoSteps(trx: Db, lines: { variant_id: string; quantity: number }[], now: number) {
      const units = lines.reduce((sum, line) => sum + line.quantity, 0);
      const product = await repo.moveStock(trx, tenantId, productId, -units, now);
      const variants = [];
      for (const line of lines) {
        const variant = await variantsRepo.reserveVariantStock(
          trx,
          tenantId,
          line.variant_id,
          line.quantity,
          now,
        );
        if (variant) variants.push(variant);
      }
      return { product, variants };
    }

    it('answers the rows the two statements answer, field for field', async () => {
      const lines = [
        { variant_id: variantIds[0] as string, quantity: 2 },
        { variant_id: variantIds[2] as string, quantity: 1 },
      ];
      const now = Date.now();
      const one = await rolledBack((trx) => takeProductStock(trx, tenantId, productId, lines, now));
      const two = await rolledBack((trx) => twoSteps(trx, lines, now));
      assert.deepEqual(one, two);
      assert.equal(one.product?.stock, 9 - 3);
      assert.deepEqual(
        one.variants.map((variant) => [variant.id, variant.stock, variant.committed]),
        [
          [variantIds[0], 1, 2],
          [variantIds[2], 2, 1],
        ],
      );
    });

    it('leaves out a line short of units, as the conditional update does', async () => {
      const lines = [
        { variant_id: variantIds[0] as string, quantity: 1 },
        { variant_id: variantIds[1] as string, quantity: 4 },
      ];
      const now = Date.now();
      const one = await rolledBack((trx) => takeProductStock(trx, tenantId, productId, lines, now));
      assert.deepEqual(one, await rolledBack((trx) => twoSteps(trx, lines, now)));
      assert.deepEqual(
        one.variants.map((variant) => variant.id),
        [variantIds[0]],
      );
    });

    it('takes nothing of a product that is gone', async () => {
      const one = await rolledBack((trx) =>
        takeProductStock(
          trx,
          tenantId,
          'prod_gone',
          [{ variant_id: variantIds[0] as string, quantity: 1 }],
          1,
        ),
      );
      assert.deepEqual(one, { product: undefined, variants: [] });
    });

    it('locks the product before its variants', async () => {
      const db = ctx.deps.store.db;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const variantLocked = new Promise<void>((resolve) => (locked = resolve));
      // One transaction holds a variant's row; the statement then waits on it, the product taken.
      const holder = db.transaction().execute(async (trx) => {
        await sql`SELECT id FROM product_variants WHERE id = ${variantIds[1]} FOR UPDATE`.execute(trx);
        locked();
        await released;
      });
      await variantLocked;
      const taking = db
        .transaction()
        .execute((trx) =>
          takeProductStock(
            trx,
            tenantId,
            productId,
            [{ variant_id: variantIds[1] as string, quantity: 1 }],
            1,
          ),
        );
      try {
        // The product's row is locked while the statement waits for the variant's.
        let productLocked = false;
        // Bounded by the state it waits for, not by a time a busy machine might not meet.
        for (let i = 0; i < 3_000 && !productLocked; i++) {
          productLocked = await db
            .transaction()
            .execute(async (trx) => {
              await sql`SELECT id FROM products WHERE id = ${productId} FOR UPDATE NOWAIT`.execute(trx);
              return false;
            })
            .catch((error: { code?: string }) => {
              if (error.code !== '55P03') throw error;
              return true;
            });
          if (!productLocked) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.ok(productLocked, 'the product was locked while the variant was waited for');
      } finally {
        release();
        await holder;
      }
      const taken = await taking;
      assert.deepEqual(
        taken.variants.map((variant) => variant.id),
        [variantIds[1]],
      );
    });

    it('takes the units with the commit, only as read, the merchant text inline as itself', async () => {
      const store = ctx.deps.store;
      const product = (await repo.findProductsByIds(store.db, tenantId, [productId]))[0];
      const variant = (
        await variantsRepo.findVariantsByIds(store.db, tenantId, [variantIds[0] as string])
      )[0];
      assert.ok(product && variant);
      assert.equal(product.name, String.raw`Tom's \' mug`);
      const read = { name: product.name, status: product.status };
      const line = {
        variant_id: variant.id,
        quantity: 1,
        read: { price: variant.price, title: variant.title },
      };
      await store.transaction(async (trx) => {
        // A server that reads backslashes in literals as escapes (the old default) reads it alike.
        await sql`SET LOCAL standard_conforming_strings = off`.execute(trx);
        await store.commitWith(trx, stockTakenAsRead(tenantId, productId, read, [line], Date.now()));
      });
      const after = (await variantsRepo.findVariantsByIds(store.db, tenantId, [variant.id]))[0];
      assert.equal(after?.stock, variant.stock - 1);
      // Read otherwise (a price changed since): declined, nothing taken.
      await assert.rejects(
        store.transaction((trx) =>
          store.commitWith(
            trx,
            stockTakenAsRead(tenantId, productId, read, [{ ...line, read: { price: variant.price + 1 } }], 1),
          ),
        ),
        (error) => isNotTakenAsRead(error),
      );
      const unchanged = (await variantsRepo.findVariantsByIds(store.db, tenantId, [variant.id]))[0];
      assert.equal(unchanged?.stock, variant.stock - 1);
    });
  });
}
