import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { chromiumMissing, inPage, launchChromium, WIDE } from '../../test/helpers/console-browser.js';
import { migratedStore, type TestStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { type RunningServer, startServer } from '../server.js';

/**
 * The API reference at /docs as a person meets it: served by the real server, rendered by Scalar
 * in Debian's Chromium. It is titled and branded as the product, groups the operations by tag,
 * shows an operation with its curl call, the TypeScript client's call and the answers' examples
 * (a problem answer's of its own status's code), and sends a request from the page. Nothing may go
 * wrong on the way: no console error or warning (Scalar warns of each part of the document it takes
 * for broken), no page error, no Content-Security-Policy violation, and no request to another
 * origin. A screenshot goes to test-artifacts/docs/.
 */

const skip = chromiumMissing;
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/docs');

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

/**
 * The one violation the page is allowed: zod (inside Scalar's bundle) tries `new Function('')` once
 * to learn whether it may compile its parsers, catches the refusal, and parses without; the policy
 * keeps 'unsafe-eval' out on purpose.
 */
const isEvalProbe = (v: Violation) =>
  v.directive === 'script-src' && v.blocked === 'eval' && v.source.endsWith('/docs/js/scalar.js');

/**
 * A console message with its arguments as values: Scalar's warnings about the document are objects
 * (`{message, path, schema, value}`) whose message and path say what it took for broken.
 */
async function consoleText(message: ConsoleMessage): Promise<string> {
  const values = await Promise.all(message.args().map((arg) => arg.jsonValue().catch(() => '?')));
  const text = values.map((value: unknown) =>
    typeof value === 'string'
      ? value
      : JSON.stringify(value, (key, item: unknown) =>
          key === 'schema' || key === 'value' ? undefined : item,
        ),
  );
  return `console ${message.type()}: ${text.join(' ')}`;
}

describe('API reference in Chromium', { skip, timeout: 180_000 }, () => {
  let store: TestStore;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let key = '';
  const problems: string[] = [];
  const consoleProblems: Promise<string>[] = [];
  const requests: string[] = [];

  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    store = await migratedStore('sqlite');
    server = await startServer(loadConfig({ ...store.env, PORT: '0', DEMO_DATA: 'off' }));
    key = (await server.deps.tenants.create({ name: 'Docs reader', email: 'reader@example.com' })).apiKey.key;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: WIDE, baseURL: server.url, locale: 'en-US' });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Errors and warnings alike: Scalar warns of what it takes for a broken document.
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        consoleProblems.push(consoleText(message));
    });
    page.on('request', (request) => requests.push(request.url()));
    // Recorded in the page from its first script on, read at the end.
    await page.addInitScript(`
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push({
        directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile,
      }));
    `);
  });

  after(async () => {
    await browser?.close();
    await server?.shutdown();
    await store?.drop();
  });

  it('renders the reference, titled and branded as the product, its operations grouped by tag', async () => {
    await page.goto('/docs/');
    const sidebar = page.getByRole('navigation', { name: 'Sidebar for Commerce Platform API' });
    await sidebar.getByText('Introduction').waitFor();
    assert.equal(await page.title(), 'Commerce Platform API reference');
    assert.equal(
      await inPage<string>(page, "document.querySelector('link[rel~=icon]')?.getAttribute('href') ?? ''"),
      '/docs/favicon.svg',
    );
    await page.getByRole('heading', { level: 1, name: 'Commerce Platform API' }).waitFor();
    // The product's name and icon head the sidebar; no other product is named.
    const heading = await inPage<string>(
      page,
      "getComputedStyle(document.querySelector('.t-doc__sidebar'), '::before').content",
    );
    assert.equal(heading, '"Commerce Platform"');
    const text = await inPage<string>(page, 'document.body.innerText');
    assert.doesNotMatch(text, /swagger|fastify|powered by/i);
    // A group per tag of the document, in its order.
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { tags: { name: string }[] };
    for (const tag of doc.tags) {
      await sidebar.getByRole('button', { name: new RegExp(`^${tag.name} (Open|Close) Group$`) }).waitFor();
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'introduction.png') });
  });

  it('shows an operation with its curl call, the TypeScript client call and example answers, problems too', async () => {
    const sidebar = page.getByRole('navigation', { name: 'Sidebar for Commerce Platform API' });
    await sidebar.getByRole('button', { name: 'Products Open Group' }).click();
    await sidebar.getByRole('button', { name: /^List products HTTP Method: GET$/ }).click();
    const operation = page.getByRole('region', { name: 'List products' });
    await operation.getByRole('heading', { name: 'List products' }).waitFor();
    assert.match(page.url(), /#tag\/products\/GET\/v1\/products$/);
    // curl first, against this server.
    const example = operation.getByRole('group', { name: 'Request Example for get/v1/products' });
    await example.getByRole('button', { name: 'Shell Curl' }).waitFor();
    assert.match(await example.innerText(), new RegExp(`curl ${server.url}/v1/products`));
    // The answer's example: the component's, a product with its prefixed id and minor units.
    const answers = operation.getByRole('region', { name: /^Status: 200/ });
    assert.match(
      await answers.innerText(),
      /"id": "prod_NUM03sM4JHrY5j5OPiOa7rZU",\s+"handle": "trail-runner-3",\s+"name": "Trail Runner 3"/,
    );
    // Every code sample of the document's operation is offered beside curl, and shows its call.
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { 'x-codeSamples'?: { label: string; source: string }[] }>>;
    };
    const samples = doc.paths['/v1/products']?.get?.['x-codeSamples'] ?? [];
    for (const sample of samples) {
      await example
        .getByRole('button', { name: /Curl|client/ })
        .first()
        .click();
      await page.getByRole('option', { name: sample.label }).click();
      const call = sample.source.split('\n').find((line) => line.includes('commerce.')) ?? sample.source;
      assert.ok((await example.innerText()).includes(call.trim()), `${sample.label}: ${call}`);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'list-products.png') });
    // A problem answer shows a problem of its own status's code, not another status's.
    await operation.getByRole('tab', { name: 'Status: 401' }).click();
    await answers.getByText('"code": "authentication_required"').waitFor();
    assert.doesNotMatch(await answers.innerText(), /validation_failed/);
  });

  it('sends a request from the page to this server', async () => {
    const operation = page.getByRole('region', { name: 'List products' });
    await operation.getByRole('button', { name: /^Test Request/ }).click();
    const client = page.getByRole('dialog');
    await client.getByPlaceholder('Token').fill(key);
    const answered = page.waitForResponse((response) =>
      response.url().startsWith(`${server.url}/v1/products`),
    );
    await client.getByRole('button', { name: /^Send get request to / }).click();
    assert.equal((await answered).status(), 200);
    await client.getByText('200 OK').waitFor();
    // No link to Scalar's site or hosted client (the latter would be handed this document's URL).
    const links = await inPage<string[]>(
      page,
      "[...document.querySelectorAll('a[href]')].filter((a) => a.getClientRects().length > 0).map((a) => a.href)",
    );
    assert.ok(links.length > 0, 'the page has links');
    assert.deepEqual(
      links.filter((href) => /^https?:\/\/([^/]+\.)?scalar\.com/.test(href)),
      [],
      'links to Scalar',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'test-request.png') });
    await page.keyboard.press('Escape');
  });

  it('had no console error or warning, no page error, no policy violation and no request elsewhere', async () => {
    const violations = await inPage<Violation[]>(page, 'window.__violations');
    assert.deepEqual(
      violations.filter((v) => !isEvalProbe(v)),
      [],
      'Content-Security-Policy violations',
    );
    assert.deepEqual([...problems, ...(await Promise.all(consoleProblems))], []);
    const origin = new URL(server.url).origin;
    const elsewhere = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    assert.deepEqual(elsewhere, [], 'requests to another origin');
    // What it loaded: the page, Scalar's bundle from this server, the document and the icon.
    for (const loaded of ['/docs/', '/docs/js/scalar.js', '/v1/openapi.json', '/docs/favicon.svg']) {
      assert.ok(requests.includes(`${origin}${loaded}`), `${loaded} loaded`);
    }
  });
});
