import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  buildConsole,
  chromiumMissing,
  CONSOLE_ARTIFACTS,
  inPage,
  launchChromium,
  navigate,
  screenshotsAtBothWidths,
  settled,
  WIDE,
} from '../../../test/helpers/console-browser.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import type { Page as Envelope } from '../../../test/helpers/responses.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { loadConfig } from '../../config.js';
import type { DemoCredentials } from '../../demo.js';
import { type RunningServer, startServer } from '../../server.js';
import type { Analytics } from '../analytics/analytics.schemas.js';
import type { EventObject } from '../events/events.service.js';
import type { Usage } from '../usage/usage.schemas.js';
import type { DeliveryObject, WebhookObject } from '../webhooks/webhooks.presenter.js';

/**
 * The console as a store owner's first hour meets it, in Chromium against the real server over
 * HTTPS (its generated certificate), on the demo store: the overview shows the store (revenue and
 * orders per day, the wallets, recent orders, what needs attention), the Events page lists the
 * event log with filters and shows an event's payload and its deliveries with a retry, the
 * delivery log is in attempt order with one time format and compact rows on a phone, the usage
 * chart follows the period over the demo's usage history, the hourly limit is described truly, and
 * a new key comes with a curl line that works as pasted. Screenshots go to test-artifacts/console/.
 */

const run = promisify(execFile);
const PHONE = { width: 375, height: 812 };
/** "Nov 21, 14:03:27": the delivery log's one time format. */
const LOG_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}:\d{2}$/;

/** An attribute of every element a locator finds (the first `max`), in document order. */
function attributes(locator: Locator, name: string, max = 1_000_000): Promise<(string | null)[]> {
  return locator.evaluateAll(
    (elements, [attribute, most]) =>
      elements
        .slice(0, most)
        .map((element) =>
          (element as unknown as { getAttribute(n: string): string | null }).getAttribute(attribute),
        ),
    [name, max] as const,
  );
}

/** The rendered height of every element a locator finds, in CSS pixels. */
function heightsOf(locator: Locator): Promise<number[]> {
  return locator.evaluateAll((elements) =>
    elements.map(
      (element) =>
        (element as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect()
          .height,
    ),
  );
}

if (chromiumMissing) it('store console in Chromium', { skip: chromiumMissing }, () => undefined);

for (const dialect of chromiumMissing ? [] : LOGIC_ONLY) {
  describe(`store console in Chromium (${dialect})`, { timeout: 240_000 }, () => {
    let store: TestStore;
    let server: RunningServer;
    let demo: DemoCredentials;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let receiver: Receiver;
    let hook: WebhookObject;
    const problems: string[] = [];

    function screenshots(name: string): Promise<void> {
      return screenshotsAtBothWidths(page, name, path.join(CONSOLE_ARTIFACTS, `${dialect}-store-${name}`));
    }

    /** The API as the demo key sees it (in process: no certificate to trust). */
    async function callApi<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
      const res = await server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${demo.api_key}` },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json<T>();
    }

    before(async () => {
      buildConsole();
      fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
      store = await migratedStore(dialect);
      server = await startServer(
        loadConfig({
          ...store.env,
          PORT: '0',
          TLS: 'on',
          DEMO_DATA: 'on',
          WEBHOOK_RETRY_SCHEDULE: '3600',
        }),
      );
      assert.ok(server.demo, 'the demo store was made');
      assert.ok(server.url.startsWith('https://'));
      demo = server.demo;
      // A receiver that is down: the endpoint turns Degraded, a retry is queued an hour on.
      receiver = await startReceiver(() => ({ status: 503, body: 'down' }));
      browser = await launchChromium();
      context = await browser.newContext({
        viewport: WIDE,
        baseURL: server.url,
        locale: 'en-US',
        // The server's own self-signed certificate, as a person accepts it on first visit.
        ignoreHTTPSErrors: true,
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(`console error: ${message.text()}`);
        }
      });
    });

    after(async () => {
      await browser?.close();
      await receiver?.close();
      await server?.shutdown();
      await store?.drop();
      assert.deepEqual(problems, []);
    });

    it('opens on the store: sales chart, figures, wallets, recent orders and what needs attention', async () => {
      // An endpoint whose receiver is down, and an order it fails to get: Degraded.
      hook = await callApi<WebhookObject>('POST', '/v1/webhooks', {
        url: `${receiver.url}/hooks/erp`,
        events: ['*'],
        description: 'ERP',
      });
      const products = await callApi<Envelope<{ id: string }>>('GET', '/v1/products?in_stock=true&limit=1');
      await callApi('POST', '/v1/orders', {
        items: [{ product_id: products.data[0]?.id, quantity: 1 }],
        customer: { email: 'first-hour@example.com', name: 'First Hour' },
        payment_method: 'pm_card_visa',
      });
      await eventually(
        async () => (await callApi<WebhookObject>('GET', `/v1/webhooks/${hook.id}`)).status === 'Degraded',
        20_000,
        'the endpoint to turn Degraded',
      );

      await page.goto('/console/login');
      await page.getByLabel('Email').fill(demo.email);
      await page.getByLabel('Password').fill(demo.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      // The figures are the API's own, in the store's money.
      const analytics = await callApi<Analytics>('GET', '/v1/analytics?interval=day');
      const money = (minor: number) =>
        new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(minor / 100);
      await page
        .getByTestId('revenue')
        .getByText(money(analytics.summary.revenue), { exact: true })
        .waitFor();
      assert.ok(analytics.summary.revenue > 0 && analytics.summary.orders > 0, 'the demo sold something');
      assert.equal(
        await page.getByTestId('orders').innerText(),
        analytics.summary.orders.toLocaleString('en'),
      );
      // Revenue and orders per day, one bar per day with sales, as the chart library drew them.
      const chart = page.locator('.chart[data-days]');
      await chart.waitFor();
      assert.equal(await chart.getAttribute('data-days'), String(analytics.timeseries.length));
      const salesDays = analytics.timeseries.filter((day) => day.revenue > 0).length;
      assert.ok(salesDays > 10, `${salesDays} days with sales`);
      const bars = await settled(
        () => chart.locator('.recharts-bar-rectangle').count(),
        (n) => n >= salesDays,
      );
      assert.ok(bars >= salesDays, `${bars} bars for ${salesDays} days with sales`);
      await chart.locator('.recharts-line-curve').waitFor();

      // The wallet in each currency, as the API has it.
      const balance = await callApi<{ available: number }>('GET', '/v1/wallet/balance');
      const wallets = page.getByRole('list', { name: 'Wallet balance per currency' });
      await wallets.locator('li[data-currency="USD"]').getByText(money(balance.available)).waitFor();
      assert.equal(await wallets.locator('li').count(), 1);

      // The five latest orders, newest first: the one just placed on top.
      const latest = await callApi<Envelope<{ id: string }>>('GET', '/v1/orders?limit=5');
      const rows = page.locator('tr[data-order-id]');
      await rows.first().waitFor();
      assert.deepEqual(
        await attributes(rows, 'data-order-id'),
        latest.data.map((order) => order.id),
      );
      assert.match(await rows.first().innerText(), /First Hour/);

      // What needs attention: sold-out products (by name), paid orders to ship, the failing webhook.
      const attention = page.getByTestId('attention');
      const soldOut = await callApi<Envelope<{ name: string }>>('GET', '/v1/products?in_stock=false&limit=5');
      assert.ok(soldOut.total > 0, 'the demo has sold-out products');
      const soldOutItem = attention.locator('[data-attention="sold-out"]');
      await soldOutItem.waitFor();
      assert.match(await soldOutItem.innerText(), new RegExp(`^${soldOut.total} products? sold out:`));
      for (const product of soldOut.data)
        assert.match(await soldOutItem.innerText(), new RegExp(product.name));
      const toShip = await callApi<Envelope<unknown>>('GET', '/v1/orders?status=paid&limit=1');
      assert.match(
        await attention.locator('[data-attention="ship"]').innerText(),
        new RegExp(`^${toShip.total} paid orders? to ship`),
      );
      const degraded = attention.locator(`[data-attention="${hook.id}"]`);
      assert.match(await degraded.innerText(), /^Webhook degraded:/);
      await screenshots('overview');
      await degraded.getByRole('link', { name: hook.url }).click();
      await page.getByRole('heading', { level: 1, name: hook.url }).waitFor();
    });

    it('lists the delivery log by attempt time, in one time format, compact on a phone', async () => {
      // A test event too; then every event's first attempt has failed and its retry waits an hour.
      assert.equal(
        (await callApi<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`)).event,
        'webhook.test',
      );
      const api = await eventually(
        async () => {
          const list = await callApi<Envelope<DeliveryObject>>(
            'GET',
            `/v1/webhooks/${hook.id}/deliveries?limit=25`,
          );
          const settledLog =
            list.data.some((d) => d.event === 'webhook.test' && d.status === 'failed') &&
            list.data.every((d) => d.status !== 'pending' || d.attempt > 1);
          return settledLog ? list : undefined;
        },
        20_000,
        'every first attempt to fail',
      );
      const log = page.locator('tr[data-delivery-id]');
      const shown = await settled(
        () => attributes(log, 'data-delivery-id'),
        (ids) => ids.join() === api.data.map((d) => d.id).join(),
      );
      assert.deepEqual(
        shown,
        api.data.map((d) => d.id),
        'the page lists what the API lists, in its order',
      );
      // The API's order: by attempt time, queued attempts (due an hour on) first, newest first.
      const times = api.data.map((d) => Date.parse((d.time ?? d.next_retry_at) as string));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
      assert.equal(api.data[0]?.status, 'pending');

      // Every time in a row is in the one format: the attempt's, a queued one's due time, the next retry.
      for (const row of await log.all()) {
        for (const time of await row.locator('time').allInnerTexts()) assert.match(time, LOG_TIME);
      }
      const failed = page.locator('tr[data-status="failed"]').first();
      assert.match(await failed.locator('td[data-label="Time"]').innerText(), LOG_TIME);
      await failed.getByText(/^Next retry /).waitFor();
      const queued = page.locator('tr[data-status="pending"]').first();
      assert.match(
        await queued.locator('td[data-label="Time"]').innerText(),
        /^Queued · due [A-Z][a-z]{2} \d/,
      );

      // On a phone an attempt is a compact block, and still shows its event, response and Retry.
      await page.setViewportSize(PHONE);
      const heights = await settled(
        () => heightsOf(log),
        (list) => list.every((h) => h > 0 && h <= 110),
      );
      await page.screenshot({
        path: path.join(CONSOLE_ARTIFACTS, `${dialect}-store-delivery-log-375.png`),
        fullPage: true,
      });
      assert.ok(
        heights.every((h) => h <= 110),
        `attempt rows at ${PHONE.width}px are ${heights.map(Math.round).join(', ')} px high`,
      );
      const retry = failed.getByRole('button', { name: /^Retry/ });
      const box = await retry.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, 'Retry is in view');
      assert.ok(await failed.locator('td[data-label="Event"]').isVisible());
      assert.ok(await failed.locator('.response-error').isVisible());
      const overflow = await inPage<number>(page, 'document.documentElement.scrollWidth - window.innerWidth');
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await page.setViewportSize(WIDE);
    });

    it('shows the event log with filters, an event’s payload as delivered and its deliveries, with retry', async () => {
      await navigate(page, 'Events');
      const all = await callApi<Envelope<EventObject>>('GET', '/v1/events?limit=25');
      const rows = page.locator('tr[data-event-id]');
      await rows.first().waitFor();
      assert.deepEqual(
        await settled(
          () => attributes(rows, 'data-event-id', 5),
          (ids) => ids[0] === all.data[0]?.id,
        ),
        all.data.slice(0, 5).map((event) => event.id),
      );
      await page.getByText(`${all.total.toLocaleString('en')} events · newest first`).waitFor();

      // By type: only order.created, as many as the API counts.
      await page.getByLabel('Type').selectOption('order.created');
      const created = await callApi<Envelope<EventObject>>('GET', '/v1/events?type=order.created&limit=1');
      await page.getByText(`${created.total.toLocaleString('en')} events · newest first`).waitFor();
      const types = await rows.locator('td[data-label="Event"]').allInnerTexts();
      assert.ok(types.length > 0 && types.every((type) => type === 'order.created'), types.join());
      // By time: from tomorrow on there is nothing; the filters clear again.
      const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('en-CA');
      await page.getByLabel('From').fill(tomorrow);
      await page.getByText('No events match').waitFor();
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByLabel('Type').selectOption('order.created');

      // The newest order.created is the order the endpoint failed to get.
      const event = created.data[0] as EventObject;
      await page.getByRole('button', { name: `order.created ${event.id}: payload and deliveries` }).click();
      const details = page.locator(`section.event-details[data-event-id="${event.id}"]`);
      await details.waitFor();
      // The payload as the endpoint was sent it: in the endpoint's version, the bytes it received.
      const payload = details.getByLabel('Event payload');
      await payload.waitFor();
      const received = receiver.received.find((r) => r.headers['webhook-id'] === event.id);
      assert.ok(received, 'the receiver got the event');
      assert.deepEqual(JSON.parse(await payload.innerText()), JSON.parse(received.body));
      await details.getByText(`Payload version ${hook.api_version}`).waitFor();

      // Its deliveries to every endpoint: the failed attempt and the retry queued an hour on.
      const attempts = details.locator('tr[data-delivery-id]');
      await details.locator('tr[data-status="failed"]').waitFor();
      await details.locator('tr[data-status="pending"]').waitFor();
      assert.equal(await attempts.count(), 2);
      assert.match(
        await details.locator('tr[data-status="failed"] td[data-label="Endpoint"]').innerText(),
        /\/hooks\/erp$/,
      );
      await screenshots('events');

      // Retry now: a manual attempt is sent at once (moving the queued one up), and shows up.
      const before = receiver.received.filter((r) => r.headers['webhook-id'] === event.id).length;
      await details
        .locator('tr[data-status="failed"]')
        .getByRole('button', { name: /^Retry/ })
        .click();
      await page.getByText(/^Retrying order\.created to /).waitFor();
      await eventually(
        () =>
          receiver.received.filter((r) => r.headers['webhook-id'] === event.id).length > before || undefined,
        20_000,
        'the retried delivery',
      );
      await eventually(
        async () => (await details.locator('tr[data-status="failed"]').count()) === 2 || undefined,
        20_000,
        'the second failed attempt on the page',
      );
      const listed = await callApi<Envelope<DeliveryObject & { webhook_id: string }>>(
        'GET',
        `/v1/events/${event.id}/deliveries`,
      );
      assert.ok(listed.data.every((d) => d.webhook_id === hook.id));
      assert.deepEqual(
        await settled(
          () => attributes(attempts, 'data-delivery-id'),
          (ids) => ids.length === listed.data.length,
        ),
        listed.data.map((d) => d.id),
      );

      // The address keeps the filters and the event: a reload shows the same.
      await page.reload();
      await page.locator(`section.event-details[data-event-id="${event.id}"]`).waitFor();
      assert.equal(await page.getByLabel('Type').inputValue(), 'order.created');
    });

    it('charts usage day by day for the chosen period, from the demo’s history', async () => {
      await navigate(page, 'Usage');
      const chart = page.locator('.chart[data-days]');
      const usage = await callApi<Usage>('GET', '/v1/usage?period=month');
      await chart.waitFor();
      assert.equal(await chart.getAttribute('data-days'), String(usage.days.length));
      await page.getByRole('heading', { name: 'Daily calls, this month' }).waitFor();
      for (const [label, days] of [
        ['Last 30 days', 30],
        ['Last 7 days', 7],
      ] as const) {
        await page.getByLabel('Period').selectOption({ label });
        await page.getByRole('heading', { name: `Daily calls, ${label.toLowerCase()}` }).waitFor();
        assert.equal(
          await settled(
            () => chart.getAttribute('data-days'),
            (n) => n === String(days),
          ),
          String(days),
        );
        // The demo's history: a bar on every day of the period (today's are the calls just made).
        const bars = await settled(
          () => chart.locator('.recharts-bar-rectangle').count(),
          (n) => n >= days,
        );
        assert.ok(bars >= days, `${bars} bars for ${days} days`);
      }
      await screenshots('usage');
    });

    it('says the hourly limit truly when none of it is used', async () => {
      // The console's own calls count, so a store with none used is shown through its answer.
      await page.route('**/v1/usage?*', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as Usage;
        body.rate_limit.remaining = body.rate_limit.limit;
        await route.fulfill({ response, json: body });
      });
      await page.reload();
      const limit = page.getByTestId('hourly-limit');
      await limit.getByText('10,000 calls an hour, all of them available now').waitFor();
      assert.doesNotMatch(await limit.innerText(), /left|full again|by /);
      await page.unroute('**/v1/usage?*');
      await page.reload();
      assert.match(
        await settled(
          () => limit.innerText(),
          (text) => text.includes('left'),
        ),
        /^[\d,]+ of 10,000 left; calls come back continuously, all of them by /,
      );
    });

    it('gives a new key a curl line that works as pasted, and explains the certificate', async () => {
      await navigate(page, 'API keys');
      await page.getByRole('button', { name: 'Create key' }).first().click();
      const create = page.getByRole('dialog', { name: 'Create API key' });
      await create.getByLabel('Name').fill('Catalogue reader');
      await create.getByRole('checkbox', { name: 'read:products', exact: true }).check();
      await create.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByRole('dialog', { name: 'Your new API key' });
      await shown.waitFor();
      const key = await shown.getByLabel('Key “Catalogue reader”').inputValue();
      const line = await shown.getByLabel('Try it with curl').inputValue();
      assert.equal(
        line,
        `curl --cacert data/tls/cert.pem -H "Authorization: Bearer ${key}" "${server.url}/v1/products?limit=1"`,
      );
      const hint = await shown.getByTestId('certificate-hint').innerText();
      assert.match(hint, /self-signed/);
      assert.match(hint, /--cacert data\/tls\/cert\.pem/);
      assert.match(hint, /-k\b.*skip the check/);
      await screenshots('new-key');

      // Pasted in the server's folder (where data/ is), it answers with the catalogue.
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-curl-'));
      try {
        fs.symlinkSync(store.dataDir, path.join(folder, 'data'));
        // Asynchronously: the server answering it runs in this process.
        const { stdout } = await run('sh', ['-c', `${line} --silent --show-error --fail`], {
          cwd: folder,
          encoding: 'utf8',
        });
        const answer = JSON.parse(stdout) as Envelope<{ id: string }>;
        assert.equal(answer.data.length, 1);
        assert.match(answer.data[0]?.id ?? '', /^prod_/);
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
      await shown.getByRole('button', { name: 'Done' }).click();
    });
  });
}
