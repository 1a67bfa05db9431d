import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  buildConsole,
  chromiumMissing,
  CONSOLE_ARTIFACTS,
  inPage,
  launchChromium,
  navigate,
  settled,
} from '../../../test/helpers/console-browser.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { loadConfig } from '../../config.js';
import { type RunningServer, startServer } from '../../server.js';

/**
 * The console runs the store, in Chromium against the real server (SQLite: the pages sit above the
 * store): a new store's empty pages say what to do next (the overview charts no empty axis), a
 * product with two options is made in the variant grid and read back through the API, an order's
 * part is refunded on its page (the API then shows `refunded_amount`) and it is shipped, a
 * customer is erased after a dialog that says what goes, the settings are changed and the carts
 * show their recovery links. Every page of the store is screenshotted at 375x812 and 1280x800 into
 * test-artifacts/console/ (neither may scroll sideways), and the browser logs no error.
 */

const PHONE = { width: 375, height: 812 };
const LAPTOP = { width: 1280, height: 800 };
const PASSWORD = 'a long enough password';
const BUYER = 'grace@example.com';
const RECOVERY = 'https://shop.example.com/cart/{cart_id}';

if (chromiumMissing) it('console store pages in Chromium', { skip: chromiumMissing }, () => undefined);

for (const dialect of chromiumMissing ? [] : LOGIC_ONLY) {
  describe(`console store pages in Chromium (${dialect})`, { timeout: 240_000 }, () => {
    let store: TestStore;
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let apiKey = '';
    let productId = '';
    let orderId = '';
    let customerId = '';
    const problems: string[] = [];

    async function callApi<T = Record<string, unknown>>(
      method: string,
      url: string,
      body?: unknown,
    ): Promise<T> {
      const res = await fetch(`${server.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    }

    /** The id of the product's variant of `title`. */
    async function variantId(title: string): Promise<string> {
      const product = await callApi<{ variants: { id: string; title: string }[] }>(
        'GET',
        `/v1/products/${productId}`,
      );
      const variant = product.variants.find((v) => v.title === title);
      assert.ok(variant, `the product sells ${title}`);
      return variant.id;
    }

    /** The page at a phone's and a laptop's size (the laptop's last, as the test goes on there); neither scrolls sideways. */
    async function screenshots(name: string): Promise<void> {
      for (const viewport of [PHONE, LAPTOP]) {
        await page.setViewportSize(viewport);
        // From the top, where the sidebar sticks.
        await inPage(page, 'window.scrollTo(0, 0)');
        const overflow = await settled(
          () => inPage<number>(page, 'document.documentElement.scrollWidth - window.innerWidth'),
          (px) => px <= 0,
        );
        assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${viewport.width}px`);
        await page.screenshot({
          path: path.join(CONSOLE_ARTIFACTS, `${dialect}-admin-${name}-${viewport.width}.png`),
          fullPage: true,
        });
      }
    }

    const heading = (name: string) => page.getByRole('heading', { level: 1, name });
    /**
     * Waits for a toast saying `text` not waited for before, then marks it: a toast stays 5 s, so
     * one test's "Changes saved." may still show when the next test saves.
     */
    const toast = async (text: string) => {
      const shown = page.locator('.toast:not([data-seen])', { hasText: text }).first();
      await shown.waitFor();
      await shown.evaluate("(element) => element.setAttribute('data-seen', '')");
    };

    before(async () => {
      buildConsole();
      fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
      store = await migratedStore(dialect);
      server = await startServer(loadConfig({ ...store.env, PORT: '0' }));
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US' });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        // The 401 of the session check before signing up is the app's own, and expected.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(`console error: ${message.text()}`);
        }
      });
    });

    after(async () => {
      await browser?.close();
      await server?.shutdown();
      await store?.drop();
    });

    it('signs up: the empty store says what to do next, and charts no empty axis', async () => {
      await page.goto('/console/signup');
      await page.getByLabel('Store name').fill('Corner Shop');
      await page.getByLabel('Your name').fill('Ada Owner');
      await page.getByLabel('Email').fill(`owner-${Date.now()}@example.com`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      const welcome = page.getByRole('dialog', { name: 'Welcome! Here is your first API key' });
      apiKey = await welcome.getByLabel('API key').inputValue();
      await welcome.getByRole('button', { name: 'I have saved it' }).click();
      await heading('Overview').waitFor();

      const steps = page.getByTestId('first-steps');
      await steps.getByRole('heading', { name: 'No sales yet' }).waitFor();
      await steps.getByRole('link', { name: 'Add a product' }).waitFor();
      assert.equal(await page.locator('.chart').count(), 0, 'no chart of an empty month');
      assert.equal(await page.getByTestId('store-figures').count(), 0);
      // The quota counts this page's own calls before the call totals do, and says so.
      await page.getByTestId('quota-ahead').waitFor();
      await screenshots('overview-empty');

      for (const [label, empty] of [
        ['Products', 'No products yet'],
        ['Orders', 'No orders yet'],
        ['Customers', 'No customers yet'],
        ['Carts', 'No abandoned carts'],
      ] as const) {
        await navigate(page, label);
        await page.getByRole('heading', { name: empty }).waitFor();
        await screenshots(`${label.toLowerCase()}-empty`);
      }
    });

    it('creates a product with two options in the variant grid, and the API has it', async () => {
      await navigate(page, 'Products');
      await page.getByRole('link', { name: 'Add product' }).first().click();
      await heading('New product').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Console Tee');
      await page.getByLabel('Category').fill('apparel');
      await page.getByLabel('Tags').fill('cotton, new');
      await page.getByRole('button', { name: 'Add option' }).click();
      await page.getByLabel('Option 1 name').fill('Size');
      await page.getByLabel('Option 1 values').fill('S, M');
      await page.getByRole('button', { name: 'Add option' }).click();
      await page.getByLabel('Option 2 name').fill('Color');
      await page.getByLabel('Option 2 values').fill('Black, White');
      const grid = page.locator('table.table-variants');
      await settled(
        () => grid.locator('tbody tr').count(),
        (rows) => rows === 4,
      );
      assert.deepEqual(
        await Promise.all(
          (await grid.locator('tbody tr').all()).map((row) => row.getAttribute('data-variant')),
        ),
        ['S / Black', 'S / White', 'M / Black', 'M / White'],
      );
      assert.equal(await grid.locator('tbody th', { hasText: 'New' }).count(), 4, 'none stored yet');
      await page.getByLabel('Every price (USD)').fill('25.00');
      await page.getByRole('button', { name: 'Apply the price to every variant sold' }).click();
      await page.getByLabel('Every stock').fill('10');
      await page.getByRole('button', { name: 'Apply the stock to every variant sold' }).click();
      await page.getByLabel('Price of M / Black', { exact: true }).fill('27.50');
      for (const [title, sku] of [
        ['S / Black', 'CT-S-BLK'],
        ['S / White', 'CT-S-WHT'],
        ['M / Black', 'CT-M-BLK'],
      ]) {
        await page.getByLabel(`SKU of ${title}`).fill(sku);
      }
      await page.getByLabel('Sell M / White').uncheck();
      // A price that is not money is said under its cell, and nothing is sent.
      await page.getByLabel('Compare-at price of S / Black').fill('30.123');
      await page.getByRole('button', { name: 'Create product' }).last().click();
      await grid.getByText('Compare-at price must be an amount of USD with at most 2 decimals').waitFor();
      await page.getByLabel('Compare-at price of S / Black').fill('30.00');

      // The description, written by the AI endpoint from the form, taken into the field.
      await page.getByRole('button', { name: 'Write with AI' }).click();
      const ai = page.getByRole('dialog', { name: 'Write a description with AI' });
      await ai.getByRole('button', { name: 'Write description' }).click();
      await ai.getByRole('region', { name: 'Generated description' }).waitFor();
      await ai.getByRole('button', { name: 'Use this text' }).click();
      await ai.waitFor({ state: 'detached' });
      const description = await page.getByLabel('Description').inputValue();
      assert.match(description, /Console Tee/);

      await screenshots('product-new');
      await page.getByRole('button', { name: 'Create product' }).last().click();
      await toast('Product “Console Tee” created.');
      await heading('Console Tee').waitFor();
      productId = new URL(page.url()).pathname.split('/').pop() ?? '';
      assert.match(productId, /^prod_/);

      const product = await callApi<{
        options: { name: string; values: string[] }[];
        description: string;
        tags: string[];
        category: string;
        variants: {
          title: string;
          sku: string;
          price: number;
          compare_at_price: number | null;
          stock: number;
        }[];
      }>('GET', `/v1/products/${productId}`);
      assert.deepEqual(product.options, [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Color', values: ['Black', 'White'] },
      ]);
      assert.equal(product.description, description);
      assert.deepEqual(product.tags, ['cotton', 'new']);
      assert.equal(product.category, 'apparel');
      assert.deepEqual(
        product.variants.map((v) => [v.title, v.sku, v.price, v.compare_at_price, v.stock]),
        [
          ['S / Black', 'CT-S-BLK', 2500, 3000, 10],
          ['S / White', 'CT-S-WHT', 2500, null, 10],
          ['M / Black', 'CT-M-BLK', 2750, null, 10],
        ],
      );
      // The combination not sold is offered, unticked.
      assert.equal(await page.getByLabel('Sell M / White').isChecked(), false);
      await screenshots('product');
    });

    it('adds a size to the stored product: the new combinations are created, the others kept', async () => {
      await page.getByLabel('Option 1 values').fill('S, M, L');
      await page.getByLabel('Price of L / Black', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Sell L / Black').isChecked(), true, 'a new value is sold');
      await page.getByLabel('SKU of L / Black').fill('CT-L-BLK');
      await page.getByLabel('Sell L / White').uncheck();
      await page.getByLabel('Stock of S / White').fill('4');
      await page.getByRole('button', { name: 'Save changes' }).last().click();
      await toast('Changes saved.');
      const product = await callApi<{
        variants: { id: string; title: string; sku: string; stock: number; price: number }[];
      }>('GET', `/v1/products/${productId}`);
      assert.deepEqual(
        product.variants.map((v) => [v.title, v.sku, v.stock, v.price]),
        [
          ['S / Black', 'CT-S-BLK', 10, 2500],
          ['S / White', 'CT-S-WHT', 4, 2500],
          ['M / Black', 'CT-M-BLK', 10, 2750],
          // A new combination starts with no stock.
          ['L / Black', 'CT-L-BLK', 0, 2500],
        ],
      );
      // The list shows it with its stock at a glance, and finds it by a variant's SKU.
      await navigate(page, 'Products');
      await page.getByLabel('Search').fill('ct-m-blk');
      const row = page.locator(`tr[data-product-id="${productId}"]`);
      await row.waitFor();
      assert.match(await row.innerText(), /24 in stock/);
      assert.match(await row.innerText(), /\$25\.00 – \$27\.50/);
      await screenshots('products');
    });

    it('previews the product’s images, a placeholder for one that fails, and saves their alt text as media', async () => {
      // Images on another https origin, served here: one loads, one is missing. The console's
      // Content-Security-Policy must allow them (img-src https:), or the browser refuses both.
      const lamp = 'https://images.example.com/console-tee.svg';
      const missing = 'https://images.example.com/missing.png';
      await page.route('https://images.example.com/**', (route) =>
        route.request().url() === lamp
          ? route.fulfill({
              status: 200,
              contentType: 'image/svg+xml',
              body: '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#4f46e5"/></svg>',
            })
          : route.fulfill({ status: 404, body: '' }),
      );
      await page.locator(`tr[data-product-id="${productId}"]`).getByRole('link').first().click();
      await heading('Console Tee').waitFor();
      for (const url of [lamp, missing]) {
        await page.getByLabel('Image URL').fill(url);
        await page.getByRole('button', { name: 'Add image' }).click();
      }
      await page.getByLabel('Alt text of image 1').fill('The Console Tee, folded');
      const preview = page.locator('img.image-thumb');
      await preview.waitFor();
      assert.equal(await preview.count(), 1);
      assert.equal(await preview.getAttribute('alt'), 'The Console Tee, folded');
      await settled(
        () => inPage<number>(page, "document.querySelector('img.image-thumb')?.naturalWidth ?? 0"),
        (width) => width === 64,
      );
      await page.getByRole('img', { name: 'Image did not load' }).waitFor();
      await screenshots('product-images');
      await page.getByRole('button', { name: 'Save changes' }).last().click();
      await toast('Changes saved.');
      const product = await callApi<{ images: string[]; media: { url: string; alt: string | null }[] }>(
        'GET',
        `/v1/products/${productId}`,
      );
      assert.deepEqual(product.media, [
        { url: lamp, alt: 'The Console Tee, folded' },
        { url: missing, alt: null },
      ]);
      assert.deepEqual(product.images, [lamp, missing]);
      // Read back after a reload, and changed: only the alt text goes to the API.
      await page.reload();
      await heading('Console Tee').waitFor();
      assert.equal(await page.getByLabel('Alt text of image 1').inputValue(), 'The Console Tee, folded');
      await page.getByLabel('Alt text of image 2').fill('Back view');
      await page.getByRole('button', { name: 'Save changes' }).last().click();
      await toast('Changes saved.');
      const changed = await callApi<{ media: { url: string; alt: string | null }[] }>(
        'GET',
        `/v1/products/${productId}`,
      );
      assert.deepEqual(
        changed.media.map((image) => image.alt),
        ['The Console Tee, folded', 'Back view'],
      );
      await page.unroute('https://images.example.com/**');
      await navigate(page, 'Products');
    });

    it('refunds part of an order on its page, and the API shows refunded_amount', async () => {
      const order = await callApi<{ id: string; customer: { id: string } }>('POST', '/v1/orders', {
        items: [{ variant_id: await variantId('M / Black'), quantity: 2 }],
        customer: { email: BUYER, name: 'Grace Hopper' },
        shipping_address: { name: 'Grace Hopper', line1: '1 Navy Yard', city: 'Washington', country: 'US' },
        payment_method: 'pm_card_visa',
      });
      orderId = order.id;
      customerId = order.customer.id;

      await navigate(page, 'Orders');
      await page.getByLabel('Status').selectOption('paid');
      await page.getByLabel('Customer email').fill(BUYER.toUpperCase());
      const row = page.locator(`tr[data-order-id="${orderId}"]`);
      await row.waitFor();
      assert.equal(new URL(page.url()).searchParams.get('status'), 'paid');
      await screenshots('orders');
      await row.getByRole('link', { name: orderId }).click();
      await heading('$55.00 from Grace Hopper').waitFor();
      // The order's own address serves the console too.
      await page.reload();
      await heading('$55.00 from Grace Hopper').waitFor();
      const timeline = page.locator('ol.timeline');
      await timeline.getByRole('link', { name: 'Order placed' }).waitFor();
      await timeline.getByRole('link', { name: 'Payment received' }).waitFor();

      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund order' });
      await dialog.getByText('$55.00 of $55.00 is left to refund.').waitFor();
      await dialog.getByLabel('An amount, covering no line (goodwill)').check();
      await dialog.getByLabel('Amount (USD)').fill('5');
      await dialog.getByLabel('Reason').fill('Late delivery');
      const sent = page.waitForRequest(
        (r) => r.method() === 'POST' && r.url().endsWith(`/v1/orders/${orderId}/refunds`),
      );
      await dialog.getByRole('button', { name: 'Refund $5.00' }).click();
      assert.ok((await sent).headers()['idempotency-key'], 'sent with an Idempotency-Key');
      await toast('Refunded $5.00.');
      await page.getByTestId('refunded').getByText('−$5.00').waitFor();
      const refunded = await callApi<{ refunded_amount: number; refundable_amount: number; status: string }>(
        'GET',
        `/v1/orders/${orderId}`,
      );
      assert.equal(refunded.refunded_amount, 500);
      assert.equal(refunded.refundable_amount, 5000);
      assert.equal(refunded.status, 'paid');
      const refunds = await callApi<{ data: { amount: number; reason: string; items: unknown[] }[] }>(
        'GET',
        `/v1/orders/${orderId}/refunds`,
      );
      assert.deepEqual(
        refunds.data.map((r) => [r.amount, r.reason, r.items.length]),
        [[500, 'Late delivery', 0]],
      );
      await page.locator('ol.timeline').getByRole('link', { name: 'Refund of $5.00' }).waitFor();

      // One parcel now, with its tracking: the order stays paid, partly shipped.
      await page.getByRole('button', { name: 'Ship units' }).click();
      const parcel = page.getByRole('dialog', { name: 'Ship units' });
      await parcel.getByLabel(/M \/ Black/).fill('1');
      await parcel.getByLabel('Carrier').fill('DHL');
      await parcel.getByLabel('Tracking number').fill('JD0001');
      await parcel.getByLabel('Tracking URL').fill('https://dhl.example/JD0001');
      await parcel.getByRole('button', { name: 'Ship', exact: true }).click();
      await toast('Shipped 1 unit.');
      await page.getByTestId('fulfillment-status').getByText('Partly shipped').waitFor();
      await page.getByRole('link', { name: 'Track the parcel' }).waitFor();
      const partial = await callApi<{
        status: string;
        fulfillment_status: string;
        fulfillments: { items: { quantity: number }[]; tracking: { number: string } }[];
      }>('GET', `/v1/orders/${orderId}`);
      assert.deepEqual(
        [partial.status, partial.fulfillment_status, partial.fulfillments[0]?.tracking.number],
        ['paid', 'partial', 'JD0001'],
      );
      assert.equal(partial.fulfillments[0]?.items[0]?.quantity, 1);

      await page.getByRole('button', { name: 'Mark shipped' }).click();
      const ship = page.getByRole('dialog', { name: 'Mark shipped' });
      await ship.getByLabel('Carrier').fill('UPS');
      await ship.getByLabel('Tracking number').fill('1Z999');
      await ship.getByRole('button', { name: 'Mark shipped' }).click();
      await toast('Order marked shipped.');
      await page.locator('.page-header .badge', { hasText: 'Shipped' }).waitFor();
      assert.equal((await callApi<{ status: string }>('GET', `/v1/orders/${orderId}`)).status, 'shipped');
      await page.getByTestId('fulfillment-status').getByText('Everything shipped').waitFor();
      await screenshots('order');
    });

    it('erases a customer after a dialog that says what goes and that it is final', async () => {
      await navigate(page, 'Customers');
      await page.getByLabel('Search').fill('hopper');
      await page
        .locator(`tr[data-customer-id="${customerId}"]`)
        .getByRole('link', { name: 'Grace Hopper' })
        .click();
      await heading('Grace Hopper').waitFor();
      await page.getByTestId('orders-count').getByText('1').waitFor();
      await screenshots('customer');
      await page.getByRole('button', { name: 'Erase personal data' }).click();
      const dialog = page.getByRole('dialog', { name: 'Erase Grace Hopper’s personal data?' });
      await dialog.getByText('This cannot be undone.').waitFor();
      await dialog.getByText(`redacted+${customerId}@invalid`).waitFor();
      await dialog.getByText('shipping address', { exact: false }).first().waitFor();
      // Not without typing the email.
      await dialog.getByRole('button', { name: 'Erase personal data' }).click();
      await dialog.getByText('Type the customer’s email exactly to confirm.').waitFor();
      await dialog.getByLabel(`Type ${BUYER} to confirm`).fill(BUYER);
      await dialog.getByRole('button', { name: 'Erase personal data' }).click();
      await toast('Personal data erased.');
      await page.getByRole('status').getByText('Personal data erased').first().waitFor();
      const customer = await callApi<{ email: string; name: string | null; redacted: boolean }>(
        'GET',
        `/v1/customers/${customerId}`,
      );
      assert.equal(customer.redacted, true);
      assert.equal(customer.email, `redacted+${customerId}@invalid`);
      assert.equal(customer.name, null);
      const order = await callApi<{ shipping_address: unknown; customer: { name: string | null } }>(
        'GET',
        `/v1/orders/${orderId}`,
      );
      assert.equal(order.shipping_address, null);
      assert.equal(order.customer.name, null);
    });

    it('changes the settings, and the carts show their recovery links', async () => {
      const cart = await callApi<{ id: string }>('POST', '/v1/store/carts', {
        email: 'shopper@example.com',
        lines: [{ variant_id: await variantId('S / Black'), quantity: 1 }],
      });
      await navigate(page, 'Settings');
      // The store has an order: its currency is fixed.
      await page.getByText('Fixed since the store’s first order.').waitFor();
      assert.equal(await page.getByLabel('Currency').isDisabled(), true);
      await page.getByLabel('Hold a cart’s stock while its shopper checks out').check();
      await page.getByLabel('Hold stock for (minutes)').fill('15');
      await page.getByLabel('Recovery link template').fill('https://shop.example.com/cart');
      await page.getByRole('button', { name: 'Save settings' }).click();
      // The API's refusal is said under the field it names.
      await page.locator('.field-error', { hasText: 'Recovery link template' }).waitFor();
      await page.getByLabel('Recovery link template').fill(RECOVERY);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await toast('Settings saved.');
      const settings = await callApi<{ storefront: { hold_minutes: number; recovery_url_template: string } }>(
        'GET',
        '/v1/settings',
      );
      assert.equal(settings.storefront.hold_minutes, 15);
      assert.equal(settings.storefront.recovery_url_template, RECOVERY);
      await screenshots('settings');

      await navigate(page, 'Carts');
      await page.getByRole('link', { name: 'Open', exact: true }).click();
      const row = page.locator(`tr[data-cart-id="${cart.id}"]`);
      await row.getByRole('link', { name: `https://shop.example.com/cart/${cart.id}` }).waitFor();
      assert.match(await row.innerText(), /shopper@example\.com/);
      await screenshots('carts');
    });

    it('the overview charts the sales and sends the orders to ship to the Orders page', async () => {
      await callApi('POST', '/v1/orders', {
        items: [{ variant_id: await variantId('S / Black'), quantity: 1 }],
        customer: { email: 'second@example.com' },
        payment_method: 'pm_card_visa',
      });
      await navigate(page, 'Overview');
      await page.getByTestId('store-figures').waitFor();
      await page.locator('.chart').waitFor();
      assert.equal(await page.getByTestId('first-steps').count(), 0);
      const attention = page.getByTestId('attention');
      await attention.getByText('1 paid order to ship.').waitFor();
      await screenshots('overview');
      await attention.getByRole('link', { name: 'Open the paid orders' }).click();
      await heading('Orders').waitFor();
      assert.equal(await page.getByLabel('Status').inputValue(), 'paid');
      await settled(
        () => page.locator('tbody tr').count(),
        (rows) => rows === 1,
      );

      // The API keys: a table beside the sidebar on a 1280 px laptop, cards on a phone.
      await navigate(page, 'API keys');
      const rowDisplay = () =>
        settled(
          () => inPage<string>(page, "getComputedStyle(document.querySelector('tr[data-key-id]')).display"),
          (display) => display !== '',
        );
      await page.locator('tr[data-key-id]').first().waitFor();
      assert.equal(await rowDisplay(), 'table-row');
      await screenshots('api-keys');
      await page.setViewportSize(PHONE);
      assert.equal(await rowDisplay(), 'block');
      await page.setViewportSize(LAPTOP);
      assert.deepEqual(problems, [], 'no browser errors');
    });

    it('filters the orders by payment and fulfilment, kept in the address', async () => {
      // The first order is partly refunded and shipped whole, the second paid and not shipped; a
      // third is not paid.
      const unpaid = await callApi<{ id: string }>('POST', '/v1/orders', {
        items: [{ variant_id: await variantId('S / Black'), quantity: 1 }],
        customer: { email: 'third@example.com' },
      });
      /** The orders the API lists for `query`, which the page must show. */
      const listed = async (query: string) =>
        (await callApi<{ data: { id: string }[] }>('GET', `/v1/orders?limit=50&${query}`)).data.map(
          (order) => order.id,
        );
      const shows = async (ids: string[]) => {
        const seen = await settled(
          // Read in one go in the page: the rows change under a read row by row.
          () =>
            inPage<string[]>(
              page,
              "[...document.querySelectorAll('tbody tr[data-order-id]')].map((row) => row.dataset.orderId)",
            ),
          (rows) => JSON.stringify(rows) === JSON.stringify(ids),
        );
        assert.deepEqual(seen, ids);
      };

      await navigate(page, 'Orders');
      await shows(await listed(''));

      await page.getByLabel('Payment').selectOption('partially_refunded');
      const partlyRefunded = await listed('payment_status=partially_refunded');
      assert.ok(partlyRefunded.includes(orderId) && !partlyRefunded.includes(unpaid.id));
      await shows(partlyRefunded);

      await page.getByLabel('Payment').selectOption('');
      await page.getByLabel('Fulfilment').selectOption('unfulfilled');
      const unfulfilled = await listed('fulfillment_status=unfulfilled');
      assert.ok(unfulfilled.includes(unpaid.id) && !unfulfilled.includes(orderId));
      await shows(unfulfilled);

      await page.getByLabel('Payment').selectOption('paid');
      const toShip = await listed('fulfillment_status=unfulfilled&payment_status=paid');
      assert.ok(toShip.length > 0 && !toShip.includes(unpaid.id) && !toShip.includes(orderId));
      await shows(toShip);
      const address = new URL(page.url()).searchParams;
      assert.deepEqual([address.get('payment'), address.get('fulfillment')], ['paid', 'unfulfilled']);
      await screenshots('orders-filtered');

      // The address holds the filters: opened again, the page filters as it did.
      await page.reload();
      await shows(toShip);
      assert.equal(await page.getByLabel('Payment').inputValue(), 'paid');
      assert.equal(await page.getByLabel('Fulfilment').inputValue(), 'unfulfilled');
      await page.getByLabel('Payment').selectOption('unpaid');
      await page.getByLabel('Fulfilment').selectOption('fulfilled');
      await page.getByText('No orders match').waitFor();
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await shows(await listed(''));
      assert.equal(new URL(page.url()).search, '');

      // Opened by an address with a trailing slash, the page's filters still go to its address.
      await page.goto('/console/orders/');
      await shows(await listed(''));
      await page.getByLabel('Payment').selectOption('partially_refunded');
      await shows(partlyRefunded);
      assert.equal(new URL(page.url()).searchParams.get('payment'), 'partially_refunded');
      await page.getByLabel('Payment').selectOption('');
      await shows(await listed(''));

      // Two filters changed before the page renders again (a quick hand): the second keeps the first.
      await inPage(
        page,
        `for (const [name, value] of [['Payment', 'paid'], ['Fulfilment', 'unfulfilled']]) {
          const label = [...document.querySelectorAll('label')].find((l) => l.textContent === name);
          label.control.value = value;
          label.control.dispatchEvent(new Event('change', { bubbles: true }));
        }`,
      );
      await shows(toShip);
      const both = new URL(page.url()).searchParams;
      assert.deepEqual([both.get('payment'), both.get('fulfillment')], ['paid', 'unfulfilled']);
      assert.deepEqual(problems, [], 'no browser errors');
    });
  });
}
