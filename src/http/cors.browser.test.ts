import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, inPage, launchChromium } from '../../test/helpers/console-browser.js';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';

/**
 * CORS as a browser enforces it: a page served from another origin (a small server on another
 * port of 127.0.0.1) calls the storefront API from Debian's Chromium. With the store's publishable
 * key, listing the page's origin, the call succeeds and the page reads the answer and its exposed
 * headers; with a secret key, or from an origin no key lists, or on an admin route, the browser
 * refuses the answer to the page (fetch rejects).
 */

const skip = chromiumMissing;

/** What the page's fetch ended in: the status and what it read, or the rejection. */
interface Outcome {
  status?: number;
  count?: number;
  requestId?: string | null;
  error?: string;
}

/** A fetch made by the page, from its own origin. */
function fetchFromPage(page: Page, url: string, key: string): Promise<Outcome> {
  return inPage<Outcome>(
    page,
    `fetch(${JSON.stringify(url)}, { headers: { Authorization: ${JSON.stringify(`Bearer ${key}`)} } })
      .then(async (res) => {
        const body = await res.json();
        return { status: res.status, count: Array.isArray(body.data) ? body.data.length : -1,
          requestId: res.headers.get('X-Request-Id') };
      })
      .catch((error) => ({ error: String(error) }))`,
  );
}

describe('storefront CORS in Chromium', { skip, timeout: 120_000 }, () => {
  let ctx: TestContext;
  let api = '';
  /** Two page servers: one whose origin the publishable key lists, one it does not. */
  const pages: http.Server[] = [];
  let listedOrigin = '';
  let otherOrigin = '';
  let browser: Browser;
  let page: Page;
  let publishable = '';
  let secret = '';

  async function pageServer(): Promise<string> {
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Shop</title><p>A shop on another origin</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pages.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  before(async () => {
    ctx = await createTestContext('sqlite');
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    listedOrigin = await pageServer();
    otherOrigin = await pageServer();
    const tenant = await createTenant(ctx);
    secret = tenant.apiKey.key;
    const admin = client(ctx.app, secret);
    const made = await admin<{ key: string }>('POST', '/v1/api-keys', {
      body: { type: 'publishable', name: 'Shop', allowed_origins: [listedOrigin] },
    });
    assert.equal(made.status, 201);
    publishable = made.body.key;
    const product = await admin('POST', '/v1/products', {
      body: { name: 'Classic tee', price: 2500, currency: 'USD', stock: 5, status: 'active' },
    });
    assert.equal(product.status, 201, JSON.stringify(product.body));
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(20_000);
  });

  after(async () => {
    await browser?.close();
    for (const server of pages) server.close();
    await ctx?.close();
  });

  it('lets a page at a listed origin call a store route with the publishable key', async () => {
    await page.goto(`${listedOrigin}/`);
    const outcome = await fetchFromPage(page, `${api}/v1/store/products`, publishable);
    assert.equal(outcome.error, undefined, JSON.stringify(outcome));
    assert.equal(outcome.status, 200);
    assert.equal(outcome.count, 1);
    // An exposed header is readable by the page.
    assert.match(String(outcome.requestId), /^req_/);
  });

  it('refuses the page the answer to a secret key, even from a listed origin', async () => {
    await page.goto(`${listedOrigin}/`);
    // The browser keeps the publishable key's answer and revalidates it for the secret key's
    // request (If-None-Match): that must not hand the kept answer to the page either.
    assert.equal((await fetchFromPage(page, `${api}/v1/store/products`, publishable)).status, 200);
    const outcome = await fetchFromPage(page, `${api}/v1/store/products`, secret);
    assert.match(String(outcome.error), /TypeError/, JSON.stringify(outcome));
  });

  it('refuses a page at an origin the key does not list', async () => {
    await page.goto(`${otherOrigin}/`);
    const outcome = await fetchFromPage(page, `${api}/v1/store/products`, publishable);
    assert.match(String(outcome.error), /TypeError/, JSON.stringify(outcome));
  });

  it('refuses a page calling an admin route, whatever the key', async () => {
    await page.goto(`${listedOrigin}/`);
    for (const key of [publishable, secret]) {
      const outcome = await fetchFromPage(page, `${api}/v1/products`, key);
      assert.match(String(outcome.error), /TypeError/, JSON.stringify(outcome));
    }
  });
});
