import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type Browser,
  type BrowserContext,
  type Page,
  type Request as BrowserRequest,
} from 'playwright-core';
import {
  buildConsole,
  chromiumMissing,
  CONSOLE_ARTIFACTS as ARTIFACTS,
  inPage as evaluateIn,
  launchChromium,
  NARROW,
  navigate,
  painted as paintedIn,
  requestsWhileTimeRuns,
  screenshotsAtBothWidths,
  settled,
  WIDE,
} from '../../../test/helpers/console-browser.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { CONSOLE_API_VERSION } from '../../../console/src/version.js';
import { loadConfig } from '../../config.js';
import { PLAN_LIMITS } from '../limits/limits.plans.js';
import { type RunningServer, startServer } from '../../server.js';

/**
 * The developer console end to end: the built app served by the real server, driven in Debian's
 * Chromium through playwright-core. A person's path through it: sign up, make a key and call the
 * API with it, watch webhook deliveries (and a failing receiver turn its endpoint Degraded),
 * install and rate a plugin, and see the calls on the usage page. Every page is screenshotted at
 * 1280 and 390 pixels wide into test-artifacts/console/.
 */

const skip = chromiumMissing;
const PASSWORD = 'a long enough password';
/** An endpoint's delivery log, as the page asks for it (every 2 seconds) and as a route matches it. */
const DELIVERY_LOG = /\/v1\/webhooks\/[^/]+\/deliveries\?/;
const DELIVERY_LOG_ROUTE = '**/v1/webhooks/*/deliveries?*';

// Without Chromium the suite cannot run: the summary says so (one skipped test) instead of passing.
if (skip) it('developer console in Chromium', { skip }, () => undefined);

for (const dialect of skip ? [] : LOGIC_ONLY) {
  describe(`developer console in Chromium (${dialect})`, { timeout: 240_000 }, () => {
    let store: TestStore;
    let server: RunningServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let healthy: Receiver;
    let failing: Receiver;
    let apiKey = '';
    /** API calls the test made with keys of the new tenant (the usage page must count them). */
    let apiCalls = 0;
    const problems: string[] = [];
    /** The failing endpoint's page (its delivery log polls every 2 seconds). */
    let pollingPage = '';
    /** The page of the endpoint with a long URL. */
    let longUrlPage = '';
    const email = `owner-${Date.now()}-${dialect}@example.com`;

    async function callApi<T = Record<string, unknown>>(
      method: string,
      url: string,
      body?: unknown,
    ): Promise<{ status: number; body: T }> {
      apiCalls += 1;
      const res = await fetch(`${server.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    }

    async function placeOrder(): Promise<string> {
      const product = await callApi<{ id: string }>('POST', '/v1/products', {
        name: 'Trail Runner 2',
        price: 12900,
        currency: 'USD',
        stock: 10,
        category: 'shoes',
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const order = await callApi<{ id: string }>('POST', '/v1/orders', {
        items: [{ product_id: product.body.id, quantity: 1 }],
        customer: { email: 'buyer@example.com', name: 'Bo Buyer' },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      return order.body.id;
    }

    /** A screenshot of the page at both widths (the wide one last, as the test goes on there). */
    function screenshots(name: string): Promise<void> {
      return screenshotsAtBothWidths(page, name, path.join(ARTIFACTS, `${dialect}-${name}`));
    }

    /** An expression evaluated in the page (as text: this file is type-checked without the DOM library). */
    function inPage<T>(expression: string): Promise<T> {
      return evaluateIn<T>(page, expression);
    }

    /** Once the page has painted twice: what it had queued (an answer, an event's effects) is done. */
    function painted(): Promise<void> {
      return paintedIn(page);
    }

    /**
     * Runs `steps` with the page's refreshes paused, as in a background tab (the console polls only
     * while the page is visible): then nothing but the steps loads anything, and an element they
     * click (a Retry) is not taken away meanwhile by a refresh that succeeded on its own.
     */
    async function withRefreshesPaused(steps: () => Promise<void>): Promise<void> {
      await inPage(
        "void Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' })",
      );
      try {
        // A refresh whose timer fired just before has sent its request by now.
        await painted();
        await steps();
      } finally {
        await inPage('void delete document.visibilityState');
      }
    }

    /** Whether the element's middle is what a click there would hit (not a backdrop above it). */
    async function onTop(locator: ReturnType<Page['locator']>): Promise<boolean> {
      const box = await locator.boundingBox();
      assert.ok(box, 'the element is shown');
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
      const hit = await inPage<string>(`document.elementFromPoint(${x}, ${y})?.textContent ?? ''`);
      return hit === (await locator.textContent());
    }

    /** Escape (twice: the second cannot be refused without a click between) and a backdrop click. */
    async function tryToDismiss(dialog: ReturnType<Page['locator']>): Promise<void> {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await page.mouse.click(3, 3);
      // All three handled (a modal the browser closes anyway is shown again from its close event).
      await painted();
      assert.equal(
        await settled(
          () => dialog.isVisible(),
          (shown) => shown,
        ),
        true,
        'the dialog stayed open',
      );
      assert.equal(await dialog.getByRole('button', { name: 'Close', exact: true }).count(), 0);
    }

    /** The WCAG contrast of the text color of the element `element` finds in the page, on white. */
    async function contrastOnWhite(element: string): Promise<number> {
      const color = await inPage<string>(`getComputedStyle(${element}).color`);
      const channels = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(color);
      assert.ok(channels, `an opaque color, not ${color}`);
      const [r = 0, g = 0, b = 0] = channels.slice(1).map((c) => {
        const v = Number(c) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
    }

    function nav(label: string): Promise<void> {
      return navigate(page, label);
    }

    before(async () => {
      buildConsole();
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      store = await migratedStore(dialect);
      healthy = await startReceiver(() => ({ status: 200, body: '{"received":true}' }));
      // An HTML error page: the delivery log must show it as text, never render it.
      failing = await startReceiver(() => ({
        status: 503,
        body: '<h1 id="injected">Down for maintenance</h1>',
        headers: { 'content-type': 'text/html' },
      }));
      server = await startServer(
        loadConfig({ ...store.env, PORT: '0', WEBHOOK_RETRY_SCHEDULE: '3600', DEMO_DATA: 'off' }),
      );
      browser = await launchChromium();
      context = await browser.newContext({ viewport: WIDE, baseURL: server.url, locale: 'en-US' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        // 4xx answers the app handles (the 401 before login) are logged by Chromium; they are fine.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(`console error: ${message.text()}`);
        }
      });
    });

    after(async () => {
      await browser?.close();
      await server?.shutdown();
      await healthy?.close();
      await failing?.close();
      await store?.drop();
    });

    it('signs up, lands on the overview and is shown the first key once', async () => {
      await page.goto('/console/');
      await page.waitForURL(/\/console\/login$/);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await screenshots('login');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByLabel('Store name').fill('   ');
      await page.getByLabel('Your name').fill('Nora North');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      // A blank store name is refused, and the form says so under the field.
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Store name must not be blank.').waitFor();
      assert.equal(await page.getByLabel('Store name').getAttribute('aria-invalid'), 'true');
      // An error about a field the form does not show still shows, for the whole form.
      await page.route('**/console/api/signup', (route) =>
        route.fulfill({
          status: 400,
          contentType: 'application/problem+json',
          body: JSON.stringify({
            code: 'validation_failed',
            detail: 'plan is not an accepted field',
            errors: [{ field: 'plan', message: 'is not an accepted field' }],
          }),
        }),
      );
      await page.getByLabel('Store name').fill('Northwind Outfitters');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('alert').getByText('Plan is not an accepted field.').waitFor();
      await page.unroute('**/console/api/signup');
      await screenshots('signup');
      await page.getByRole('button', { name: 'Create account' }).click();

      const welcome = page.getByRole('dialog', { name: 'Welcome! Here is your first API key' });
      await welcome.waitFor();
      const firstKey = await welcome.getByLabel('API key').inputValue();
      assert.match(firstKey, /^sk_live_[0-9A-Za-z]{40}$/);
      // Shown only once: neither Escape nor a click beside it loses it, only its button.
      await tryToDismiss(welcome);
      await welcome.getByRole('button', { name: 'I have saved it' }).click();
      await welcome.waitFor({ state: 'detached' });
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('heading', { name: 'Total API calls' }).waitFor();
      await page.getByText('Northwind Outfitters').first().waitFor();

      // The session cookie is the __Host- one, HttpOnly and Secure, and scripts cannot read it.
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === '__Host-cp_session');
      assert.ok(session, 'the browser kept the session cookie over http://127.0.0.1');
      assert.equal(session.httpOnly, true);
      assert.equal(session.secure, true);
      assert.equal(session.sameSite, 'Lax');
      assert.equal(await inPage<string>('document.cookie'), '');
      await screenshots('overview');
    });

    it('creates an API key in a dialog that keeps focus, and the key works on the API', async () => {
      await nav('API keys');
      const create = page.getByRole('button', { name: 'Create key' }).first();
      await create.click();
      const dialog = page.getByRole('dialog', { name: 'Create API key' });
      await dialog.waitFor();
      // Focus stays in the modal however far one tabs, and Escape gives it back to the opener.
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        assert.equal(
          await inPage<boolean>("document.activeElement?.closest('dialog') != null"),
          true,
          `focus left the dialog after ${i + 1} tabs`,
        );
      }
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await inPage<string>('document.activeElement?.textContent'), 'Create key');

      await create.click();
      await dialog.getByLabel('Name').fill('Storefront');
      for (const permission of [
        'read:products',
        'write:products',
        'read:orders',
        'write:orders',
        'read:users',
      ]) {
        await dialog.getByRole('checkbox', { name: permission, exact: true }).check();
      }
      await screenshots('api-keys-create');
      const sending = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/api-keys'));
      await dialog.getByRole('button', { name: 'Create key' }).click();
      // The console calls the API as any client: in the version it reads, idempotently.
      const sent = (await sending).headers();
      assert.match(
        sent['idempotency-key'] ?? '',
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      assert.equal(sent['x-service-version'], CONSOLE_API_VERSION);
      const reveal = page.getByRole('dialog', { name: 'Your new API key' });
      await reveal.waitFor();
      apiKey = await reveal.getByLabel('Key “Storefront”').inputValue();
      assert.match(apiKey, /^sk_live_[0-9A-Za-z]{40}$/);
      // The toast shows above the dialog's backdrop, not under it.
      const toast = page.getByText('API key “Storefront” created.');
      await toast.waitFor();
      assert.equal(await onTop(toast), true, 'the toast is above the backdrop');
      await screenshots('api-keys-reveal');
      await tryToDismiss(reveal);
      await reveal.getByRole('button', { name: 'Copy' }).first().click();
      await reveal.getByRole('button', { name: 'Copied' }).first().waitFor();
      assert.equal(await inPage<string>('navigator.clipboard.readText()'), apiKey);
      await reveal.getByRole('button', { name: 'Done' }).click();

      const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'Storefront' }) });
      await row.waitFor();
      assert.match(await row.innerText(), new RegExp(`sk_live_\\*{4}_\\*{4}_\\*{4}_${apiKey.slice(-4)}`));
      assert.match(await row.innerText(), /Active/);
      assert.match(await row.innerText(), /Never/);
      assert.match(await row.innerText(), /read:products/);

      const me = await callApi<{ email: string }>('GET', '/v1/users/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.email, email);
      await page.reload();
      await row.getByText('just now').waitFor();

      // Rolled with an hour's grace, the old key's row says when it stops, to the minute.
      await page.getByRole('button', { name: 'Roll Storefront' }).click();
      const roll = page.getByRole('dialog', { name: 'Roll “Storefront”?' });
      await roll.getByLabel('Keep the old key working for').selectOption('3600');
      await roll.getByRole('button', { name: 'Roll key' }).click();
      const rolled = page.getByRole('dialog', { name: 'Key rolled' });
      apiKey = await rolled.getByLabel('New key for “Storefront”').inputValue();
      assert.match(apiKey, /^sk_live_[0-9A-Za-z]{40}$/);
      await tryToDismiss(rolled);
      await rolled.getByRole('button', { name: 'Done' }).click();
      const old = page.locator('tr', {
        has: page.getByRole('rowheader', { name: 'Storefront' }),
        hasText: 'Expires',
      });
      assert.match(
        await old.locator('.hint').innerText(),
        /^Expires \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/,
      );
      assert.equal(await page.getByRole('rowheader', { name: 'Storefront' }).count(), 2);
      await screenshots('api-keys');
    });

    it('fits the API keys table on laptop screens, and "+N more" shows the rest of the permissions', async () => {
      for (const viewport of [
        { width: 1024, height: 768 },
        { width: 1280, height: 800 },
      ]) {
        await page.setViewportSize(viewport);
        const rows = page.locator('tr[data-key-id]');
        assert.equal(await rows.count(), 3, 'the first key, and Storefront rolled');
        for (const row of await rows.all()) {
          for (const action of ['Roll', 'Revoke']) {
            const button = row.getByRole('button', { name: new RegExp(`^${action} `) });
            await button.scrollIntoViewIfNeeded();
            const box = await button.boundingBox();
            assert.ok(box, `${action} is shown`);
            assert.ok(
              box.x >= 0 && box.x + box.width <= viewport.width,
              `${action} lies within the ${viewport.width}px screen (${box.x}..${box.x + box.width})`,
            );
            assert.equal(await onTop(button), true, `${action} is not covered at ${viewport.width}px`);
          }
        }
        const overflow = await inPage<number>('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(overflow <= 0, `the keys page scrolls sideways by ${overflow}px at ${viewport.width}px`);
      }
      await page.setViewportSize(WIDE);

      // Storefront's five permissions: three, and a button (not a tooltip) for the other two (the
      // last in the API's order: the orders').
      const row = page.locator('tr', {
        has: page.getByRole('rowheader', { name: 'Storefront' }),
        hasNotText: 'Expires',
      });
      const chips = row.locator('.chips');
      assert.equal(await chips.getByText('write:orders', { exact: true }).count(), 0);
      const more = chips.getByRole('button', { name: '+2 more' });
      assert.equal(await more.getAttribute('aria-expanded'), 'false');
      await more.click();
      await chips.getByText('write:orders', { exact: true }).waitFor();
      assert.equal(await chips.locator('li.chip').count(), 5);
      // From the keyboard too: Enter on the button folds them again.
      const less = chips.getByRole('button', { name: 'Show less' });
      assert.equal(await less.getAttribute('aria-expanded'), 'true');
      await less.focus();
      await page.keyboard.press('Enter');
      await chips.getByRole('button', { name: '+2 more' }).waitFor();
      assert.equal(await chips.locator('li.chip').count(), 3);
    });

    it('says under the field what is wrong with a refused key or endpoint, and never sends a blank name', async () => {
      const created: string[] = [];
      const watch = (request: { method(): string; url(): string }) => {
        if (request.method() === 'POST' && /\/v1\/(api-keys|webhooks)$/.test(request.url())) {
          created.push(request.url());
        }
      };
      page.on('request', watch);
      try {
        await page.getByRole('button', { name: 'Create key' }).first().click();
        const dialog = page.getByRole('dialog', { name: 'Create API key' });
        const name = dialog.getByLabel('Name');
        await name.fill('   ');
        await dialog.getByRole('checkbox', { name: 'read:orders', exact: true }).check();
        await dialog.getByRole('button', { name: 'Create key' }).click();
        const blank = dialog.getByText('Enter a name for the key.');
        await blank.waitFor();
        assert.equal(await name.getAttribute('aria-invalid'), 'true');
        assert.equal(await name.getAttribute('aria-describedby'), await blank.getAttribute('id'));
        assert.deepEqual(created, [], 'a blank name is not sent');

        // The server's refusal of a field, worded for people, under that field.
        await page.route('**/v1/api-keys', (route) =>
          route.request().method() === 'POST'
            ? route.fulfill({
                status: 400,
                contentType: 'application/problem+json',
                body: JSON.stringify({
                  code: 'validation_failed',
                  detail: 'The request is invalid: name must NOT have more than 100 characters.',
                  errors: [{ field: 'name', message: 'must NOT have more than 100 characters' }],
                }),
              })
            : route.fallback(),
        );
        await name.fill('Reporting');
        await dialog.getByRole('button', { name: 'Create key' }).click();
        const tooLong = dialog.getByText('Name must be at most 100 characters.');
        await tooLong.waitFor();
        assert.equal(await name.getAttribute('aria-describedby'), await tooLong.getAttribute('id'));
        assert.equal(await dialog.locator('.form-error').count(), 0, 'said once, by the field');
        await page.unroute('**/v1/api-keys');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });

        // A URL the server refuses (ftp:) says so by the URL field, in its words.
        await nav('Webhooks');
        await page.getByRole('button', { name: 'Add endpoint' }).first().click();
        const endpoint = page.getByRole('dialog', { name: 'Add webhook endpoint' });
        const url = endpoint.getByLabel('Endpoint URL');
        await url.fill('ftp://example.com/hooks');
        await endpoint.getByRole('checkbox', { name: 'order.created' }).check();
        await endpoint.getByRole('button', { name: 'Add endpoint' }).click();
        const https = endpoint.getByText('Endpoint URL must use https.');
        await https.waitFor();
        assert.equal(await url.getAttribute('aria-invalid'), 'true');
        assert.equal(await url.getAttribute('aria-describedby'), await https.getAttribute('id'));
        await endpoint.getByRole('button', { name: 'Cancel' }).click();
        await endpoint.waitFor({ state: 'detached' });
      } finally {
        page.off('request', watch);
      }
    });

    it('shows the request id of a server failure to quote, and the wait a 429 asks for', async () => {
      const requestId = 'req_0123456789abcdef0123456789abcdef';
      await page.route('**/v1/api-keys?*', (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/problem+json',
          body: JSON.stringify({
            type: '/docs#error-internal_error',
            title: 'Internal server error',
            status: 500,
            code: 'internal_error',
            detail: 'Something went wrong on our side. Retry later; quote the request_id if it persists.',
            request_id: requestId,
          }),
        }),
      );
      await nav('API keys');
      const failure = page.getByRole('alert').filter({ hasText: 'Something went wrong on our side' });
      await failure.getByText(`Request ID: ${requestId}`).waitFor();
      await failure.getByRole('button', { name: 'Copy the request ID' }).click();
      await failure.getByRole('button', { name: 'Request ID copied' }).waitFor();
      assert.equal(await inPage<string>('navigator.clipboard.readText()'), requestId);
      await page.unroute('**/v1/api-keys?*');

      // A 429 from something in front of the server (no problem body) still says how long to wait.
      await page.route('**/v1/webhooks?*', (route) =>
        route.fulfill({
          status: 429,
          contentType: 'text/html',
          headers: { 'retry-after': '30' },
          body: '<html><body>Too Many Requests</body></html>',
        }),
      );
      await nav('Webhooks');
      await page.getByRole('alert').getByText('Too many requests. Retry in 30 seconds.').waitFor();
      // The list refreshes every 5 seconds, and one that succeeds would take Try again away.
      await withRefreshesPaused(async () => {
        await page.unroute('**/v1/webhooks?*');
        await page.getByRole('button', { name: 'Try again' }).click();
        await page.getByText('No webhook endpoints').waitFor();
      });
    });

    it('shows the usage period from the 1st and allows tomorrow as an expiry, in New York', async () => {
      // 03:00 UTC: still the day before in New York, whose local tomorrow is this UTC day.
      const now = new Date();
      now.setUTCHours(3, 0, 0, 0);
      const ny = await browser.newContext({
        viewport: WIDE,
        baseURL: server.url,
        locale: 'en-US',
        timezoneId: 'America/New_York',
        storageState: await context.storageState(),
      });
      try {
        const nyPage = await ny.newPage();
        await nyPage.clock.setFixedTime(now);
        await nyPage.goto('/console/');
        const since = nyPage.locator('.stat-note', { hasText: /^Since / });
        assert.match(await since.innerText(), /^Since [A-Z][a-z]{2} 1, \d{4}$/);
        const resets = nyPage.locator('.stat-note', { hasText: /^Resets / });
        assert.match(await resets.innerText(), /^Resets [A-Z][a-z]{2} 1, \d{4}$/);

        await nyPage.goto('/console/keys');
        await nyPage.getByRole('button', { name: 'Create key' }).first().click();
        const expires = nyPage.getByRole('dialog', { name: 'Create API key' }).getByLabel('Expires on');
        assert.equal(await expires.getAttribute('min'), now.toISOString().slice(0, 10));
      } finally {
        await ny.close();
      }
    });

    it('shows webhook deliveries in the log, and a failing receiver turns its endpoint Degraded', async () => {
      await nav('Webhooks');
      await page.getByText('No webhook endpoints').waitFor();
      await page.getByRole('button', { name: 'Add endpoint' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
      await dialog.getByLabel('Endpoint URL').fill(`${healthy.url}/hooks/orders`);
      await dialog.getByLabel('Description').fill('Order sync');
      await dialog.getByRole('checkbox', { name: 'order.created' }).check();
      await dialog.getByRole('checkbox', { name: 'order.shipped' }).check();
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      const reveal = page.getByRole('dialog', { name: 'Endpoint added' });
      assert.match(await reveal.getByLabel('Signing secret').inputValue(), /^whsec_/);
      await tryToDismiss(reveal);
      await reveal.getByRole('button', { name: 'View endpoint' }).click();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      await page.getByText('No deliveries yet').waitFor();

      await placeOrder();
      await healthy.waitFor(1);
      const delivered = page.locator('tr[data-status="succeeded"]', { hasText: 'order.created' });
      await delivered.waitFor();
      const cells = await delivered.locator('td').allInnerTexts();
      assert.match(cells[0] ?? '', /^[A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}:\d{2}$/, 'time as Nov 21, 14:03:27');
      assert.equal(cells[1], 'order.created');
      assert.equal(cells[2], '/hooks/orders');
      assert.equal(cells[3], '200 OK');
      assert.match(cells[4] ?? '', /^\d{1,3}(,\d{3})* ms$/);
      assert.equal(await delivered.locator('.response-ok').count(), 1, 'a 2xx response is shown as success');
      await page.getByText('1 attempt · refreshes automatically', { exact: true }).waitFor();

      // A row opens the attempt in full: outcome, the response body and the event it sent.
      await delivered.getByRole('button', { name: 'order.created, attempt 1: details' }).click();
      const details = page.getByRole('dialog', { name: 'order.created · attempt 1' });
      await details.waitFor();
      assert.equal(
        await details.getByLabel('Response body').innerText(),
        '{\n  "received": true\n}',
        'the JSON answer, indented',
      );
      const payload = details.getByLabel('Event payload');
      await payload.waitFor();
      const sent = JSON.parse(healthy.received[0]?.body ?? '{}') as { id: string };
      assert.deepEqual(JSON.parse(await payload.innerText()), sent, 'the event as the receiver got it');
      const facts = await details.locator('dl').innerText();
      assert.match(facts, /Succeeded/);
      assert.match(facts, /200 OK/);
      assert.match(facts, /\d+ ms/);
      assert.match(facts, /Next retry\s+None/i);
      assert.match(facts, new RegExp(sent.id));
      await screenshots('webhook-delivery');
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.locator('tr[data-status="succeeded"]', { hasText: 'webhook.test' }).waitFor();
      await screenshots('webhook-detail');

      // A second endpoint whose receiver answers 503.
      await nav('Webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).first().click();
      const second = page.getByRole('dialog', { name: 'Add webhook endpoint' });
      await second.getByLabel('Endpoint URL').fill(`${failing.url}/hooks/inventory`);
      await second.getByRole('checkbox', { name: 'order.created' }).check();
      await second.getByRole('button', { name: 'Add endpoint' }).click();
      await page
        .getByRole('dialog', { name: 'Endpoint added' })
        .getByRole('button', { name: 'Done' })
        .click();
      const failingRow = page.locator('tr', { hasText: `${failing.url}/hooks/inventory` });
      await failingRow.getByText('Active').waitFor();

      await placeOrder();
      await failing.waitFor(1);
      await failingRow.getByText('Degraded').waitFor({ timeout: 20_000 });
      const healthyRow = page.locator('tr', { hasText: `${healthy.url}/hooks/orders` });
      await healthyRow.getByText('Active').waitFor();
      assert.match(await healthyRow.innerText(), /ago|just now/, 'last triggered, as relative time');
      await screenshots('webhooks');

      await failingRow.getByRole('link').click();
      const failed = page.locator('tr[data-status="failed"]', { hasText: 'order.created' });
      await failed.waitFor();
      assert.equal(await failed.locator('.response-error').innerText(), '503 Service Unavailable');
      // The scheduled retry (an hour on) is still to come.
      await failed.getByText(/^Next retry /).waitFor();
      // Opened by a click anywhere on the row: the HTML answer shows as text, with the retry to come.
      await failed.locator('td[data-label="Duration"]').click();
      const failure = page.getByRole('dialog', { name: 'order.created · attempt 1' });
      assert.equal(
        await failure.getByLabel('Response body').innerText(),
        '<h1 id="injected">Down for maintenance</h1>',
      );
      assert.equal(await page.locator('#injected').count(), 0, 'the body was not rendered as HTML');
      const failureFacts = await failure.locator('dl').innerText();
      assert.match(failureFacts, /Failed/);
      assert.match(failureFacts, /503 Service Unavailable/);
      assert.match(failureFacts, /next retry\s+\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M/i);
      await failure.getByLabel('Event payload').waitFor();
      await failure.getByRole('button', { name: 'Close' }).click();
      await failure.waitFor({ state: 'detached' });
      await failed.getByRole('button', { name: /^Retry/ }).click();
      await eventually(() => failing.received.length >= 2 || undefined, 15_000, 'the manual retry');
      await page.locator('tr[data-status="failed"]').nth(1).waitFor();
      // That retry has run now (and was the last of the schedule): no attempt claims another.
      assert.equal(await page.locator('tr[data-status="pending"]').count(), 0);
      assert.equal(await page.getByText(/^Next retry /).count(), 0);
      await screenshots('webhook-failing');
    });

    it('keeps the delivery log on screen when a refresh fails, and says since when it is out of date', async () => {
      const rows = page.locator('tr[data-status="failed"]');
      assert.equal(await rows.count(), 2);
      const warning = page.getByRole('alert').filter({ hasText: 'Couldn’t refresh' });
      assert.equal(await warning.count(), 0);
      // A refresh that succeeds: the data on screen is from it, or from a later one.
      const good = await page.waitForResponse((res) => DELIVERY_LOG.test(res.url()) && res.status() === 200);
      const goodSent = good.request().timing().startTime;
      let failures = 0;
      await page.route(DELIVERY_LOG_ROUTE, (route) => {
        failures += 1;
        return route.fulfill({
          status: 503,
          contentType: 'application/problem+json',
          body: JSON.stringify({
            code: 'service_unavailable',
            detail: 'The store is unreachable.',
            request_id: `req_refresh_failure_${failures}`,
          }),
        });
      });
      try {
        // The log refreshes every 2 seconds: the next one fails.
        await warning.waitFor();
        const warnedAt = Date.now();
        const text = await warning.innerText();
        const shown = /showing data from (\d{2}):(\d{2}):(\d{2})/.exec(text);
        assert.ok(shown, text);
        const [, hh, mm, ss] = shown.map(Number);
        const since = new Date(warnedAt);
        since.setHours(hh ?? 0, mm, ss, 0);
        if (since.getTime() > warnedAt) since.setDate(since.getDate() - 1);
        assert.ok(
          since.getTime() >= Math.floor(goodSent / 1000) * 1000 && since.getTime() <= warnedAt,
          `the time of the last good load, not ${shown[0]}`,
        );
        assert.match(text, /The store is unreachable\./);
        assert.equal(await rows.count(), 2, 'the old rows stay');
        await screenshots('webhook-stale');

        await withRefreshesPaused(async () => {
          // A retry that fails again keeps saying so: its own failure, the same time.
          const retried = page.waitForRequest((req) => DELIVERY_LOG.test(req.url()));
          await warning.getByRole('button', { name: 'Retry' }).click();
          const answer = await (await retried).response();
          assert.ok(answer, 'the retry was answered');
          const { request_id: requestId } = (await answer.json()) as { request_id: string };
          await warning.getByText(`Request ID: ${requestId}`).waitFor();
          assert.ok((await warning.innerText()).includes(shown[0]), 'still the time of the last good load');
          // Once the server answers, the warning goes.
          await page.unroute(DELIVERY_LOG_ROUTE);
          await warning.getByRole('button', { name: 'Retry' }).click();
          await warning.waitFor({ state: 'detached' });
        });
        assert.equal(await rows.count(), 2);
      } finally {
        await page.unroute(DELIVERY_LOG_ROUTE);
      }
    });

    it('sends a visitor whose session expired to the login page, says why, and comes back', async () => {
      const here = new URL(page.url());
      assert.match(here.pathname, /^\/console\/webhooks\/wh_/);
      pollingPage = here.pathname;
      const { user } = await page.evaluate(async () => {
        const res = await fetch('/console/api/session');
        return (await res.json()) as { user: { id: string } };
      });
      // The session ends on the server (as after a day idle) while the page polls the log.
      await server.deps.store.db
        .updateTable('console_sessions')
        .set({ expires_at: Date.now() - 1 })
        .where('user_id', '=', user.id)
        .execute();
      await page.waitForURL(
        (url) =>
          url.pathname === '/console/login' &&
          url.searchParams.get('next') === here.pathname.replace('/console', ''),
      );
      const notice = page.getByRole('alert').filter({ hasText: 'Your session expired; log in again' });
      await notice.waitFor();
      await screenshots('login-expired');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL((url) => url.pathname === here.pathname);
      await page.locator('tr[data-status="failed"]').nth(1).waitFor();
      assert.equal(await page.locator('tr[data-status="failed"]').count(), 2);
    });

    it('refreshes a page every 2 seconds only while it is in use, then less and less often, and waits out a 429', async () => {
      // A tab of its own whose clock the test moves: minutes of the page's time pass in seconds.
      const idle = await browser.newContext({
        viewport: WIDE,
        baseURL: server.url,
        locale: 'en-US',
        storageState: await context.storageState(),
      });
      try {
        const tab = await idle.newPage();
        tab.setDefaultTimeout(15_000);
        // The page's time when it asks for the delivery log, each time (fetch still does the asking).
        await tab.addInitScript(`{
          window.logAskedAt = [];
          const fetchAnswer = window.fetch;
          window.fetch = function (input, init) {
            if (${DELIVERY_LOG}.test(input instanceof Request ? input.url : String(input))) window.logAskedAt.push(Date.now());
            return fetchAnswer.call(this, input, init);
          };
        }`);
        const start = Date.now();
        await tab.clock.install({ time: start });
        await tab.goto(pollingPage);
        await tab.locator('tr[data-status="failed"]').nth(1).waitFor();
        // From here the page's time moves only as the test moves it.
        const pausedAt = Date.now() + 2_000;
        await tab.clock.pauseAt(pausedAt);
        const askedAt = () => tab.evaluate<number[]>('window.logAskedAt');
        const shownAt = (await askedAt())[0] ?? start;
        /** Moves the page's clock on by `seconds`, a second at a time, so each refresh is sent. */
        async function wait(seconds: number): Promise<void> {
          for (let i = 0; i < seconds; i += 1) await tab.clock.runFor(1_000);
        }
        /** The gaps, in the page's seconds, between the log's loads from `from` until `until`. */
        async function gapsBetween(from: number, until = Infinity): Promise<number[]> {
          const times = (await askedAt()).filter((t) => t >= from && t <= until);
          return times.slice(1).map((t, i) => Math.round((t - (times[i] ?? t)) / 1000));
        }

        // In use for its first minute: the log is asked for every 2 seconds.
        await wait(60);
        const busy = await gapsBetween(pausedAt, shownAt + 58_000);
        assert.ok(busy.length >= 25, `refreshed ${busy.length + 1} times in its first minute`);
        assert.ok(
          busy.every((gap) => gap <= 3),
          `every 2 seconds: ${busy.join(', ')}`,
        );

        // Then left alone for 4 minutes: each wait doubles, up to a minute.
        const idleFrom = shownAt + 61_000;
        await wait(240);
        const backedOff = await gapsBetween(idleFrom);
        assert.ok(backedOff.length <= 8, `left alone, refreshed ${backedOff.length + 1} times in 4 minutes`);
        assert.ok(
          backedOff.every((gap, i) => i === 0 || gap >= (backedOff[i - 1] ?? 0)),
          `the waits grow: ${backedOff.join(', ')}`,
        );
        assert.equal(backedOff.at(-1), 60, `up to a minute: ${backedOff.join(', ')}`);

        // Input on the page: refreshed at once, and every 2 seconds again.
        const touchedAt = (await askedAt()).length;
        await tab.mouse.move(200, 300);
        await tab.mouse.move(220, 320);
        await wait(10);
        assert.ok((await askedAt()).length - touchedAt >= 4, 'every 2 seconds after input');

        // A 429 holds every refresh for its Retry-After (2 minutes), the page showing what it had.
        await tab.route(DELIVERY_LOG_ROUTE, (route) =>
          route.fulfill({
            status: 429,
            contentType: 'application/problem+json',
            headers: { 'retry-after': '120' },
            body: JSON.stringify({ code: 'rate_limited', detail: 'Too many requests.' }),
          }),
        );
        const refused = tab.waitForResponse((res) => DELIVERY_LOG.test(res.url()) && res.status() === 429);
        await tab.clock.runFor(2_000);
        await refused;
        await tab.getByRole('alert').filter({ hasText: 'Couldn’t refresh' }).waitFor();
        const heldFrom = (await askedAt()).length;
        await tab.mouse.move(240, 340);
        await wait(110);
        assert.equal((await askedAt()).length, heldFrom, 'nothing asked for before the Retry-After');
        await tab.unroute(DELIVERY_LOG_ROUTE);
        await wait(15);
        assert.ok((await askedAt()).length > heldFrom, 'asked again once the wait is over');
        assert.equal(await tab.locator('tr[data-status="failed"]').count(), 2);
      } finally {
        await idle.close();
      }
    });

    it('breaks a long webhook URL in the delivery log and its dialog, on a phone and a laptop', async () => {
      // One long token, like a chat service's hook URL: nothing to break it at but anywhere.
      const hookPath =
        '/api/webhooks/1187741234567890123/Xq7LrVb2kP9sN4tYw8ZcH3mJ6fD1gR5uE0aQiOoTlKjBnMvCxW_yzA-pq1rs2tu3vw4xy';
      await nav('Webhooks');
      await page.getByRole('button', { name: 'Add endpoint' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
      await dialog.getByLabel('Endpoint URL').fill(`${healthy.url}${hookPath}`);
      await dialog.getByRole('checkbox', { name: 'order.created' }).check();
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await page
        .getByRole('dialog', { name: 'Endpoint added' })
        .getByRole('button', { name: 'View endpoint' })
        .click();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      longUrlPage = new URL(page.url()).pathname;
      await page.getByRole('button', { name: 'Send test event' }).click();
      const row = page.locator('tr[data-status="succeeded"]', { hasText: 'webhook.test' });
      await row.waitFor();
      assert.equal(
        await row
          .locator('td[data-label="Endpoint"]')
          .innerText()
          .then((t) => t.replace(/\s/g, '')),
        hookPath,
      );

      for (const viewport of [NARROW, WIDE]) {
        await page.setViewportSize(viewport);
        const overflow = await inPage<number>('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(
          overflow <= 0,
          `the endpoint page scrolls sideways by ${overflow}px at ${viewport.width}px`,
        );
        // Every column of the log is in view: the Retry button is not scrolled off to the side.
        const wrapOverflow = await inPage<number>(
          "(w => w.scrollWidth - w.clientWidth)(document.querySelector('.table-log').parentElement)",
        );
        assert.ok(wrapOverflow <= 0, `the log scrolls sideways by ${wrapOverflow}px at ${viewport.width}px`);
        const retry = row.getByRole('button', { name: /^Retry/ });
        await retry.scrollIntoViewIfNeeded();
        const retryBox = await retry.boundingBox();
        assert.ok(
          retryBox && retryBox.x >= 0 && retryBox.x + retryBox.width <= viewport.width,
          `Retry is in view at ${viewport.width}px`,
        );

        await row.getByRole('button', { name: 'webhook.test, attempt 1: details' }).click();
        const details = page.getByRole('dialog', { name: 'webhook.test · attempt 1' });
        await details.getByLabel('Event payload').waitFor();
        const box = await details.boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, 'the dialog fits the screen');
        const inside = await inPage<number>(
          "(d => d.scrollWidth - d.clientWidth)(document.querySelector('dialog[open]'))",
        );
        assert.ok(inside <= 0, `the dialog scrolls sideways by ${inside}px at ${viewport.width}px`);
        if (viewport === NARROW) await screenshots('webhook-long-url');
        await page.keyboard.press('Escape');
        await details.waitFor({ state: 'detached' });
      }
    });

    it("edits an endpoint's description and events, and pages back through all of its attempts", async () => {
      assert.equal(new URL(page.url()).pathname, longUrlPage);
      const id = longUrlPage.split('/').pop() ?? '';
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
      assert.match(
        await edit.getByLabel('Endpoint URL').inputValue(),
        /\/api\/webhooks\/1187741234567890123\//,
      );
      assert.equal(await edit.getByRole('checkbox', { name: 'order.created' }).isChecked(), true);
      await edit.getByLabel('Description').fill('Chat alerts');
      await edit.getByRole('checkbox', { name: 'order.shipped' }).check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      await page.getByText('Endpoint updated.').waitFor();
      await page.locator('.page-description', { hasText: 'Chat alerts' }).waitFor();
      await page.locator('.details').getByText('order.shipped', { exact: true }).waitFor();
      const saved = await page.evaluate(async (webhook) => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        const res = await fetch(`/v1/webhooks/${webhook}`, {
          headers: { 'x-csrf-token': session.csrf_token },
        });
        return (await res.json()) as { description: string; events: string[] };
      }, id);
      assert.equal(saved.description, 'Chat alerts');
      assert.deepEqual([...saved.events].sort(), ['order.created', 'order.shipped']);

      // More attempts than the 100 the log once stopped at: the older ones come a page at a time,
      // with the cursor of the page before, until there are no more.
      const sent = await page.evaluate(async (webhook) => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        let accepted = 0;
        for (let i = 0; i < 105; i++) {
          const res = await fetch(`/v1/webhooks/${webhook}/test`, {
            method: 'POST',
            headers: { 'x-csrf-token': session.csrf_token, 'content-type': 'application/json' },
            body: '{}',
          });
          if (res.status === 202) accepted += 1;
        }
        return accepted;
      }, id);
      assert.equal(sent, 105);
      await page.getByText('106 attempts · refreshes automatically', { exact: true }).waitFor();
      const rows = page.locator('.table-log tbody tr');
      assert.equal(await rows.count(), 25, 'the latest page');
      const older = page.getByRole('button', { name: 'Show older attempts' });
      for (let shown = 25; shown < 106; shown = Math.min(106, shown + 25)) {
        await older.click();
        const expected = Math.min(106, shown + 25);
        await eventually(
          async () => (await rows.count()) === expected || undefined,
          15_000,
          `${expected} rows`,
        );
      }
      assert.equal(await older.count(), 0, 'no more to show');
      const distinct = await inPage<number>(
        "new Set([...document.querySelectorAll('.table-log tbody tr')].map((row) => row.dataset.deliveryId)).size",
      );
      assert.equal(distinct, 106, 'each attempt once');
    });

    it('says a webhook deleted elsewhere is gone, instead of showing it as live', async () => {
      assert.equal(new URL(page.url()).pathname, longUrlPage);
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      const id = longUrlPage.split('/').pop() ?? '';
      // Deleted meanwhile, as from another tab: the page's next refresh finds it gone.
      const status = await page.evaluate(async (webhook) => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        const res = await fetch(`/v1/webhooks/${webhook}`, {
          method: 'DELETE',
          headers: { 'x-csrf-token': session.csrf_token },
        });
        return res.status;
      }, id);
      assert.equal(status, 204);
      await page.getByRole('heading', { level: 1, name: 'Webhook not found' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send test event' }).count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Delivery log' }).count(), 0);
      assert.equal(await page.getByText('Couldn’t refresh').count(), 0, 'gone, not out of date');
    });

    it("adds an endpoint in the store's pinned version by default, or in the version chosen", async () => {
      const account = await page.evaluate(async () => {
        const res = await fetch('/console/api/session');
        return (await res.json()) as { tenant: { id: string; api_version: string } };
      });
      // A store pinned to the version before the latest (2026-11-21, before 2026-12-15's variants):
      // the console itself reads the latest, and an endpoint must not get it unless chosen.
      const all = server.deps.versions.list();
      const latest = server.deps.versions.latest;
      const pinned = all[all.length - 2];
      assert.ok(pinned, 'an older version to pin the store to');
      await server.deps.tenants.setApiVersion(account.tenant.id, pinned.version);
      try {
        /** Clicks Add endpoint; once answered, the version and the key the form's POST carried. */
        async function submit(
          dialog: ReturnType<Page['locator']>,
        ): Promise<{ version: string; key: string }> {
          const sending = page.waitForRequest(
            (r) => r.method() === 'POST' && r.url().endsWith('/v1/webhooks'),
          );
          await dialog.getByRole('button', { name: 'Add endpoint' }).click();
          const request = await sending;
          await request.response();
          const headers = request.headers();
          return { version: headers['x-service-version'] ?? '', key: headers['idempotency-key'] ?? '' };
        }

        /**
         * Adds an endpoint from the form, in `choice` or the default; with `failFirst`, after two
         * attempts in the default the API answers 503 (settling nothing). Its id, and what was sent.
         */
        async function addEndpoint(
          hookPath: string,
          { choice, failFirst = false }: { choice?: string; failFirst?: boolean } = {},
        ) {
          await nav('Webhooks');
          await page.getByRole('button', { name: 'Add endpoint' }).first().click();
          const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
          await dialog.getByLabel('Endpoint URL').fill(`${healthy.url}${hookPath}`);
          await dialog.getByRole('checkbox', { name: 'product.outofstock' }).check();
          const version = dialog.getByLabel('Payload version');
          // The store's version is chosen once the versions are in.
          assert.equal(
            await settled(
              () => version.inputValue(),
              (value) => value === pinned.version,
            ),
            pinned.version,
          );
          // Every version, newest first, named by its release; the latest and the store's are said.
          assert.deepEqual(
            await version.locator('option').allInnerTexts(),
            [...all].reverse().map((v) => {
              const notes = [v.release];
              if (v.version === latest.version) notes.push('latest');
              if (v.version === pinned.version) notes.push('your store’s version');
              return `${v.version} (${notes.join(', ')})`;
            }),
          );
          const hint = await version.getAttribute('aria-describedby');
          assert.equal(
            await dialog.locator(`[id="${hint}"]`).innerText(),
            'Payloads are rendered in this version for the life of the endpoint.',
          );
          const failed: { version: string; key: string }[] = [];
          if (failFirst) {
            await page.route('**/v1/webhooks', (route) =>
              route.request().method() === 'POST'
                ? route.fulfill({
                    status: 503,
                    contentType: 'application/problem+json',
                    body: JSON.stringify({ code: 'unavailable', detail: 'The API is unavailable.' }),
                  })
                : route.fallback(),
            );
            for (let attempt = 0; attempt < 2; attempt++) {
              failed.push(await submit(dialog));
              await dialog.getByRole('alert').getByText('The API is unavailable.').waitFor();
            }
            await page.unroute('**/v1/webhooks');
          }
          if (choice !== undefined) await version.selectOption(choice);
          const sent = await submit(dialog);
          await page
            .getByRole('dialog', { name: 'Endpoint added' })
            .getByRole('button', { name: 'View endpoint' })
            .click();
          await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
          return { id: new URL(page.url()).pathname.split('/').pop() ?? '', sent, failed };
        }

        /** The endpoint's payload version, as its page shows it and as the API answers it. */
        async function payloadVersion(id: string): Promise<{ shown: string; stored: string }> {
          const shown = await page
            .locator('.details-grid > div', { has: page.getByText('Payload version', { exact: true }) })
            .locator('dd')
            .innerText();
          const stored = await page.evaluate(async (webhook) => {
            const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
            const res = await fetch(`/v1/webhooks/${webhook}`, {
              headers: { 'x-csrf-token': session.csrf_token },
            });
            return ((await res.json()) as { api_version: string }).api_version;
          }, id);
          return { shown, stored };
        }

        const byDefault = await addEndpoint('/hooks/pinned');
        assert.equal(
          byDefault.sent.version,
          pinned.version,
          'sent in the store’s version, not the console’s',
        );
        assert.deepEqual(await payloadVersion(byDefault.id), {
          shown: pinned.version,
          stored: pinned.version,
        });

        const chosen = await addEndpoint('/hooks/latest', { choice: latest.version, failFirst: true });
        assert.equal(chosen.sent.version, latest.version);
        // The same body again in the same version is that submission's retry, with its key; in
        // another version it is another submission (the API would answer the first one's endpoint).
        assert.deepEqual(
          chosen.failed.map((attempt) => attempt.version),
          [pinned.version, pinned.version],
        );
        assert.equal(chosen.failed[1]?.key, chosen.failed[0]?.key);
        assert.notEqual(chosen.sent.key, chosen.failed[0]?.key);
        assert.deepEqual(await payloadVersion(chosen.id), { shown: latest.version, stored: latest.version });

        // Gone again, so the endpoints the rest of the story counts on are the only ones.
        const deleted = await page.evaluate(
          async (webhooks) => {
            const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
            const statuses: number[] = [];
            for (const webhook of webhooks) {
              const res = await fetch(`/v1/webhooks/${webhook}`, {
                method: 'DELETE',
                headers: { 'x-csrf-token': session.csrf_token },
              });
              statuses.push(res.status);
            }
            return statuses;
          },
          [byDefault.id, chosen.id],
        );
        assert.deepEqual(deleted, [204, 204]);
      } finally {
        await server.deps.tenants.setApiVersion(account.tenant.id, account.tenant.api_version);
      }
    });

    it('installs and rates a plugin from the marketplace', async () => {
      await nav('Plugins');
      await page.locator('[data-plugin]').first().waitFor();
      assert.equal(await page.locator('[data-plugin]').count(), 2, 'the two first-party plugins');
      await screenshots('plugins');
      await page.getByLabel('Search').fill('sold');
      await page.getByLabel('Category').selectOption('inventory');
      const card = page.locator('[data-plugin="sold-out-hider"]');
      await card.waitFor();
      await page.getByText('1 plugin', { exact: true }).waitFor();
      const installs = async () =>
        Number((await card.getByTestId('installs').innerText()).replace(/\D/g, ''));
      const before = await installs();

      // What installing grants, in words and exactly: what it can read and change, what it receives;
      // Install asks first, listing them all; Cancel installs nothing.
      const grants = card.locator('.plugin-grants');
      for (const granted of ['read:products', 'write:products', 'product.outofstock', 'product.updated']) {
        await grants.getByText(granted, { exact: true }).waitFor();
      }
      const install = card.getByRole('button', { name: 'Install Sold-out hider', exact: true });
      const consent = page.getByRole('dialog', { name: 'Install Sold-out hider?' });
      await install.click();
      await consent.waitFor();
      for (const granted of ['read:products', 'write:products', 'product.outofstock', 'product.updated']) {
        assert.equal(await consent.getByText(granted, { exact: true }).count(), 1, `${granted} is listed`);
      }
      await consent.getByText('Can read').waitFor();
      await consent.getByText('Can change').waitFor();
      await consent.getByRole('button', { name: 'Cancel' }).click();
      await consent.waitFor({ state: 'detached' });
      assert.equal(await card.getByText('Installed').count(), 0);
      assert.equal(await installs(), before);
      await install.click();
      await consent.getByRole('button', { name: 'Install', exact: true }).click();
      await card.getByText('Installed').waitFor();
      assert.equal(await installs(), before + 1);
      // A click on a star only picks it: nothing is sent until Save; Cancel forgets the pick.
      const star = (n: number) =>
        `document.querySelector('[data-plugin="sold-out-hider"] button[aria-label$=" ${n} star${n === 1 ? '' : 's'}"]')`;
      assert.ok((await contrastOnWhite(star(4))) >= 3, 'an unset star');
      await card.getByRole('button', { name: 'Rate Sold-out hider 2 stars' }).click();
      await card.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await card.getByText('Your rating: 2').count(), 0);
      assert.match(await card.getByTestId('rating').innerText(), /No ratings/);
      await card.getByRole('button', { name: 'Rate Sold-out hider 4 stars' }).click();
      await card.getByText('Your rating: 4').waitFor();
      assert.match(await card.getByTestId('rating').innerText(), /No ratings/);
      await card.getByRole('button', { name: 'Save 4 stars' }).click();
      await page.getByText('You rated Sold-out hider 4 stars.').waitFor();
      await page.mouse.move(0, 0);
      assert.ok((await contrastOnWhite(star(4))) >= 3, 'a set star');
      assert.ok((await contrastOnWhite(star(5))) >= 3, 'an unset star beside set ones');
      assert.match(await card.getByTestId('rating').innerText(), /^\D*\d\.\d/);
      // The saved rating is the store's own, shown again after a reload.
      await page.reload();
      await page.locator('[data-plugin="sold-out-hider"]').getByText('Your rating: 4').waitFor();
      await screenshots('plugins-search');
      // Uninstall on the card asks first too; Cancel keeps it installed.
      await card.getByRole('button', { name: 'Uninstall Sold-out hider', exact: true }).click();
      const leaving = page.getByRole('dialog', { name: 'Uninstall Sold-out hider?' });
      await leaving.getByText('Its access token stops working at once').waitFor();
      await leaving.getByRole('button', { name: 'Cancel' }).click();
      await leaving.waitFor({ state: 'detached' });
      assert.equal(await card.getByText('Installed').count(), 1);

      // Installed: its access, its calls, and Uninstall behind a confirmation.
      await page.getByRole('link', { name: 'Installed' }).click();
      const installed = page.locator('[data-plugin="sold-out-hider"]');
      await installed.getByText('Can change').waitFor();
      await installed.getByTestId('app-calls').waitFor();
      await screenshots('plugins-installed');
      await installed.getByRole('button', { name: 'Uninstall Sold-out hider' }).click();
      const sure = page.getByRole('dialog', { name: 'Uninstall Sold-out hider?' });
      await sure.getByRole('button', { name: 'Uninstall', exact: true }).click();
      await page.getByText('No plugins installed').waitFor();

      // Your plugins: create a draft (its secret shown once), then submit it.
      await page.getByRole('link', { name: 'Your plugins' }).click();
      await page.getByRole('button', { name: 'New plugin' }).click();
      const form = page.getByRole('dialog', { name: 'New plugin' });
      await form.getByLabel('Name').fill('Shelf Labels');
      await form.getByLabel('Slug').fill(`shelf-labels-${Date.now()}`);
      await form.getByLabel('Description', { exact: true }).fill('Prints shelf labels for new products.');
      await form.getByLabel('Webhook URL').fill('http://127.0.0.1:9/hooks');
      await form.getByLabel('read:products').check();
      await form.getByLabel('product.created').check();
      await form.getByRole('button', { name: 'Create draft' }).click();
      const secret = page.getByRole('dialog', { name: 'Shelf Labels is a draft' });
      assert.match(await secret.getByLabel('Signing secret').inputValue(), /^whsec_/);
      await secret.getByRole('button', { name: 'Done' }).click();
      const mine = page.locator('[data-plugin^="shelf-labels-"]');
      await mine.getByText('Draft').waitFor();
      await mine.getByRole('button', { name: 'Submit for review' }).click();
      await mine.getByText('In review').waitFor();
      await screenshots('plugins-publisher');
    });

    it('lists API calls on the Logs page, filters them, and opens one with its bodies and changes', async () => {
      const card = '4111 1111 1111 1111';
      const made = await callApi<{ id: string }>('POST', '/v1/products', {
        name: 'Logged mug',
        price: 1200,
        description: `paid with ${card}`,
      });
      assert.equal(made.status, 201);
      const refused = await callApi('POST', '/v1/products', { name: '', price: -1 });
      assert.equal(refused.status, 400);
      await nav('Logs');
      // Written off the answer's path every second: both appear within the promised 10 seconds.
      const rows = page.locator('.request-row');
      await eventually(
        async () => (await rows.filter({ hasText: 'POST /v1/products' }).count()) >= 2 || undefined,
        10_000,
        'both calls in the request log',
      );
      assert.ok(!(await page.content()).includes(card), 'no card number on the page');
      await page.getByLabel('Status').selectOption('4xx');
      await eventually(
        async () =>
          ((await rows.count()) > 0 &&
            (await rows.allInnerTexts()).every((text) => /\b4\d\d\b/.test(text))) ||
          undefined,
        10_000,
        'only 4xx rows',
      );
      await rows.filter({ hasText: 'POST /v1/products' }).first().getByRole('button').click();
      const details = page.locator('.request-details');
      await details.getByText('validation_failed').first().waitFor();
      await details.getByText('This request changed nothing.').waitFor();
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page
        .locator(`.request-row[data-request-id]`)
        .filter({ hasText: '201' })
        .filter({ hasText: 'POST /v1/products' })
        .first()
        .getByRole('button')
        .click();
      await details.getByRole('heading', { name: 'Audit entries' }).waitFor();
      await details.locator('.audit-row').filter({ hasText: 'product.created' }).first().waitFor();
      await details.getByRole('link', { name: 'product.created' }).waitFor();
      const responseBody = await details.locator('pre[aria-label="Response body"]').innerText();
      assert.match(responseBody, new RegExp(made.body.id));
      const requestBody = await details.locator('pre[aria-label="Request body"]').innerText();
      assert.match(requestBody, /paid with \[redacted\]/);
      await screenshots('logs');
      // The product's page shows its history.
      await page.goto(`${server.url}/console/products/${made.body.id}`);
      const history = page.locator('.audit-row');
      await history.filter({ hasText: 'product.created' }).first().waitFor();
      assert.match(await history.first().innerText(), /api key/);
    });

    it('counts the calls just made on the usage page, the console’s own included', async () => {
      const made = apiCalls;
      await nav('Usage');
      const total = page.getByTestId('total-calls');
      // The console calls /v1 too, and those calls count like any other.
      await eventually(
        async () => Number((await total.innerText()).replace(/\D/g, '')) > made || undefined,
        15_000,
        `more than the ${made} calls made with keys`,
      );
      await page.locator('.recharts-bar-rectangle').first().waitFor();
      // The busiest endpoint is the console's own: the 105 test events sent through /v1 above.
      const top = await page.locator('.bar-item').first().innerText();
      assert.match(top, /POST \/webhooks\/\{id\}\/test/);
      assert.ok(Number(/(\d+)\s+calls/.exec(top)?.[1]) >= 105, top);
      await page.getByText('Monthly quota used').first().waitFor();
      // Live and test calls side by side; only live's count against the quota.
      const byMode = page.getByTestId('usage-by-mode');
      await byMode.waitFor();
      assert.match(await byMode.locator('tbody tr').first().innerText(), /^Live\s+[\d,]+\s[\s\S]*Counts$/);
      assert.match(await byMode.locator('tbody tr').nth(1).innerText(), /^Test\s/);
      // The legend's labels are text: 4.5:1 on the white card.
      for (const series of ['Successful', 'Errors']) {
        const label = `[...document.querySelectorAll('.recharts-legend-item-text')].find((e) => e.textContent === '${series}')`;
        assert.ok((await contrastOnWhite(label)) >= 4.5, `the legend's "${series}"`);
      }
      await screenshots('usage');
      // Every day is labelled where there is room; on a phone, only as many as fit side by side.
      await page.getByLabel('Period').selectOption({ label: 'Last 7 days' });
      await page.getByRole('heading', { name: 'Daily calls, last 7 days' }).waitFor();
      const labels = page.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
      assert.equal(
        await settled(
          () => labels.count(),
          (n) => n === 7,
        ),
        7,
      );
      await page.setViewportSize(NARROW);
      const chart = page.locator('.chart .recharts-wrapper');
      await eventually(
        async () => ((await chart.boundingBox())?.width ?? NARROW.width) < NARROW.width - 40 || undefined,
        15_000,
        'the chart to fit the narrow screen',
      );
      // The labels are placed again for the new width (all read at once, as one render drew them).
      const overlaps = await settled(
        async () => {
          const boxes = await inPage<{ left: number; right: number }[]>(
            "[...document.querySelectorAll('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')].map((label) => label.getBoundingClientRect()).filter((box) => box.width > 0).map((box) => ({ left: box.left, right: box.right }))",
          );
          boxes.sort((a, b) => a.left - b.left);
          return boxes.flatMap((right, i) => {
            const left = boxes[i - 1];
            return left && left.right > right.left ? [`day labels ${i} and ${i + 1} overlap`] : [];
          });
        },
        (found) => found.length === 0,
      );
      assert.deepEqual(overlaps, []);
      await page.setViewportSize(WIDE);
    });

    it('warns from 80% of the quota and announces a newer API version with an upgrade', async () => {
      const account = await page.evaluate(async () => {
        const res = await fetch('/console/api/session');
        return (await res.json()) as { tenant: { id: string } };
      });
      const oldest = server.deps.versions.list()[0];
      assert.ok(oldest);
      await server.deps.tenants.setApiVersion(account.tenant.id, oldest.version);
      // The calls made so far (the console's included) are 85% of this quota; the console's calls
      // until the page asks add a few percent.
      const used = await page.evaluate(async () => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        const res = await fetch('/v1/usage', { headers: { 'x-csrf-token': session.csrf_token } });
        return ((await res.json()) as { quota: { used: number } }).quota.used;
      });
      const custom = Math.ceil((used * 100) / 85);
      await server.deps.tenants.setLimits(account.tenant.id, { monthly: custom });

      await nav('Overview');
      const warning = page.getByText(/^You have used \d+% of your monthly quota$/);
      const percent = Number(/\d+/.exec(await warning.innerText())?.[0]);
      assert.ok(percent >= 85 && percent < 100, `${percent}% used`);
      await page.getByRole('button', { name: 'Upgrade plan' }).waitFor();
      const latest = server.deps.versions.latest;
      await page.getByText(`API ${latest.release} is available`).waitFor();
      await screenshots('overview-banners');

      await page.getByRole('button', { name: `Upgrade to ${latest.release}` }).click();
      const confirm = page.getByRole('dialog', { name: `Upgrade to API ${latest.release}?` });
      // The changelog's `code` spans are set in code type, not shown with their backticks.
      const changelog = confirm.locator('.changelog');
      assert.ok((await changelog.locator('code').count()) > 0);
      assert.doesNotMatch(await changelog.innerText(), /`/);
      await confirm.getByRole('button', { name: `Upgrade to ${latest.release}` }).click();
      await page.getByText(`Upgraded to API ${latest.release}.`).waitFor();
      await page.getByText(`API ${latest.release} is available`).waitFor({ state: 'detached' });
      const versions = await callApi<{ pinned: string }>('GET', '/v1/versions');
      assert.equal(versions.body.pinned, latest.version);

      // The plans, the store's own quota and how the operator changes the plan, all from the server.
      await page.getByRole('button', { name: 'Upgrade plan' }).click();
      const plans = page.getByRole('dialog', { name: 'Plans and limits' });
      await plans.waitFor();
      await screenshots('overview-plans');
      /** The operator command as one line (it is shown one flag a line, continued with a backslash). */
      const command = async () =>
        (await plans.getByLabel('Operator command').innerText()).replace(/ \\\n\s+/g, ' ');
      for (const [name, limits] of Object.entries(PLAN_LIMITS)) {
        const card = plans.locator(`[data-plan="${name}"]`);
        const text = await card.innerText();
        assert.match(text, new RegExp(`${limits.monthly.toLocaleString('en')}\\s+calls a month`), name);
        assert.match(text, new RegExp(`${limits.hourly.toLocaleString('en')}\\s+calls an hour`), name);
      }
      assert.equal(await plans.locator('[aria-current="true"] h3').innerText(), 'Free');
      await plans
        .getByText(
          `Your store has limits of its own, set by the platform operator: ${custom.toLocaleString('en')} calls a month and ${PLAN_LIMITS.free.hourly.toLocaleString('en')} calls an hour.`,
        )
        .waitFor();
      assert.equal(await plans.getByLabel('Store ID').inputValue(), account.tenant.id);
      assert.equal(
        await command(),
        `npm run --silent admin -- tenant:set-limits --tenant ${account.tenant.id} --plan pro --hourly default --monthly default`,
      );
      await plans.getByRole('button', { name: 'Close' }).click();
      await plans.waitFor({ state: 'detached' });

      // The operator moves the store to Pro meanwhile: the dialog shows it when opened again.
      await server.deps.tenants.setLimits(account.tenant.id, { plan: 'pro', monthly: null });
      await page.getByRole('button', { name: 'Compare plans' }).click();
      await plans.getByText('You are on the Pro plan.').waitFor();
      assert.equal(await plans.locator('[aria-current="true"] h3').innerText(), 'Pro');
      assert.equal(await plans.getByText('Your store has limits of its own').count(), 0);
      assert.equal(
        await command(),
        `npm run --silent admin -- tenant:set-limits --tenant ${account.tenant.id} --plan enterprise`,
      );
      await page.keyboard.press('Escape');
      await page.getByText('Pro plan', { exact: true }).waitFor();
    });

    it("shows the console's own pages for mistyped addresses, and stops asking for a missing webhook", async () => {
      await page.goto('/console/keys/');
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      const unknown = await page.goto('/console/no-such-page');
      assert.equal(unknown?.status(), 404);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      await page.getByRole('link', { name: 'Go to the overview' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      // The same session in a context whose clock the test runs ahead (the others keep the real one).
      const timed = await browser.newContext({
        viewport: WIDE,
        baseURL: server.url,
        locale: 'en-US',
        storageState: await context.storageState(),
      });
      try {
        await timed.clock.install();
        const ahead = await timed.newPage();
        ahead.setDefaultTimeout(15_000);
        // An endpoint that is there is asked for again every 2 seconds...
        const shown = pollingPage.split('/').pop() ?? '';
        await ahead.goto(pollingPage);
        await ahead.getByRole('heading', { name: 'Delivery log' }).waitFor();
        const again = await requestsWhileTimeRuns(ahead, new RegExp(`/v1/webhooks/${shown}$`), 10_000);
        assert.ok(again.length >= 4, `an endpoint shown is asked for every 2 seconds: ${again.length} in 10`);
        // ...a missing one, once: its page stops refreshing it.
        let asked = 0;
        ahead.on('request', (request) => {
          if (request.url().endsWith('/v1/webhooks/wh_missing')) asked += 1;
        });
        await ahead.goto('/console/webhooks/wh_missing');
        await ahead.getByRole('heading', { level: 1, name: 'Webhook not found' }).waitFor();
        assert.equal(await ahead.title(), 'Webhook not found · Developer console');
        assert.ok(asked > 0);
        assert.deepEqual(
          await requestsWhileTimeRuns(ahead, /\/v1\/webhooks\/wh_missing$/, 10_000),
          [],
          'a missing webhook is not asked for again every 2 seconds',
        );
      } finally {
        await timed.close();
      }
    });

    it('logs out, and pages send a logged-out visitor to the login page and back', async () => {
      // Logging out is no expiry, even when a poll sent before it is answered 401 after it.
      await page.goto(pollingPage);
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      // Polls are held on their way until the logout is over: then answered (401).
      const held: BrowserRequest[] = [];
      let loggedOut = (): void => undefined;
      const logout = new Promise<void>((resolve) => (loggedOut = resolve));
      await page.route(DELIVERY_LOG_ROUTE, async (route) => {
        held.push(route.request());
        await logout;
        await route.continue();
      });
      await eventually(() => held.length > 0 || undefined, 15_000, 'a poll on its way');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/console\/login$/);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      loggedOut();
      // Every poll held over the logout has its answer (401), and the page has taken it in.
      for (const request of held) await (await request.response())?.finished();
      await painted();
      assert.equal(await page.getByText('Your session expired').count(), 0);
      assert.match(page.url(), /\/console\/login$/);
      await page.unroute(DELIVERY_LOG_ROUTE);
      await page.goto('/console/keys');
      await page.waitForURL(/\/console\/login\?next=%2Fkeys$/);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not my password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').getByText('The email or password is incorrect.').waitFor();
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      assert.match(page.url(), /\/console\/keys$/);
    });

    it('switches to test mode: a banner on every page, test data only, until switched off', async () => {
      await nav('API keys');
      const liveRow = page.getByRole('rowheader', { name: 'Storefront' }).first();
      await liveRow.waitFor();
      const banner = page.getByRole('status').filter({ hasText: 'You are viewing and changing test data' });
      assert.equal(await banner.count(), 0, 'no banner in live mode');
      await page.getByRole('switch', { name: 'Test mode' }).check();
      // The console loads again in test mode: the banner on every page, the live keys gone.
      await banner.waitFor();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await painted();
      assert.equal(await page.getByRole('rowheader', { name: 'Storefront' }).count(), 0);
      await nav('Products');
      await banner.waitFor();
      await nav('Overview');
      await banner.waitFor();
      await screenshots('test-mode');
      await page.getByRole('switch', { name: 'Test mode' }).uncheck();
      await nav('API keys');
      await page.getByRole('rowheader', { name: 'Storefront' }).first().waitFor();
      assert.equal(await banner.count(), 0);
    });

    it('ran without script errors or content-security-policy violations', () => {
      assert.deepEqual(problems, []);
    });
  });
}
