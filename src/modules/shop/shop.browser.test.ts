import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  buildConsole,
  buildWebApp,
  chromiumMissing,
  inPage,
  launchChromium,
  WIDE,
} from '../../../test/helpers/console-browser.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { loadConfig } from '../../config.js';
import type { DemoCredentials } from '../../demo.js';
import { type RunningServer, startServer } from '../../server.js';
import type { components } from '../../../clients/typescript/src/generated/schema.js';
import {
  accessible,
  addToCart,
  type Admin,
  ARTIFACTS,
  type Cart,
  cartIdOf,
  enterAddress,
  figuresMatch as figuresOf,
  listed,
  phoneShot,
  pick,
  usd,
} from './shop.test-kit.js';

/**
 * The shop at /shop/ in Chromium against the real server and its demo store (SQLite), with the
 * demo's publishable key and nothing else: a whole purchase of the demo's T-shirt in one size and
 * colour with a discount code and a chosen rate, checked through the admin API (the order, its
 * figures, its source, the stock) and at a webhook receiver; two tabs completing one cart; a line
 * sold out and a price the merchant changed, shown before payment; a declined card and a 429;
 * signing up, in and out with the order history; the keyboard alone; and the console's link to the
 * shop of each publishable key. Each shopper has their own address (`X-Forwarded-For` through
 * `TRUST_PROXY=loopback`), as shoppers do. Screenshots at 375x812 (checked not to scroll sideways)
 * go to /tmp/shots and test-artifacts/shop/.
 */

type Order = components['schemas']['Order'];
type Product = components['schemas']['Product'];

const PASSWORD = 'a long enough password';
/** Product pictures (on picsum.photos in the demo) answered locally: the test reaches no other origin. */
const PICTURE = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#99c2bd"/><circle cx="32" cy="26" r="12" fill="#0f766e"/></svg>`;

describe("the shop's build", () => {
  it('loads at most 150 KB of JavaScript (gzip) on its first page, modulepreloads included', () => {
    const dist = buildWebApp('shop');
    const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
    const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
    const scripts = tags.flatMap((tag) => {
      const src = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1];
      const isScript = tag.startsWith('<script') || /\brel="modulepreload"/.test(tag);
      return src !== undefined && isScript ? [src] : [];
    });
    assert.ok(scripts.length > 0, html);
    let total = 0;
    for (const src of scripts) {
      assert.match(src, /^\/shop\/assets\/[\w.-]+\.js$/);
      total += gzipSync(fs.readFileSync(path.join(dist, src.slice('/shop/'.length)))).length;
    }
    assert.ok(total <= 150 * 1024, `${total} bytes of gzipped JavaScript`);
  });
});

if (chromiumMissing) it('shop in Chromium', { skip: chromiumMissing }, () => undefined);

for (const dialect of chromiumMissing ? [] : LOGIC_ONLY) {
  describe(`the shop in Chromium (${dialect})`, { timeout: 300_000 }, () => {
    let store: TestStore;
    let server: RunningServer;
    let demo: DemoCredentials;
    let browser: Browser;
    let receiver: Receiver;
    const problems: string[] = [];
    /** Every call a shop page made to the server's API, as `METHOD path key-prefix`. */
    const calls: string[] = [];
    let shoppers = 0;

    const admin: Admin = async <T>(method: 'GET' | 'POST' | 'PATCH', url: string, body?: object) => {
      const res = await server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${demo.api_key}` },
        ...(body === undefined ? {} : { payload: body }),
      });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json<T>();
    };

    /** The checkout's figures equal the cart's as the admin API prices it now. */
    const figuresMatch = (page: Page, cartId: string) => figuresOf(page, cartId, admin);

    /** A shopper's browser: its own storage, and its own address. */
    async function shopper(): Promise<{ context: BrowserContext; page: Page }> {
      shoppers += 1;
      const context = await browser.newContext({
        viewport: WIDE,
        baseURL: server.url,
        locale: 'en-US',
        extraHTTPHeaders: { 'X-Forwarded-For': `203.0.113.${shoppers}` },
      });
      await context.route('https://picsum.photos/**', (route) =>
        route.fulfill({ status: 200, contentType: 'image/svg+xml', body: PICTURE }),
      );
      return { context, page: await watched(context) };
    }

    async function watched(context: BrowserContext): Promise<Page> {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        // Answers the shop handles (a 409, a 422, a 401) are logged by Chromium; they are fine.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(`console error: ${message.text()}`);
        }
      });
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.origin === server.url && url.pathname.startsWith('/v1/')) {
          calls.push(`${request.method()} ${url.pathname} ${request.headers().authorization?.slice(0, 15)}`);
        }
      });
      return page;
    }

    before(async () => {
      buildWebApp('shop');
      buildConsole();
      for (const dir of ARTIFACTS) fs.mkdirSync(dir, { recursive: true });
      store = await migratedStore(dialect);
      server = await startServer(
        loadConfig({
          ...store.env,
          PORT: '0',
          DEMO_DATA: 'on',
          TRUST_PROXY: 'loopback',
          WEBHOOK_RETRY_SCHEDULE: '3600',
        }),
      );
      assert.ok(server.demo, 'the demo store was made');
      demo = server.demo;
      receiver = await startReceiver(() => ({ status: 200, body: '{}' }));
      await admin('POST', '/v1/webhooks', {
        url: `${receiver.url}/shop`,
        events: ['order.created', 'order.paid'],
      });
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await server?.shutdown();
      await receiver?.close();
      await store?.drop();
    });

    it("buys the demo's T-shirt in one size and colour, with a discount code and a chosen rate", async () => {
      const { context, page } = await shopper();
      const tees = await admin<{ data: Product[] }>(
        'GET',
        '/v1/products?q=Organic%20Cotton%20Tee&expand=variants',
      );
      const tee = tees.data.find((product) => product.name === 'Organic Cotton Tee');
      assert.ok(tee?.variants, 'the demo has its T-shirt');
      const variant = tee.variants.find((v) => v.options.Size === 'M' && v.options.Color === 'White');
      assert.ok(variant, 'in M / White');
      const stockBefore = variant.stock;
      // Its own picture, shown first when the shopper chooses it.
      const whitePicture = 'https://picsum.photos/seed/tee-white/640/640';
      await admin('PATCH', `/v1/products/${tee.id}/variants/${variant.id}`, { image: whitePicture });
      // Its first picture's alt text, which the shop's <img alt> says instead of the name.
      await admin('PATCH', `/v1/products/${tee.id}`, {
        media: tee.images.map((url, index) => ({
          url,
          alt: index === 0 ? 'A folded organic cotton tee' : null,
        })),
      });

      // Opened with the key `npm start` prints; the address keeps it out of sight afterwards.
      await page.goto(`/shop/?key=${demo.publishable_key}`);
      await page.getByRole('heading', { level: 1, name: 'All products' }).waitFor();
      assert.equal(new URL(page.url()).search, '');
      await page.getByRole('list', { name: 'Products' }).getByRole('listitem').first().waitFor();
      await accessible(page, 'the catalog');
      await phoneShot(page, 'catalog');

      // A category, then a search.
      await page
        .getByRole('navigation', { name: 'Categories' })
        .getByRole('link', { name: 'Apparel' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Apparel' }).waitFor();
      await listed(page);
      await page.getByRole('link', { name: /^Organic Cotton Tee/ }).waitFor();
      assert.equal(await page.getByRole('link', { name: /^Trail Runner 2/ }).count(), 0);
      await page.getByRole('searchbox', { name: 'Search products' }).fill('cotton tee');
      await page.getByRole('searchbox', { name: 'Search products' }).press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Results for “cotton tee”' }).waitFor();
      await listed(page);
      await page.getByRole('link', { name: /^Organic Cotton Tee/ }).click();

      // Its picture, and its sizes and colours: XL in Sage is sold out, and greyed out once XL is chosen.
      await page.getByRole('heading', { level: 1, name: 'Organic Cotton Tee' }).waitFor();
      await page.getByRole('img', { name: 'A folded organic cotton tee', exact: true }).waitFor();
      await pick(page, 'XL');
      await page.getByRole('radio', { name: 'Sage (sold out)' }).waitFor();
      assert.equal(await page.getByRole('radio', { name: 'Black', exact: true }).count(), 1);
      await pick(page, 'M');
      await page.getByRole('radio', { name: 'Sage', exact: true }).waitFor();
      await pick(page, 'White');
      assert.equal(await page.getByRole('radio', { name: 'M', exact: true }).isChecked(), true);
      assert.equal(await page.getByRole('radio', { name: 'White', exact: true }).isChecked(), true);
      await page.getByText('In stock').waitFor();
      await page.locator(`.gallery-main[src="${whitePicture}"]`).waitFor();
      await accessible(page, 'the product page');
      await phoneShot(page, 'product');
      await page.getByLabel('Quantity').fill('2');
      await page.getByRole('button', { name: 'Add to cart' }).click();
      await page.getByText('Added Organic Cotton Tee, M / White to your cart.').waitFor();
      await page.getByRole('link', { name: 'Cart, 2 items' }).waitFor();

      // The cart outlives a reload: its id is kept in local storage.
      await page.getByRole('link', { name: 'View cart' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your cart' }).waitFor();
      const cartId = await cartIdOf(page);
      await page.reload();
      await page.getByText('M / White').waitFor();
      assert.equal(await cartIdOf(page), cartId);
      await phoneShot(page, 'cart');
      await page.getByRole('link', { name: 'Check out' }).click();

      // Every change is priced by the API: the page's figures are the cart's.
      await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
      const email = `tee-${Date.now()}@example.com`;
      await enterAddress(page, email);
      const standard = await figuresMatch(page, cartId);
      assert.equal(standard.shipping_total, 695);
      assert.ok(standard.tax_total > 0, 'New York sales tax');
      await page.getByRole('radio', { name: /^Express/ }).click();
      await page
        .locator('.summary [data-figure="shipping"]')
        .filter({ hasText: usd(1995) })
        .waitFor();
      await figuresMatch(page, cartId);
      await page.getByRole('textbox', { name: 'Discount code' }).fill('WELCOME10');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('.summary [data-figure="discount"]').waitFor();
      const priced = await figuresMatch(page, cartId);
      assert.equal(priced.discount_total, 480);
      assert.deepEqual(priced.problems, []);
      await page.getByText('pm_card_declined').waitFor();
      await accessible(page, 'the checkout');
      await phoneShot(page, 'checkout');

      await page.getByRole('button', { name: `Pay ${usd(priced.total)}` }).click();
      await page.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
      const number = (await page.getByTestId('order-number').textContent()) ?? '';
      assert.match(number, /^ord_/);
      assert.equal(new URL(page.url()).pathname, `/shop/orders/${number}`);
      await phoneShot(page, 'confirmation');

      // The order as the store sees it.
      const order = await admin<Order>('GET', `/v1/orders/${number}`);
      assert.equal(order.source, 'storefront');
      assert.equal(order.cart_id, cartId);
      assert.equal(order.status, 'paid');
      assert.equal(order.total, priced.total);
      assert.equal(order.customer.email, email);
      assert.deepEqual(
        order.items.map((item) => [item.variant_id, item.quantity]),
        [[variant.id, 2]],
      );
      assert.deepEqual(
        order.discounts.map((d) => [d.code, d.amount]),
        [['WELCOME10', 480]],
      );
      assert.equal(order.shipping?.name, 'Express');
      assert.equal(order.payment?.method, 'pm_card_visa');
      const after = await admin<Product>('GET', `/v1/products/${tee.id}?expand=variants`);
      assert.equal(after.variants?.find((v) => v.id === variant.id)?.stock, stockBefore - 2);
      await eventually(() => {
        const types = receiver.received
          .map((r) => JSON.parse(r.body) as { type: string; data: { object: { id: string } } })
          .filter((event) => event.data.object.id === number)
          .map((event) => event.type);
        return types.includes('order.created') && types.includes('order.paid');
      });
      // The next line added starts a new cart.
      assert.equal(await page.getByRole('link', { name: 'Cart, 0 items' }).count(), 1);
      await context.close();
    });

    it('shows one order in two tabs that complete the same cart', async () => {
      const { context, page } = await shopper();
      await page.goto(`/shop/?key=${demo.publishable_key}`);
      await addToCart(page, 'Ceramic Mug Set');
      await page.goto('/shop/checkout');
      await enterAddress(page, `tabs-${Date.now()}@example.com`);
      const cartId = await cartIdOf(page);
      const second = await watched(context);
      await second.goto('/shop/checkout');
      await second.getByText('Ceramic Mug Set').first().waitFor();
      const pay = (tab: Page) => tab.getByRole('button', { name: /^Pay / }).click();
      await Promise.all([pay(page), pay(second)]);
      const numbers = await Promise.all(
        [page, second].map(async (tab) => {
          await tab.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
          return tab.getByTestId('order-number').textContent();
        }),
      );
      assert.equal(numbers[0], numbers[1]);
      const cart = await admin<Cart>('GET', `/v1/carts/${cartId}`);
      assert.equal(cart.status, 'completed');
      assert.equal(cart.order_id, numbers[0]);
      await context.close();
    });

    it('marks a line sold out and a price the merchant changed before payment; a declined card keeps the cart; a 429 says when', async () => {
      const { context, page } = await shopper();
      // Two products of the merchant's own, in stock (the demo's orders sell some of its catalog out).
      const tag = String(Date.now());
      const shirt = await admin<Product>('POST', '/v1/products', {
        name: `Linen Shirt ${tag}`,
        price: 6900,
        currency: 'USD',
        stock: 5,
        category: 'apparel',
        images: ['https://picsum.photos/seed/shop-shirt/640/640'],
      });
      const shorts = await admin<Product>('POST', '/v1/products', {
        name: `Chino Shorts ${tag}`,
        price: 4900,
        currency: 'USD',
        stock: 50,
        category: 'apparel',
      });
      await page.goto(`/shop/?key=${demo.publishable_key}`);
      await addToCart(page, shirt.name);
      await addToCart(page, shorts.name);
      await page.goto('/shop/checkout');
      await enterAddress(page, `problems-${Date.now()}@example.com`);
      const cartId = await cartIdOf(page);

      // Meanwhile the merchant sells out the shirt and raises the shorts' price.
      await admin('PATCH', `/v1/products/${shirt.id}`, { stock: 0 });
      await admin('PATCH', `/v1/products/${shorts.id}`, { price: 5900 });
      await page.reload();
      const shirtLine = page.locator('.summary li.line', { hasText: shirt.name });
      await shirtLine.getByText('Sold out: remove it to pay for the rest.').waitFor();
      const shortsLine = page.locator('.summary li.line', { hasText: shorts.name });
      await shortsLine.getByText(`Price changed: was ${usd(4900)}`).waitFor();
      await page.getByText(`${shorts.name}: was ${usd(4900)}, now ${usd(5900)}`).waitFor();
      const pay = page.getByRole('button', { name: /^Pay / });
      assert.equal(await pay.isDisabled(), true);
      await page.getByText('Some items cannot be bought as they are').waitFor();
      await page.getByText('Accept the new prices.').waitFor();
      await phoneShot(page, 'checkout-problems');

      // The shopper takes the shirt out and accepts the new price.
      await page.goto('/shop/cart');
      await page.getByRole('button', { name: `Remove ${shirt.name}` }).click();
      await page.locator('li.line', { hasText: shirt.name }).waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'Check out' }).click();
      await page.getByRole('button', { name: 'Accept the new prices' }).click();
      const shown = await figuresMatch(page, cartId);
      await pay.waitFor();
      assert.equal(await pay.isEnabled(), true);

      // The price changes again while the page shows the old one: paying it is refused, nothing is charged.
      await admin('PATCH', `/v1/products/${shorts.id}`, { price: 6400 });
      await page.getByRole('button', { name: `Pay ${usd(shown.total)}` }).click();
      await page.getByText('Your cart changed before you paid, and nothing was charged').waitFor();
      await shortsLine.getByText(`Price changed: was ${usd(5900)}`).waitFor();
      assert.equal(await pay.isDisabled(), true);
      assert.equal((await admin<Cart>('GET', `/v1/carts/${cartId}`)).status, 'open');
      await page.getByRole('button', { name: 'Accept the new prices' }).click();
      const raised = await figuresMatch(page, cartId);
      assert.ok(raised.total > shown.total);

      // A declined card: said, and the cart is kept.
      await page.getByRole('radio', { name: /^Declined card/ }).check();
      await page.getByRole('button', { name: `Pay ${usd(raised.total)}` }).click();
      await page
        .getByText('Your card was declined (card_declined). Nothing was charged and your cart is kept')
        .waitFor();
      assert.equal((await admin<Cart>('GET', `/v1/carts/${cartId}`)).status, 'open');
      assert.equal(await cartIdOf(page), cartId);

      // Too many requests: the page says when to try again (the answer's Retry-After).
      await page.route('**/v1/store/carts/*/complete', (route) =>
        route.fulfill({
          status: 429,
          contentType: 'application/problem+json',
          headers: { 'retry-after': '30' },
          body: JSON.stringify({
            type: 'about:blank',
            title: 'Too Many Requests',
            status: 429,
            code: 'rate_limited',
            detail: 'Slow down.',
            request_id: 'req_test',
          }),
        }),
      );
      await page.getByRole('radio', { name: /^Visa/ }).check();
      await page.getByRole('button', { name: `Pay ${usd(raised.total)}` }).click();
      await page.getByText('Too many requests right now. Try again in 30 seconds.').waitFor();
      await page
        .getByRole('alert')
        .filter({ hasText: /Try again in \d+ seconds/ })
        .first()
        .waitFor();
      await phoneShot(page, 'checkout-429');
      await page.unroute('**/v1/store/carts/*/complete');

      await page.getByRole('button', { name: `Pay ${usd(raised.total)}` }).click();
      await page.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
      const order = await admin<Order>(
        'GET',
        `/v1/orders/${(await page.getByTestId('order-number').textContent()) ?? ''}`,
      );
      assert.equal(order.total, raised.total);
      assert.equal(order.items.length, 1);
      await context.close();
    });

    it('signs up, orders, signs out and in again, and lists the order', async () => {
      const { context, page } = await shopper();
      const email = `account-${Date.now()}@example.com`;
      await page.goto(`/shop/?key=${demo.publishable_key}`);
      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await accessible(page, 'the sign-in page');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByLabel('Name').fill('Grace Shopper');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      await page.getByText(`Signed in as Grace Shopper, ${email}.`).waitFor();
      await page.getByText('No orders yet.').waitFor();

      // The signed-in shopper's cart is theirs, with their email.
      await addToCart(page, 'Scented Candle', 2);
      await page.goto('/shop/checkout');
      assert.equal(await page.getByLabel('Email').inputValue(), email);
      await enterAddress(page);
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
      const number = (await page.getByTestId('order-number').textContent()) ?? '';
      const order = await admin<Order>('GET', `/v1/orders/${number}`);
      assert.equal(order.customer.email, email);

      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('list', { name: 'Your orders' }).getByRole('link', { name: number }).waitFor();
      await phoneShot(page, 'account');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('The email or the password is wrong.').waitFor();
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('list', { name: 'Your orders' }).getByRole('link', { name: number }).click();
      await page.getByTestId('order-number').filter({ hasText: number }).waitFor();
      await page.getByText('Scented Candle').waitFor();
      await context.close();
    });

    it('can be used with the keyboard alone', async () => {
      const { context, page } = await shopper();
      await page.goto(`/shop/?key=${demo.publishable_key}`);
      await page.getByRole('heading', { level: 1, name: 'All products' }).waitFor();
      const focused = () => inPage<string>(page, `document.activeElement?.textContent?.trim() ?? ''`);
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'Skip to content');
      // Search by typing, then Tab to the first result and open it.
      await page.getByRole('searchbox', { name: 'Search products' }).focus();
      await page.keyboard.type('Organic Cotton Tee');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Results for “Organic Cotton Tee”' }).waitFor();
      await listed(page);
      for (let i = 0; i < 40 && !(await focused()).startsWith('Organic Cotton Tee'); i++) {
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Organic Cotton Tee' }).waitFor();
      // Arrow keys move within a picker; then Tab on to Quantity and Add to cart.
      await page.getByRole('radio', { name: 'S', exact: true }).focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getByRole('radio', { name: 'M', exact: true }).isChecked(), true);
      await page.getByLabel('Quantity').focus();
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'Add to cart');
      await page.keyboard.press('Enter');
      await page.getByText(/^Added Organic Cotton Tee, M \//).waitFor();
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'View cart');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Your cart' }).waitFor();
      // A new page takes the focus, as a page load would.
      assert.equal(await inPage<string>(page, `document.activeElement?.id ?? ''`), 'main');
      await context.close();
    });

    it("has the console show each publishable key's shop, and make a new one", async () => {
      const { context, page } = await shopper();
      await page.goto('/console/login');
      await page.getByLabel('Email').fill(demo.email);
      await page.getByLabel('Password').fill(demo.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.goto('/console/keys');
      const demoShop = page.getByRole('link', { name: 'Open the shop of Demo shop' });
      assert.equal(await demoShop.getAttribute('href'), `${server.url}/shop/?key=${demo.publishable_key}`);

      await page.getByRole('button', { name: 'Create key' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Create API key' });
      await dialog.getByLabel('Name').fill('Pop-up shop');
      await dialog.getByLabel('Type').selectOption('publishable');
      await dialog.getByLabel('Allowed origins').fill('https://popup.example.com');
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const reveal = page.getByRole('dialog', { name: 'Your new publishable key' });
      const key = await reveal.getByLabel('Key “Pop-up shop”').inputValue();
      assert.match(key, /^pk_live_[0-9A-Za-z]{40}$/);
      assert.equal(await reveal.getByLabel('Your shop').inputValue(), `${server.url}/shop/?key=${key}`);
      await reveal.getByRole('button', { name: 'Done' }).click();
      const link = page.getByRole('link', { name: 'Open the shop of Pop-up shop' });
      await link.waitFor();
      await phoneShot(page, 'console-keys');
      await page.goto((await link.getAttribute('href')) ?? '');
      await page.getByRole('heading', { level: 1, name: 'All products' }).waitFor();
      await page.getByRole('list', { name: 'Products' }).getByRole('listitem').first().waitFor();
      await context.close();
    });

    it('called /v1/store/* with a publishable key and nothing else, without an error or a CSP violation', () => {
      const shopCalls = calls.filter((call) => !call.includes('/v1/api-keys') && !call.includes('/v1/users'));
      assert.ok(shopCalls.length > 0);
      const others = calls.filter((call) => !/^\w+ \/v1\/store\/\S+ Bearer pk_live_/.test(call));
      // The console's calls (its own session, no key) are the only others.
      for (const call of others) assert.match(call, / undefined$/, call);
      assert.deepEqual(problems, []);
    });
  });
}
