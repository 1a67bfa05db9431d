import assert from 'node:assert/strict';
import { type Client, client, createTenant, type TestContext } from '../../../test/helpers/context.js';
import type { OrderObject } from '../orders/index.js';
import type { CartObject } from './carts.schemas.js';

/** What the carts suites share: a store with its admin's key and a shopper's publishable key. */

/** What the suites read of a product. */
interface ProductObject {
  id: string;
  stock: number;
  variants?: { id: string }[];
}

export interface Shop {
  tenantId: string;
  /** The store's full-permission secret key. */
  admin: Client;
  /** A shopper's browser: the store's publishable key. */
  shopper: Client;
}

export async function openShop(
  ctx: TestContext,
  input: Parameters<typeof createTenant>[1] = {},
): Promise<Shop> {
  const tenant = await createTenant(ctx, input);
  const admin = client(ctx.app, tenant.apiKey.key);
  const key = await admin<{ key: string }>('POST', '/v1/api-keys', {
    body: { type: 'publishable', name: 'Shop', allowed_origins: ['https://shop.example'] },
  });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  // The suites' shoppers mostly call from one address, many times a minute: the most the store allows.
  const limits = await admin('PATCH', '/v1/settings', {
    body: { storefront: { requests_per_minute: 10_000 } },
  });
  assert.equal(limits.status, 200, JSON.stringify(limits.body));
  return { tenantId: tenant.tenant.id, admin, shopper: client(ctx.app, key.body.key) };
}

/** A one-variant product; its variant's id. */
export async function product(
  admin: Client,
  body: { name: string; price: number; stock: number } & Record<string, unknown>,
): Promise<{ product: ProductObject; variantId: string }> {
  const res = await admin<ProductObject>('POST', '/v1/products', { body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const variantId = res.body.variants?.[0]?.id;
  assert.ok(variantId);
  return { product: res.body, variantId };
}

export async function newCart(shopper: Client, body: Record<string, unknown> = {}): Promise<CartObject> {
  const res = await shopper<CartObject>('POST', '/v1/store/carts', { body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Completions so far: each comes from an address of its own (see `complete`). */
let completions = 0;

/**
 * Completes `cart` as its shopper: each completion from a shopper address of its own, since a
 * buyer address completes at most 10 carts an hour (the storefront limits); a suite's many
 * completions are many shoppers'.
 */
export async function complete(
  shopper: Client,
  cart: Pick<CartObject, 'id' | 'total'>,
  method = 'pm_card_visa',
) {
  completions += 1;
  return shopper<OrderObject & { code?: string }>('POST', `/v1/store/carts/${cart.id}/complete`, {
    body: { payment_method: method, expected_total: cart.total },
    remoteAddress: `198.51.${(completions >> 8) & 255}.${completions & 255}`,
  });
}

export async function stockOf(admin: Client, productId: string): Promise<number> {
  const res = await admin<ProductObject>('GET', `/v1/products/${productId}`);
  assert.equal(res.status, 200);
  return res.body.stock;
}

export async function count(
  ctx: TestContext,
  table: 'orders' | 'payments' | 'carts' | 'events',
  tenantId: string,
) {
  const row = await ctx.deps.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const US_CA = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Los Angeles',
  state: 'CA',
  country: 'US',
};
