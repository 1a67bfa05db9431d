import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { randomBase62 } from '../../../src/lib/ids.js';
import { chromiumMissing, inPage, launchChromium } from '../../../test/helpers/console-browser.js';
import type { CommerceClient } from '../src/index.js';
import { type ApiServer, startApiServer } from './helpers/server.js';
import { bundleForBrowser, STOREFRONT_ENTRY } from './helpers/storefront-bundle.js';

/**
 * The storefront's client in a real browser: `src/storefront.ts` bundled for the browser, loaded
 * by a page served from another origin (a small server on another port of 127.0.0.1), in Debian's
 * Chromium, against a real API server. With the store's publishable key listing the page's
 * origin, the page signs a shopper up and in, fills a cart, is refused a total it was not shown,
 * and pays: every request crosses CORS with the headers the client sends (`Authorization`,
 * `X-Service-Version`, `Idempotency-Key`, `X-Customer-Token`). A key that does not list the origin
 * is refused by the browser, and a secret key by the client itself.
 */

/** What the page did, as it reports it. */
interface Walk {
  listed: number;
  shopper: string;
  cartCustomer: string | null;
  changed: { name: string; code: string; cartTotal: number; requestId: string };
  order: { id: string; status: string; total: number; source: string; cart_id: string };
  total: number;
  ownOrders: string[];
  tokenAfterSignOut: string | null;
}

describe(
  'the storefront client in Chromium, from another origin',
  { skip: chromiumMissing, timeout: 120_000 },
  () => {
    let api: ApiServer;
    let admin: CommerceClient;
    let pageServer: http.Server;
    let origin = '';
    let browser: Browser;
    let page: Page;
    let listed = '';
    let unlisted = '';
    const tag = randomBase62(6).toLowerCase();

    before(async () => {
      const bundle = await bundleForBrowser(STOREFRONT_ENTRY);
      pageServer = http.createServer((request, response) => {
        if (request.url === '/storefront.js') {
          response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
          response.end(bundle.code);
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!doctype html><title>Shop</title><p>A shop on another origin</p>');
      });
      await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;

      api = await startApiServer('sqlite');
      admin = api.client((await api.tenant()).apiKey.key);
      listed = (await admin.apiKeys.create({ type: 'publishable', name: 'shop', allowed_origins: [origin] }))
        .key;
      unlisted = (await admin.apiKeys.create({ type: 'publishable', name: 'other', allowed_origins: [] }))
        .key;
      await admin.products.create({
        name: `Browser Tee ${tag}`,
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [
          { sku: `BT-${tag}-S`, options: { Size: 'S' }, price: 2500, stock: 0 },
          { sku: `BT-${tag}-M`, options: { Size: 'M' }, price: 2600, stock: 5 },
        ],
      });
      await admin.shippingRates.create({ name: 'Ground', countries: ['US'], price: 450, currency: 'USD' });

      browser = await launchChromium();
      page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${origin}/`);
    });

    after(async () => {
      await browser?.close();
      pageServer?.close();
      await api?.close();
    });

    it('walks from the catalog to a paid order of a signed-in shopper', async () => {
      const email = `page-${tag}@example.com`;
      const walk = await inPage<Walk>(
        page,
        `(async () => {
        const { StorefrontClient } = await import('/storefront.js');
        const shop = new StorefrontClient({ publishableKey: ${JSON.stringify(listed)}, baseUrl: ${JSON.stringify(api.server.url)} });
        const products = await shop.store.listProducts({ q: 'Browser Tee' });
        const product = await shop.store.getProduct(products.data[0].handle);
        const variant = product.variants.find((candidate) => candidate.available);
        const password = 'correct horse battery staple';
        const shopper = await shop.store.createCustomer({ email: ${JSON.stringify(email)}, password });
        await shop.signIn({ email: ${JSON.stringify(email)}, password });
        let cart = await shop.store.createCart({ lines: [{ variant_id: variant.id, quantity: 2 }] });
        cart = await shop.store.updateCart(cart.id, {
          shipping_address: { line1: '1 Main St', city: 'Austin', state: 'TX', country: 'US' },
        });
        const changed = await shop.store
          .completeCart(cart.id, { payment_method: 'pm_card_visa', expected_total: cart.total + 1 })
          .catch((error) => ({ name: error.name, code: error.code, cartTotal: error.problem.cart.total,
            requestId: error.requestId }));
        const order = await shop.store.completeCart(cart.id, { payment_method: 'pm_card_visa', expected_total: cart.total });
        const own = await shop.store.listCustomerOrders();
        await shop.signOut();
        return {
          listed: products.data.length, shopper: shopper.id, cartCustomer: cart.customer_id, changed,
          order: { id: order.id, status: order.status, total: order.total, source: order.source, cart_id: order.cart_id },
          total: cart.total, ownOrders: own.data.map((mine) => mine.id), tokenAfterSignOut: shop.customerToken,
        };
      })()`,
      );
      assert.equal(walk.listed, 1);
      assert.equal(walk.cartCustomer, walk.shopper, 'the token crossed CORS: the cart is the shopper’s');
      assert.deepEqual(
        [walk.changed.name, walk.changed.code, walk.changed.cartTotal],
        ['CommerceApiError', 'cart_changed', walk.total],
      );
      assert.match(walk.changed.requestId, /^req_/, 'an exposed header, read by the page');
      assert.deepEqual(
        [walk.order.status, walk.order.total, walk.order.source],
        ['paid', 2 * 2600 + 450, 'storefront'],
      );
      assert.deepEqual(walk.ownOrders, [walk.order.id]);
      assert.equal(walk.tokenAfterSignOut, null);
      const order = await admin.orders.get(walk.order.id);
      assert.deepEqual(
        [order.status, order.customer.email, order.cart_id],
        ['paid', email, walk.order.cart_id],
      );
    });

    it('is refused by the browser with a key that does not list the page’s origin', async () => {
      const outcome = await inPage<{ name: string; attempts: number }>(
        page,
        `(async () => {
        const { StorefrontClient } = await import('/storefront.js');
        const shop = new StorefrontClient({ publishableKey: ${JSON.stringify(unlisted)}, baseUrl: ${JSON.stringify(api.server.url)}, maxRetries: 0 });
        return shop.store.listProducts().then(() => ({ name: 'answered', attempts: 0 }),
          (error) => ({ name: error.name, attempts: error.attempts }));
      })()`,
      );
      // The browser hides the 403 from the page: the fetch fails as a network error does.
      assert.deepEqual(outcome, { name: 'CommerceConnectionError', attempts: 1 });
    });

    it('refuses a secret key in a page before anything is sent', async () => {
      const message = await inPage<string>(
        page,
        `import('/storefront.js').then(({ StorefrontClient }) => {
        try {
          new StorefrontClient({ publishableKey: 'sk_live_${'a'.repeat(40)}', baseUrl: ${JSON.stringify(api.server.url)} });
          return 'made';
        } catch (error) {
          return error.message;
        }
      })`,
      );
      assert.match(message, /secret key must never reach a page/);
    });
  },
);
