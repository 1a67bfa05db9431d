import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { randomBase62 } from '../../../src/lib/ids.js';
import { LOGIC_ONLY } from '../../../test/helpers/context.js';
import type { CommerceClient } from '../src/index.js';
import { CommerceApiError, StorefrontClient } from '../src/storefront.js';
import { type FaultProxy, startFaultProxy } from './helpers/fault-proxy.js';
import { type ApiServer, startApiServer } from './helpers/server.js';
import { bundleForBrowser, FULL_ENTRY, STOREFRONT_ENTRY } from './helpers/storefront-bundle.js';

/**
 * The storefront's entry (`src/storefront.ts`) is fit for a page: bundled for the browser it
 * needs no Node module, and it type-checks with the DOM's library and without Node's types; the
 * full client does neither, which shows both checks can fail. Then, against a real server behind
 * a real proxy that records each request: the key, the version and the shopper's token it sends,
 * and a completion whose answer was lost retried with its Idempotency-Key into one order.
 * (`storefront.browser.test.ts` runs it in Chromium.)
 */

/** The files of the client a page's bundle may hold, and the one package. */
const ALLOWED_INPUTS = [
  /^clients\/typescript\/src\/(base-url|caller|errors|pagination|retry-policy|retrying-fetch|storefront)\.ts$/,
  /^clients\/typescript\/src\/generated\/(namespaces|operations)\.ts$/,
  /^node_modules\/openapi-fetch\//,
];

/** Type-checks `entry` as a page's code is: the DOM's library, no `@types/node`. */
function typeCheckForPage(entry: string): { errors: string[]; files: string[] } {
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    verbatimModuleSyntax: true,
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  return { errors, files: program.getSourceFiles().map((file) => file.fileName) };
}

describe('the storefront entry is fit for a page', () => {
  it('bundles for the browser with nothing of Node: no built-in, no undici, no webhook verification', async () => {
    const bundle = await bundleForBrowser(STOREFRONT_ENTRY);
    const strays = bundle.inputs.filter((input) => !ALLOWED_INPUTS.some((allowed) => allowed.test(input)));
    assert.deepEqual(strays, [], 'files a page does not need');
    assert.ok(bundle.inputs.includes('clients/typescript/src/storefront.ts'));
    assert.doesNotMatch(bundle.code, /\bnode:|\brequire\(/);
    // The store's namespace, not the others (the operation table, paths and all, is in whole).
    assert.match(bundle.code, /\.one\("completeStoreCart",/);
    assert.doesNotMatch(bundle.code, /\.one\("rotateWebhookSecret",/);
    assert.ok(bundle.code.length < 40_000, `${bundle.code.length} bytes minified`);
  });

  it('the full client does not bundle for the browser (the check above can fail)', async () => {
    await assert.rejects(bundleForBrowser(FULL_ENTRY), /Could not resolve "(node:)?\w+"/);
  });

  it('type-checks with the DOM library and without Node’s types', () => {
    const page = typeCheckForPage(STOREFRONT_ENTRY);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(
      page.files.filter((file) => /node_modules\/(@types\/node|undici)/.test(file)),
      [],
    );
    const full = typeCheckForPage(FULL_ENTRY);
    assert.ok(
      full.errors.length > 0 || full.files.some((file) => file.includes('node_modules/@types/node')),
      'the full client needs Node',
    );
  });

  it('refuses a secret key in a page, and calls the page’s own origin by default', () => {
    const page = globalThis as { document?: unknown; location?: unknown };
    const saved = { document: page.document, location: page.location };
    try {
      page.document = {};
      page.location = { origin: 'https://shop.example.com' };
      assert.throws(
        () => new StorefrontClient({ publishableKey: `sk_live_${'a'.repeat(40)}` }),
        /secret key must never reach a page/,
      );
      const shop = new StorefrontClient({ publishableKey: `pk_live_${'a'.repeat(40)}` });
      assert.equal(shop.baseUrl, 'https://shop.example.com');
    } finally {
      page.document = saved.document;
      page.location = saved.location;
    }
    // Outside a page (a server rendering the shop) a secret key is the caller's choice.
    const server = new StorefrontClient({
      publishableKey: `sk_live_${'a'.repeat(40)}`,
      baseUrl: 'https://x/v1/',
    });
    assert.equal(server.baseUrl, 'https://x');
    assert.throws(() => new StorefrontClient({ publishableKey: '' }), /publishableKey/);
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`the storefront client through a recording proxy (${dialect})`, { timeout: 120_000 }, () => {
    let api: ApiServer;
    let proxy: FaultProxy;
    let admin: CommerceClient;
    let publishable: string;
    let variantId: string;
    const tag = randomBase62(6).toLowerCase();

    const shop = (options: { customerToken?: string } = {}) =>
      new StorefrontClient({ publishableKey: publishable, baseUrl: proxy.url, ...options });
    /** A cart of one unit to ship within the US, ready to complete. */
    const readyCart = async (client: StorefrontClient, email: string) =>
      client.store.createCart({
        email,
        lines: [{ variant_id: variantId, quantity: 1 }],
        shipping_address: { line1: '1 Main St', city: 'Austin', state: 'TX', country: 'US' },
      });

    before(async () => {
      api = await startApiServer(dialect);
      admin = api.client((await api.tenant()).apiKey.key);
      proxy = await startFaultProxy(api.server.url);
      publishable = (await admin.apiKeys.create({ type: 'publishable', name: 'shop', allowed_origins: [] }))
        .key;
      const product = await admin.products.create({ name: 'Canvas Tote', price: 1800, stock: 50 });
      variantId = (await admin.products.listVariants(product.id)).data[0]?.id ?? '';
      await admin.shippingRates.create({ name: 'Ground', countries: ['US'], price: 400, currency: 'USD' });
    });
    after(async () => {
      await proxy?.close();
      await api?.close();
    });

    it('sends the key and the version, and the shopper’s token only while signed in', async () => {
      const client = shop();
      const email = `tote-${tag}@example.com`;
      const password = 'correct horse battery staple';
      const from = proxy.seen.length;
      await client.store.listProducts();
      await client.store.createCustomer({ email, password });
      const session = await client.signIn({ email, password });
      await client.store.getCustomer();
      await client.signOut();
      await assert.rejects(client.store.getCustomer(), (error: unknown) => {
        return error instanceof CommerceApiError && error.code === 'invalid_customer_token';
      });
      const seen = proxy.seen.slice(from);
      assert.deepEqual(
        seen.map(
          (request) =>
            `${request.method} ${request.path.split('?')[0]} ${request.headers['x-customer-token'] ?? '-'}`,
        ),
        [
          'GET /v1/store/products -',
          'POST /v1/store/customers -',
          'POST /v1/store/sessions -',
          `GET /v1/store/customers/me ${session.token}`,
          `DELETE /v1/store/sessions/current ${session.token}`,
          'GET /v1/store/customers/me -',
        ],
      );
      for (const request of seen) {
        assert.equal(request.headers.authorization, `Bearer ${publishable}`);
        assert.equal(request.headers['x-service-version'], client.version);
      }
      assert.ok(seen.filter((r) => r.method === 'POST').every((r) => r.headers['idempotency-key']));

      // A session that already ended signs out without an error, and is forgotten.
      const again = await shop().signIn({ email, password });
      const otherTab = shop({ customerToken: again.token });
      await shop({ customerToken: again.token }).signOut();
      await otherTab.signOut();
      assert.equal(otherTab.customerToken, null);
    });

    it('retries a completion whose answer was lost with its Idempotency-Key: one order, paid once', async () => {
      const client = shop();
      const email = `lost-${tag}@example.com`;
      const cart = await readyCart(client, email);
      assert.deepEqual(cart.problems, []);
      const path = `/v1/store/carts/${cart.id}/complete`;
      proxy.plan((method, seen) => method === 'POST' && seen === path, [{ forwardThenAnswer: 502 }]);
      const from = proxy.seen.length;
      const order = await client.store.completeCart(cart.id, {
        payment_method: 'pm_card_visa',
        expected_total: cart.total,
      });
      const tries = proxy.seen.slice(from).filter((seen) => seen.path === path);
      assert.equal(tries.length, 2);
      assert.equal(tries[0]?.upstreamStatus, 201, 'the first attempt made the order');
      assert.equal(new Set(tries.map((seen) => seen.headers['idempotency-key'])).size, 1);
      assert.deepEqual([order.status, order.cart_id], ['paid', cart.id]);
      const orders = await admin.orders.list({ customer_email: email });
      assert.deepEqual(
        orders.data.map((o) => [o.id, o.status]),
        [[order.id, 'paid']],
      );
    });

    it('throws a declined payment as payment_failed, the cart still open', async () => {
      const client = shop();
      const cart = await readyCart(client, `declined-${tag}@example.com`);
      const declined = await client.store
        .completeCart(cart.id, { payment_method: 'pm_card_declined', expected_total: cart.total })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(declined instanceof CommerceApiError);
      assert.deepEqual([declined.status, declined.code], [422, 'payment_failed']);
      assert.equal((await client.store.getCart(cart.id)).status, 'open');
    });
  });
}
