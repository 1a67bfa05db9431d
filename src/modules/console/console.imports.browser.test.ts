import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  buildConsole,
  chromiumMissing,
  CONSOLE_ARTIFACTS,
  inPage,
  launchChromium,
  navigate,
  requestsWhileTimeRuns,
  screenshotsAtBothWidths,
  settled,
  WIDE,
} from '../../../test/helpers/console-browser.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { loadConfig } from '../../config.js';
import type { DemoCredentials } from '../../demo.js';
import { type RunningServer, startServer } from '../../server.js';

/**
 * The console's Imports page end to end, in Chromium against the real server and its import
 * runner, on the demo store: a CSV with one bad row dropped on the page and checked (a dry run
 * that shows the error by line and column and writes nothing), then imported as it is with
 * "skip those rows" (progress to 100%, the counts, the products really in the store), the import
 * and the check in the list, and exports downloaded through the session. Screenshots at 1280 and
 * 390 pixels wide go to test-artifacts/console/ (neither width may scroll sideways).
 */

/** Sent as the import's `filename` (a name `filename*` must percent-encode: beyond ASCII, brackets). */
const FILE_NAME = 'catalog (spring €).csv';
/** Three products; line 3's price is not in minor units. */
const CATALOG = [
  'handle,name,sku,price,stock',
  'console-tee,Console Tee,CON-TEE,2500,10',
  'console-mug,Console Mug,CON-MUG,12.50,5',
  'console-cap,Console Cap,CON-CAP,1800,3',
  '',
].join('\n');

if (chromiumMissing) it('imports page in Chromium', { skip: chromiumMissing }, () => undefined);

for (const dialect of chromiumMissing ? [] : LOGIC_ONLY) {
  describe(`console imports page in Chromium (${dialect})`, { timeout: 180_000 }, () => {
    let store: TestStore;
    let server: RunningServer;
    let demo: DemoCredentials;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];
    /** The ids of the check and of the import, as the report shows them. */
    let checkId = '';
    let importId = '';

    function screenshots(name: string): Promise<void> {
      return screenshotsAtBothWidths(page, name, path.join(CONSOLE_ARTIFACTS, `${dialect}-${name}`));
    }

    async function callApi<T>(url: string): Promise<T> {
      const res = await fetch(`${server.url}${url}`, {
        headers: { authorization: `Bearer ${demo.api_key}` },
      });
      assert.equal(res.status, 200, url);
      return (await res.json()) as T;
    }

    const report = () => page.locator('section.import-report');
    const count = (name: string) => report().locator(`[data-count="${name}"] dd`);

    before(async () => {
      buildConsole();
      fs.mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
      store = await migratedStore(dialect);
      server = await startServer(loadConfig({ ...store.env, PORT: '0', DEMO_DATA: 'on' }));
      assert.ok(server.demo, 'the demo store was made');
      demo = server.demo;
      browser = await launchChromium();
      context = await browser.newContext({ viewport: WIDE, baseURL: server.url, locale: 'en-US' });
      // The pages' clock, which a test runs ahead to show a refresh has stopped (it flows as the
      // real one otherwise).
      await context.clock.install();
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
      await server?.shutdown();
      await store?.drop();
    });

    it('logs in to the demo store and opens the Imports page from the sidebar', async () => {
      await page.goto('/console/login');
      await page.getByLabel('Email').fill(demo.email);
      await page.getByLabel('Password').fill(demo.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await navigate(page, 'Imports');
      await page.getByText('No imports yet').waitFor();
      // A reload of the page's own address serves the console too.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Imports' }).waitFor();
      await page.getByRole('heading', { name: 'Exports' }).waitFor();
      await screenshots('imports-empty');
    });

    it('checks a dropped CSV as a dry run: the bad row by line and column, nothing written', async () => {
      // Nothing chosen: said under the field, and nothing sent.
      await page.getByRole('button', { name: 'Check file' }).click();
      await page.getByText('Choose a file to import.').waitFor();
      assert.equal(await page.getByLabel('File', { exact: true }).getAttribute('aria-invalid'), 'true');

      // Dropped on the field, as from a file manager.
      const transfer = await page.evaluateHandle(`(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([${JSON.stringify(CATALOG)}], ${JSON.stringify(FILE_NAME)}, { type: 'text/csv' }));
        return transfer;
      })()`);
      const dropzone = page.locator('.dropzone');
      await dropzone.dispatchEvent('dragenter', { dataTransfer: transfer });
      await dropzone.dispatchEvent('drop', { dataTransfer: transfer });
      await dropzone.getByText(`${FILE_NAME} · ${Buffer.byteLength(CATALOG)} bytes`).waitFor();
      assert.equal(
        await inPage<string>(page, "document.querySelector('input[type=file]').files[0].name"),
        FILE_NAME,
      );
      assert.equal(await page.getByLabel('Resource').inputValue(), 'products');
      assert.equal(await page.getByLabel('When a row has errors').inputValue(), 'abort');

      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/v1/imports?'));
      await page.getByRole('button', { name: 'Check file' }).click();
      const request = await sent;
      const query = new URL(request.url()).searchParams;
      assert.deepEqual(Object.fromEntries(query), {
        resource: 'products',
        mode: 'upsert',
        dry_run: 'true',
        on_error: 'abort',
      });
      // The file itself is the body (the report's rows and line numbers below say it arrived whole).
      assert.equal(request.headers()['content-type'], 'text/csv');
      assert.ok(request.headers()['idempotency-key'], 'sent idempotently, as every console POST');

      await report()
        .getByText(/^3 rows checked, 1 error\./)
        .waitFor();
      checkId = (await report().getAttribute('data-import-id')) ?? '';
      assert.match(checkId, /^imp_/);
      await report()
        .getByRole('heading', { name: `Check of ${FILE_NAME}` })
        .waitFor();
      assert.deepEqual(
        await Promise.all(
          ['created', 'updated', 'unchanged', 'errors'].map((name) => count(name).innerText()),
        ),
        ['2', '0', '0', '1'],
      );
      assert.equal(await report().locator('[data-count="created"] dt').innerText(), 'Would create');
      const bad = report().locator('tr[data-line="3"]');
      assert.deepEqual(await bad.locator('th, td').allInnerTexts(), [
        '3',
        'price',
        'must be a whole number, not "12.50"',
      ]);
      assert.equal(await report().locator('tbody tr').count(), 1, 'one error');
      // Fewer than 100 errors: all of them came with the check.
      assert.equal(
        await report()
          .getByRole('button', { name: /^Load more errors/ })
          .count(),
        0,
      );
      // A dry run writes nothing.
      const products = await callApi<{ data: unknown[] }>('/v1/products?q=Console');
      assert.equal(products.data.length, 0);
      await screenshots('imports-check');
    });

    it('imports the same file skipping the bad row, with progress to 100% and the counts', async () => {
      await page.getByLabel('When a row has errors').selectOption('skip');
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const confirm = page.getByRole('dialog', { name: `Import “${FILE_NAME}”?` });
      await confirm.waitFor();
      await confirm.getByText('Rows with errors are skipped; the others are imported.').waitFor();
      await confirm
        .getByText('The check of this file found: 2 to create, 0 to update, 0 unchanged, 1 error.')
        .waitFor();

      // The report asks for the import's progress until it ends.
      const polls: string[] = [];
      const watch = (r: { method(): string; url(): string }) => {
        if (r.method() === 'GET' && /\/v1\/imports\/imp_\w+$/.test(r.url())) polls.push(r.url());
      };
      page.on('request', watch);
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/v1/imports?'));
      await confirm.getByRole('button', { name: 'Import', exact: true }).click();
      const query = new URL((await sent).url()).searchParams;
      assert.equal(query.get('dry_run'), 'false');
      assert.equal(query.get('on_error'), 'skip');
      await confirm.waitFor({ state: 'detached' });

      const bar = report().getByRole('progressbar', { name: 'Import progress' });
      await report()
        .getByRole('heading', { name: `Import of ${FILE_NAME}` })
        .waitFor();
      importId = (await report().getAttribute('data-import-id')) ?? '';
      assert.match(importId, /^imp_/);
      assert.notEqual(importId, checkId);
      assert.equal(
        await settled(
          () => bar.getAttribute('aria-valuenow'),
          (value) => value === '100',
        ),
        '100',
      );
      assert.equal(await report().locator('.progress-label .numeric').innerText(), '3 of 3 rows · 100%');
      await report().getByText('Imported 3 rows, with 1 error: the rows with errors were skipped.').waitFor();
      assert.deepEqual(
        await Promise.all(
          ['created', 'updated', 'unchanged', 'errors'].map((name) => count(name).innerText()),
        ),
        ['2', '0', '0', '1'],
      );
      assert.equal(await report().locator('[data-count="created"] dt').innerText(), 'Created');
      await report().locator('tr[data-line="3"]').getByText('price').waitFor();
      page.off('request', watch);
      assert.ok(polls.length >= 1, 'the progress was asked for');
      assert.ok(
        polls.every((url) => url.endsWith(`/v1/imports/${importId}`)),
        'only this import was followed',
      );
      // Done: no more asking, however long the page stays.
      assert.deepEqual(
        await requestsWhileTimeRuns(page, /\/v1\/imports\/imp_\w+$/, 10_000),
        [],
        'no progress asked for once it finished',
      );

      // The two good rows are in the store; the bad one is not.
      const products = await callApi<{ data: { name: string }[] }>('/v1/products?q=Console&limit=10');
      assert.deepEqual(products.data.map((product) => product.name).sort(), ['Console Cap', 'Console Tee']);
      await screenshots('imports-done');
    });

    it('lists the import and the check, newest first, and shows a past report again', async () => {
      const rows = page.locator('table.table-imports tbody tr');
      await settled(
        async () => (await rows.first().getAttribute('data-import-id')) === importId,
        (found) => found,
      );
      assert.equal(await rows.count(), 2);
      const [newest, older] = [rows.nth(0), rows.nth(1)];
      assert.equal(await newest.getAttribute('data-import-id'), importId);
      assert.equal(await older.getAttribute('data-import-id'), checkId);
      const cells = async (row: typeof newest) =>
        Object.fromEntries(
          await Promise.all(
            (await row.locator('[data-label]').all()).map(async (cell) => [
              await cell.getAttribute('data-label'),
              await cell.innerText(),
            ]),
          ),
        ) as Record<string, string>;
      const imported = await cells(newest);
      assert.match(imported.Resource ?? '', /^Products\s+CSV$/);
      assert.match(imported.Mode ?? '', /^Create or update\s+skip rows with errors$/);
      assert.equal(imported.Run, 'Import');
      assert.equal(imported.Status, 'succeeded');
      assert.equal(imported.Rows, '3 / 3');
      assert.equal(imported.Result, 'created 2, updated 0, unchanged 0, 1 error');
      assert.equal(imported.Started, 'just now');
      // The file's name, as the import keeps it (sent in its Content-Disposition).
      assert.equal(imported.File, FILE_NAME);
      const checked = await cells(older);
      assert.equal(checked.File, FILE_NAME);
      assert.equal(checked.Run, 'Dry run');
      assert.equal(checked.Status, 'failed', 'a check with an error fails when nothing would be imported');
      assert.match(checked.Mode ?? '', /all or nothing$/);
      assert.equal(checked.Result, 'would create 2, update 0, unchanged 0, 1 error');

      // On laptop screens too, the list fits beside the sidebar: each row's last column in sight.
      for (const viewport of [
        { width: 1024, height: 768 },
        { width: 1280, height: 800 },
      ]) {
        await page.setViewportSize(viewport);
        for (const row of [newest, older]) {
          const result = row.locator('[data-label="Result"]');
          const box = await result.boundingBox();
          assert.ok(
            box && box.x >= 0 && box.x + box.width <= viewport.width,
            `the result lies within the ${viewport.width}px screen (${box?.x}..${(box?.x ?? 0) + (box?.width ?? 0)})`,
          );
        }
        const wrap = await inPage<number>(
          page,
          "(w => w.scrollWidth - w.clientWidth)(document.querySelector('.table-imports').parentElement)",
        );
        assert.ok(wrap <= 0, `the list scrolls sideways by ${wrap}px at ${viewport.width}px`);
      }
      await page.setViewportSize(WIDE);

      // The row's time opens its report again.
      await older
        .getByRole('button', { name: `Show the report of check ${checkId}, started just now` })
        .click();
      // Titled by its file's name, which the server kept.
      await report()
        .getByRole('heading', { name: `Check of ${FILE_NAME}` })
        .waitFor();
      await report().locator('tr[data-line="3"]').getByText('must be a whole number').waitFor();
      await screenshots('imports-list');
    });

    it('names each past import by the file the server kept, whoever sent it', async () => {
      async function send(headers: Record<string, string>): Promise<string> {
        const res = await fetch(`${server.url}/v1/imports?resource=customers&dry_run=true`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.api_key}`, 'content-type': 'text/csv', ...headers },
          body: 'email,name\nfrom-api@example.com,From API\n',
        });
        assert.equal(res.status, 202);
        return ((await res.json()) as { id: string }).id;
      }
      const named = await send({
        'content-disposition': 'attachment; filename="customers from the API.csv"',
      });
      const unnamed = await send({});
      // A page opened afresh: its history comes from the server alone.
      const other = await context.newPage();
      try {
        await other.goto('/console/imports');
        const rows = other.locator('table.table-imports tbody tr');
        await settled(
          async () => (await rows.first().getAttribute('data-import-id')) === unnamed,
          (found) => found,
        );
        const fileOf = (id: string) =>
          other.locator(`tr[data-import-id="${id}"] [data-label="File"]`).innerText();
        assert.deepEqual(
          [await fileOf(unnamed), await fileOf(named), await fileOf(importId), await fileOf(checkId)],
          ['Not named', 'customers from the API.csv', FILE_NAME, FILE_NAME],
        );
      } finally {
        await other.close();
      }
    });

    it('downloads exports through the session: products and orders as CSV, customers as JSON Lines', async () => {
      async function download(name: string): Promise<{ file: string; body: string }> {
        const saving = page.waitForEvent('download');
        await page.getByRole('button', { name }).click();
        const saved = await saving;
        const file = saved.suggestedFilename();
        const body = fs.readFileSync(await saved.path(), 'utf8');
        return { file, body };
      }

      const products = await download('Download products as CSV');
      assert.match(products.file, /^products-\d{4}-\d{2}-\d{2}\.csv$/);
      assert.ok(
        products.body.startsWith('handle,name,description,category,status,tags,currency,'),
        products.body.slice(0, 80),
      );
      assert.match(products.body, /\r\n[^\r\n]*,Console Tee,[^\r\n]*CON-TEE/, 'the import is in the export');
      await page.getByText(`Downloaded ${products.file}.`).waitFor();

      const customers = await download('Download customers as JSON Lines');
      assert.match(customers.file, /^customers-\d{4}-\d{2}-\d{2}\.jsonl$/);
      const first = JSON.parse(customers.body.split('\n')[0] ?? '') as Record<string, unknown>;
      assert.equal(Object.keys(first)[0], 'email');

      const orders = await download('Download orders as CSV');
      assert.match(orders.file, /^orders-\d{4}-\d{2}-\d{2}\.csv$/);
      assert.ok(orders.body.startsWith('order_id,created,status,'), orders.body.slice(0, 80));
      assert.ok(orders.body.split('\r\n').length > 2, 'the demo orders are in it');

      // The cookie alone is no credential: the page fetched with its session's CSRF token.
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const bare = await fetch(`${server.url}/v1/exports/products`, { headers: { cookie: cookies } });
      assert.equal(bare.status, 401);
      await screenshots('imports-exports');
    });

    it('ran without script errors or content-security-policy violations', () => {
      assert.deepEqual(problems, []);
    });
  });
}
