import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { DIALECTS, freshStore, type TestStore } from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { loadConfig } from '../../config.js';
import { PLAN_LIMITS } from '../../http/rate-limit.js';
import { type RunningServer, startServer } from '../../server.js';

/**
 * The developer console end to end: the built app served by the real server, driven in Debian's
 * Chromium through playwright-core. A person's path through it: sign up, make a key and call the
 * API with it, watch webhook deliveries (and a failing receiver turn its endpoint Degraded),
 * install and rate a plugin, and see the calls on the usage page. Every page is screenshotted at
 * 1280 and 390 pixels wide into test-artifacts/console/.
 */

const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ARTIFACTS = path.join(root, 'test-artifacts', 'console');
const skip = fs.existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) to run the console's browser tests`;

const WIDE = { width: 1280, height: 860 };
const NARROW = { width: 390, height: 844 };
const PASSWORD = 'a long enough password';

/** Builds the console into dist/console, as `npm run build` does, so the server serves this code. */
function buildConsole(): void {
  const result = spawnSync(
    path.join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
}

// Without Chromium the suite cannot run: the summary says so (one skipped test) instead of passing.
if (skip) it('developer console in Chromium', { skip }, () => undefined);

for (const dialect of skip ? [] : DIALECTS) {
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
    async function screenshots(name: string): Promise<void> {
      for (const viewport of [NARROW, WIDE]) {
        await page.setViewportSize(viewport);
        await page.waitForTimeout(150);
        const overflow = await inPage<number>('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${viewport.width}px`);
        await page.screenshot({
          path: path.join(ARTIFACTS, `${dialect}-${name}-${viewport.width}.png`),
          fullPage: true,
        });
      }
    }

    /** An expression evaluated in the page (as text: this file is type-checked without the DOM library). */
    function inPage<T>(expression: string): Promise<T> {
      return page.evaluate<T>(expression);
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
      await page.waitForTimeout(200);
      assert.equal(await dialog.isVisible(), true, 'the dialog stayed open');
      assert.equal(await dialog.getByRole('button', { name: 'Close', exact: true }).count(), 0);
    }

    async function nav(label: string): Promise<void> {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
      await page.getByRole('heading', { level: 1, name: label }).waitFor();
    }

    before(async () => {
      if (dialect === DIALECTS[0]) buildConsole();
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      store = await freshStore(dialect);
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
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
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
      await page.getByText('Store name must be 1 to 200 characters.').waitFor();
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
      await page.getByText('Total API calls').waitFor();
      const latency = page.locator('.stat', { hasText: 'Average response time' }).locator('.stat-value');
      assert.equal(await latency.innerText(), '—', 'no calls yet: no average');
      assert.equal(await page.getByText('Northwind Outfitters').first().isVisible(), true);

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
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const reveal = page.getByRole('dialog', { name: 'Your new API key' });
      await reveal.waitFor();
      apiKey = await reveal.getByRole('textbox').inputValue();
      assert.match(apiKey, /^sk_live_[0-9A-Za-z]{40}$/);
      // The toast shows above the dialog's backdrop, not under it.
      const toast = page.getByText('API key “Storefront” created.');
      await toast.waitFor();
      assert.equal(await onTop(toast), true, 'the toast is above the backdrop');
      await screenshots('api-keys-reveal');
      await tryToDismiss(reveal);
      await reveal.getByRole('button', { name: 'Copy' }).click();
      await reveal.getByRole('button', { name: 'Copied' }).waitFor();
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
      apiKey = await rolled.getByRole('textbox').inputValue();
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
      assert.match(cells[0] ?? '', /^\d{2}:\d{2}:\d{2}$/, 'time as HH:MM:SS');
      assert.equal(cells[1], 'order.created');
      assert.equal(cells[2], '/hooks/orders');
      assert.equal(cells[3], '200 OK');
      assert.match(cells[4] ?? '', /^\d+ ms$/);
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
      await page.route('**/console/api/webhooks/*/deliveries?*', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/problem+json',
          body: JSON.stringify({ code: 'service_unavailable', detail: 'The store is unreachable.' }),
        }),
      );
      // The log refreshes every 2 seconds: the next one fails.
      await warning.waitFor();
      const text = await warning.innerText();
      const shown = /showing data from (\d{2}):(\d{2}):(\d{2})/.exec(text);
      assert.ok(shown, text);
      const [, hh, mm, ss] = shown.map(Number);
      const age = (Date.now() - new Date().setHours(hh ?? 0, mm, ss, 0) + 86_400_000) % 86_400_000;
      assert.ok(age < 15_000, `the time of the last good load, not ${shown[0]}`);
      assert.match(text, /The store is unreachable\./);
      assert.equal(await rows.count(), 2, 'the old rows stay');
      await screenshots('webhook-stale');
      // A retry that fails again keeps saying so; once the server answers, the warning goes.
      await warning.getByRole('button', { name: 'Retry' }).click();
      await page.waitForTimeout(300);
      assert.equal(await warning.isVisible(), true);
      await page.unroute('**/console/api/webhooks/*/deliveries?*');
      await warning.getByRole('button', { name: 'Retry' }).click();
      await warning.waitFor({ state: 'detached' });
      assert.equal(await rows.count(), 2);
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

    it('installs and rates a plugin from the marketplace', async () => {
      await nav('Plugins');
      await page.locator('[data-plugin]').first().waitFor();
      assert.ok((await page.locator('[data-plugin]').count()) > 10);
      await screenshots('plugins');
      await page.getByLabel('Search').fill('slack');
      await page.getByLabel('Category').selectOption('notifications');
      const card = page.locator('[data-plugin="slack-order-notifications"]');
      await card.waitFor();
      await page.getByText('1 plugin', { exact: true }).waitFor();
      const installs = async () =>
        Number((await card.getByTestId('installs').innerText()).replace(/\D/g, ''));
      const before = await installs();
      assert.match(await card.getByTestId('rating').innerText(), /\d\.\d/);

      await card.getByRole('button', { name: 'Install Slack Order Notifications', exact: true }).click();
      await card.getByText('Installed').waitFor();
      assert.equal(await installs(), before + 1);
      await card.getByRole('button', { name: 'Rate Slack Order Notifications 4 stars' }).click();
      await card.getByText('Your rating: 4').waitFor();
      await page.getByText('You rated Slack Order Notifications 4 stars.').waitFor();
      assert.match(await card.getByTestId('rating').innerText(), /^\D*\d\.\d/);
      await screenshots('plugins-search');

      await card.getByRole('button', { name: 'Uninstall Slack Order Notifications' }).click();
      // exact: a role name matches by substring otherwise, and "Uninstall …" contains "install …".
      await card.getByRole('button', { name: 'Install Slack Order Notifications', exact: true }).waitFor();
      assert.equal(await installs(), before);
      await page.getByLabel('Search').fill('no plugin is called this');
      await page.getByText('No plugins match').waitFor();
    });

    it('counts the calls just made on the usage page', async () => {
      const made = apiCalls;
      await nav('Usage');
      const total = page.getByTestId('total-calls');
      await eventually(
        async () => (await total.innerText()) === String(made) || undefined,
        10_000,
        `${made} calls`,
      );
      await page.locator('.recharts-bar-rectangle').first().waitFor();
      const top = page.locator('.bar-item', { hasText: 'POST /products' });
      assert.match(await top.innerText(), /2\s+calls/);
      assert.match(await page.locator('.bar-item', { hasText: 'POST /orders' }).innerText(), /2\s+calls/);
      await page.getByText('Monthly quota used').first().waitFor();
      await screenshots('usage');
      // Every day is labelled where there is room; on a phone, only as many as fit side by side.
      const labels = page.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
      assert.equal(await labels.count(), 7);
      await page.setViewportSize(NARROW);
      const chart = page.locator('.chart .recharts-wrapper');
      await eventually(
        async () => ((await chart.boundingBox())?.width ?? NARROW.width) < NARROW.width - 40 || undefined,
        5_000,
        'the chart to fit the narrow screen',
      );
      const boxes: { left: number; right: number }[] = [];
      for (const label of await labels.all()) {
        const box = await label.boundingBox();
        if (box) boxes.push({ left: box.x, right: box.x + box.width });
      }
      boxes.sort((a, b) => a.left - b.left);
      for (let i = 1; i < boxes.length; i++) {
        const [left, right] = [boxes[i - 1], boxes[i]];
        assert.ok(left && right && left.right <= right.left, `day labels ${i} and ${i + 1} overlap`);
      }
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
      // The calls made so far are 87% of this quota.
      const custom = Math.ceil((apiCalls * 100) / 87);
      await server.deps.tenants.setLimits(account.tenant.id, { monthly: custom });
      const expected = Math.floor((apiCalls * 100) / custom);

      await nav('Overview');
      await page.getByText(`You have used ${expected}% of your monthly quota`).waitFor();
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

      let asked = 0;
      page.on('request', (request) => {
        if (request.url().endsWith('/console/api/webhooks/wh_missing')) asked += 1;
      });
      await page.goto('/console/webhooks/wh_missing');
      await page.getByRole('heading', { level: 1, name: 'Webhook not found' }).waitFor();
      assert.equal(await page.title(), 'Webhook not found · Developer console');
      const before = asked;
      assert.ok(before > 0);
      await page.waitForTimeout(4_500);
      assert.equal(asked, before, 'a missing webhook is not asked for again every 2 seconds');
    });

    it('logs out, and pages send a logged-out visitor to the login page and back', async () => {
      // Logging out is no expiry, even when a poll sent before it is answered 401 after it.
      await page.goto(pollingPage);
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      let held = 0;
      await page.route('**/console/api/webhooks/*/deliveries?*', async (route) => {
        held += 1;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.continue();
      });
      await eventually(() => held > 0 || undefined, 5_000, 'a poll on its way');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/console\/login$/);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await page.waitForTimeout(2_000);
      assert.equal(await page.getByText('Your session expired').count(), 0);
      await page.unroute('**/console/api/webhooks/*/deliveries?*');
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

    it('ran without script errors or content-security-policy violations', () => {
      assert.deepEqual(problems, []);
    });
  });
}
