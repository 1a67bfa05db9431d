import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBase62 } from '../../../src/lib/ids.js';
import { LOGIC_ONLY } from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import {
  API_VERSION,
  CommerceApiError,
  type CommerceClient,
  OPERATIONS,
  type ProblemCode,
  StorefrontClient,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index.js';
import { type ApiServer, startApiServer } from './helpers/server.js';

/**
 * The client against a real server listening on a port: at least one call of every area of the
 * API through the namespaces (and a few through `client.api`), pages followed by cursor, errors
 * thrown typed with their code and request id, and a real webhook delivery verified. The last test
 * checks that every tag and every namespace was called. On SQLite alone: the client's subject is
 * HTTP; the stores are the concern of the server's own suites.
 */

async function rejection(promise: PromiseLike<unknown>): Promise<CommerceApiError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof CommerceApiError, `expected a CommerceApiError, got ${String(error)}`);
  return error;
}

for (const dialect of LOGIC_ONLY) {
  describe(`the TypeScript client against a real server (${dialect})`, { timeout: 180_000 }, () => {
    let api: ApiServer;
    let client: CommerceClient;
    let receiver: Receiver;
    /** `METHOD /path/{template}` of every operation a tracked client sent. */
    const called = new Set<string>();
    const tag = randomBase62(6).toUpperCase();
    const category = `shoes-${tag.toLowerCase()}`;

    const track = <Tracked extends Pick<CommerceClient, 'api'>>(tracked: Tracked): Tracked => {
      tracked.api.use({
        onRequest: ({ request, schemaPath }) => {
          called.add(`${request.method} ${schemaPath}`);
        },
      });
      return tracked;
    };

    before(async () => {
      api = await startApiServer(dialect);
      client = track(api.client((await api.tenant()).apiKey.key));
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver?.close();
      await api?.close();
    });

    it('sends the pinned version the client was generated for', async () => {
      assert.deepEqual(await client.health.checkLiveness(), { status: 'ok' });
      assert.equal((await client.health.checkReadiness()).status, 'ready');
      const versions = await client.versions.list();
      assert.equal(versions.latest, API_VERSION, 'the client is generated for the newest version');
      // A store pinned to an older version still gets the client's version's shapes.
      const old = await api.server.deps.tenants.create({
        name: 'Old Store',
        email: `old-${tag.toLowerCase()}@example.com`,
        apiVersion: '2026-06-01',
      });
      const oldClient = track(api.client(old.apiKey.key));
      const me = await oldClient.users.getCurrent();
      assert.equal(me.tenant.api_version, '2026-06-01');
      const { data, response } = await oldClient.api.GET('/v1/wallet/balance');
      assert.equal(response.headers.get('x-service-version'), API_VERSION);
      assert.equal(typeof data?.available, 'number');
      const upgraded = await oldClient.versions.upgrade({ version: API_VERSION });
      assert.deepEqual(upgraded, {
        previous_version: '2026-06-01',
        api_version: API_VERSION,
        livemode: true,
      });
    });

    it('creates products, pages through a category by cursor, reads, changes and deletes them', async () => {
      const created: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const product = await client.products.create({
          name: `Runner ${i}`,
          sku: `RUN-${tag}-${i}`,
          price: 1000 + i,
          category,
          stock: 10,
        });
        created.push(product.id);
      }
      const first = await client.products.list({ category, limit: 2 });
      assert.equal(first.data.length, 2);
      assert.equal(first.total, 5);
      assert.equal(first.has_more, true);
      assert.equal(typeof first.next_cursor, 'string');

      const pages: string[][] = [];
      for await (const page of client.products.list({ category, limit: 2 }).pages()) {
        pages.push(page.data.map((product) => product.id));
      }
      assert.deepEqual(
        pages.map((page) => page.length),
        [2, 2, 1],
        'three pages of at most two, by next_cursor',
      );
      const seen: string[] = [];
      for await (const product of client.products.list({ category, limit: 2 })) {
        assert.equal(product.category, category);
        seen.push(product.id);
      }
      assert.deepEqual(seen, pages.flat(), 'for await yields every item of every page, in order');
      assert.deepEqual([...seen].sort(), [...created].sort());
      assert.deepEqual(
        (await client.products.list({ category, limit: 2 }).toArray()).map((p) => p.id),
        seen,
      );

      const changed = await client.products.update(created[0] as string, { price: 1999 });
      assert.equal(changed.price, 1999);
      assert.equal((await client.products.get(created[0] as string)).price, 1999);
      assert.equal(await client.products.delete(created[4] as string), undefined);
      const gone = await rejection(client.products.get(created[4] as string));
      assert.equal(gone.status, 404);
      assert.equal(gone.code, 'not_found');

      const tee = await client.products.create({
        name: 'Logo Tee',
        category,
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [
          { sku: `TEE-${tag}-S`, options: { Size: 'S' }, price: 2500, stock: 3 },
          { sku: `TEE-${tag}-M`, options: { Size: 'M' }, price: 2600, stock: 4 },
        ],
      });
      const variants = await client.products.listVariants(tee.id);
      assert.deepEqual(
        variants.data.map((variant) => variant.title),
        ['S', 'M'],
      );
      const [small, medium] = variants.data;
      assert.ok(small && medium);
      assert.equal((await client.products.getVariant(tee.id, small.id)).sku, `TEE-${tag}-S`);
      assert.equal((await client.products.updateVariant(tee.id, small.id, { stock: 7 })).stock, 7);
      await client.products.deleteVariant(tee.id, medium.id);
      const again = await client.products.createVariant(tee.id, {
        sku: `TEE-${tag}-M2`,
        options: { Size: 'M' },
        price: 2700,
        stock: 1,
      });
      assert.equal(again.title, 'M');
      assert.equal((await client.products.get(tee.id)).stock, 8);
    });

    it('throws errors as CommerceApiError with the problem typed, its code and request id', async () => {
      const missing = await rejection(client.products.get('prod_doesnotexist'));
      const code: ProblemCode | 'unexpected_response' = missing.code;
      assert.equal(code, 'not_found');
      assert.equal(missing.status, 404);
      assert.match(missing.requestId ?? '', /^\S{8,}$/);
      assert.equal(missing.requestId, missing.problem?.request_id);
      assert.equal(missing.requestId, missing.headers.get('x-request-id'));
      assert.match(missing.message, /^404 not_found: .+ \(request \S+\)$/);

      const invalid = await rejection(client.products.create({ name: '', price: -5 }));
      assert.equal(invalid.status, 400);
      assert.equal(invalid.code, 'validation_failed');
      const fields = (invalid.errors ?? []).map((error) => error.field).sort();
      assert.ok(fields.includes('name') && fields.includes('price'), fields.join(','));

      const stranger = api.client(`sk_live_${'x'.repeat(40)}`, { maxRetries: 0 });
      const refused = await rejection(stranger.users.getCurrent());
      assert.deepEqual([refused.status, refused.code], [401, 'invalid_api_key']);

      // client.api answers { data, error, response }; unwrap throws the same typed error.
      const result = await client.api.GET('/v1/products/{id}', {
        params: { path: { id: 'prod_doesnotexist' } },
      });
      assert.equal(result.error?.code, 'not_found');
      assert.throws(
        () => unwrap(result),
        (error: unknown) => error instanceof CommerceApiError && error.code === 'not_found',
      );
    });

    it('prices, places, pays, ships, delivers and refunds orders of a customer', async () => {
      const email = `ada-${tag.toLowerCase()}@example.com`;
      const customer = await client.customers.create({ email, name: 'Ada' });
      assert.deepEqual((await client.customers.update(customer.id, { tags: ['vip'] })).tags, ['vip']);
      assert.equal((await client.customers.get(customer.id)).email, email);
      assert.deepEqual(
        (await client.customers.list({ q: email })).data.map((c) => c.id),
        [customer.id],
      );

      const boot = await client.products.create({
        name: 'Hiking Boot',
        sku: `BOOT-${tag}`,
        price: 10000,
        category,
        stock: 10,
      });
      const rate = await client.shippingRates.create({
        name: 'Standard',
        countries: ['US'],
        price: 500,
        currency: 'USD',
      });
      assert.equal((await client.shippingRates.get(rate.id)).price, 500);
      assert.equal((await client.shippingRates.update(rate.id, { name: 'Ground' })).name, 'Ground');
      const tax = await client.taxRates.create({
        name: 'California',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: false,
        shipping_taxable: false,
      });
      assert.ok((await client.taxRates.list()).data.some((t) => t.id === tax.id));
      const discount = await client.discounts.create({ code: `TEN-${tag}`, type: 'percentage', value: 1000 });
      assert.equal((await client.discounts.get(discount.id)).code, `TEN-${tag}`);
      assert.ok((await client.discounts.list()).data.some((d) => d.id === discount.id));

      const body = {
        items: [{ product_id: boot.id, quantity: 2 }],
        customer_id: customer.id,
        shipping_address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US' },
        discount_codes: [`ten-${tag}`],
      };
      const preview = await client.orders.preview(body);
      assert.deepEqual(
        [preview.id, preview.status, preview.subtotal, preview.discount_total, preview.shipping_total],
        [null, 'preview', 20000, 2000, 500],
      );
      const order = await client.orders.create({ ...body, payment_method: 'pm_card_visa' });
      assert.deepEqual([order.status, order.total], ['paid', preview.total]);
      assert.equal(order.payment?.status, 'succeeded');
      assert.equal((await client.orders.get(order.id)).id, order.id);
      const shipped = await client.orders.ship(order.id, { carrier: 'UPS', tracking_number: '1Z999' });
      assert.equal(shipped.status, 'shipped');
      assert.equal((await client.orders.deliver(order.id)).status, 'delivered');
      const partial = await client.orders.createRefund(order.id, { amount: 1000, reason: 'scuffed box' });
      assert.deepEqual([partial.amount, partial.status], [1000, 'succeeded']);
      assert.deepEqual(
        (await client.orders.listRefunds(order.id)).data.map((r) => r.id),
        [partial.id],
      );
      const refunded = await client.orders.refund(order.id);
      assert.deepEqual([refunded.status, refunded.refundable_amount], ['refunded', 0]);

      const second = await client.orders.create({
        items: [{ product_id: boot.id, quantity: 1 }],
        customer: { email },
      });
      assert.equal(second.status, 'pending');
      const declined = await rejection(client.orders.pay(second.id, { payment_method: 'pm_card_declined' }));
      assert.deepEqual([declined.status, declined.code], [422, 'payment_failed']);
      assert.equal((await client.orders.cancel(second.id)).status, 'cancelled');
      assert.equal((await client.orders.list({ customer_email: email })).total, 2);
      assert.equal((await client.customers.listOrders(customer.id)).total, 2);
      const exported = await client.customers.exportData(customer.id);
      assert.equal(exported.orders.length, 2);
      assert.equal((await client.customers.redact(customer.id)).redacted, true);

      const passerby = await client.customers.create({ email: `bob-${tag.toLowerCase()}@example.com` });
      assert.equal(await client.customers.delete(passerby.id), undefined);
      await client.discounts.delete(discount.id);
      await client.shippingRates.delete(rate.id);
      await client.taxRates.delete(tax.id);
    });

    it('moves money: balance, transactions and a transfer to another store', async () => {
      const shoe = await client.products.create({
        name: 'Loafer',
        sku: `LOAF-${tag}`,
        price: 5000,
        category,
        stock: 5,
      });
      await client.orders.create({
        items: [{ product_id: shoe.id, quantity: 1 }],
        customer: { email: 'cy@example.com' },
        payment_method: 'pm_card_mastercard',
      });
      const balance = await client.wallet.getBalance();
      assert.ok(balance.available >= 5000, `available ${balance.available}`);
      assert.ok((await client.wallet.listBalances()).data.some((b) => b.currency === 'USD'));
      const payments = await client.wallet.listTransactions({ type: 'payment' });
      assert.ok(payments.data.length >= 1);

      const other = track(api.client((await api.tenant()).apiKey.key));
      const destination = (await other.wallet.getBalance()).wallet_id;
      const transfer = await client.wallet.createTransfer({
        amount: 1500,
        currency: 'USD',
        destination_wallet_id: destination,
      });
      assert.equal(transfer.status, 'succeeded');
      assert.equal((await client.wallet.getTransfer(transfer.id)).amount, 1500);
      assert.ok((await client.wallet.listTransfers()).data.some((t) => t.id === transfer.id));
      assert.equal((await other.wallet.getBalance()).available, 1500);
    });

    it('registers a webhook endpoint and verifies the deliveries it receives', async () => {
      const endpoint = await client.webhooks.create({
        url: `${receiver.url}/commerce`,
        events: ['webhook.test', 'product.created'],
        description: 'client test',
      });
      const secret = endpoint.secret;
      assert.match(secret ?? '', /^whsec_/);
      await client.webhooks.test(endpoint.id);
      const [delivery] = await receiver.waitFor(1);
      assert.ok(delivery && secret);
      const event = client.webhooks.verify(delivery.body, delivery.headers, secret);
      assert.equal(event.type, 'webhook.test');
      assert.equal(event.id, delivery.headers['webhook-id']);
      assert.equal(event.api_version, API_VERSION);
      assert.throws(
        () => verifyWebhook(delivery.body.replace('webhook.test', 'webhook.tests'), delivery.headers, secret),
        WebhookVerificationError,
      );
      assert.throws(
        () =>
          verifyWebhook(delivery.body, delivery.headers, `whsec_${Buffer.alloc(32, 7).toString('base64')}`),
        WebhookVerificationError,
      );
      assert.throws(
        () => verifyWebhook(delivery.body, { 'webhook-id': event.id }, secret),
        WebhookVerificationError,
      );

      // An event of a change, as delivered, in a fetch Headers object.
      const product = await client.products.create({
        name: 'Sandal',
        sku: `SAN-${tag}`,
        price: 3000,
        category,
      });
      const created = (await receiver.waitFor(2))[1];
      assert.ok(created);
      const headers = new Headers(
        Object.entries(created.headers).map(([name, value]) => [name, String(value)] as [string, string]),
      );
      const productEvent = verifyWebhook(Buffer.from(created.body), headers, secret);
      assert.equal(productEvent.type, 'product.created');
      assert.equal((productEvent.data.object as { id?: string }).id, product.id);

      assert.equal((await client.events.get(event.id)).type, 'webhook.test');
      assert.ok((await client.events.list({ type: 'webhook.test' })).data.some((e) => e.id === event.id));
      const attempts = await eventually(async () => {
        const log = await client.webhooks.listDeliveries(endpoint.id);
        return log.data.length >= 2 && log.data.every((d) => d.status === 'succeeded') ? log.data : undefined;
      });
      const first = attempts.find((attempt) => attempt.event_id === event.id);
      assert.ok(first);
      assert.equal((await client.events.listDeliveries(event.id)).data[0]?.id, first.id);

      // A rotated secret signs beside the old one: both verify the next delivery.
      const rotated = await client.webhooks.rotateSecret(endpoint.id);
      assert.ok(rotated.secret && rotated.secret !== secret);
      await client.webhooks.retryDelivery(endpoint.id, first.id);
      const retried = (await receiver.waitFor(3))[2];
      assert.ok(retried);
      assert.equal(retried.headers['webhook-id'], event.id, 'a retry is the same event');
      assert.equal(verifyWebhook(retried.body, retried.headers, rotated.secret).id, event.id);
      assert.equal(verifyWebhook(retried.body, retried.headers, secret).id, event.id);

      assert.equal(
        (await client.webhooks.update(endpoint.id, { description: 'renamed' })).description,
        'renamed',
      );
      assert.equal((await client.webhooks.get(endpoint.id)).description, 'renamed');
      assert.ok((await client.webhooks.list()).data.some((w) => w.id === endpoint.id));
      await client.webhooks.delete(endpoint.id);
    });

    it('creates, lists, rolls and revokes API keys, and a narrower key is refused what it lacks', async () => {
      const reader = await client.apiKeys.create({ name: 'catalog reader', permissions: ['read:products'] });
      assert.match(reader.key, /^sk_live_\w{40}$/);
      const readerClient = api.client(reader.key);
      assert.equal((await readerClient.products.list({ limit: 1 })).limit, 1);
      const denied = await rejection(readerClient.orders.list());
      assert.deepEqual([denied.status, denied.code], [403, 'insufficient_permissions']);
      assert.equal(denied.problem?.required_permission, 'read:orders');

      assert.ok((await client.apiKeys.list()).data.some((k) => k.id === reader.id));
      assert.match((await client.apiKeys.get(reader.id)).key, /^sk_live_\*/);
      const rolled = await client.apiKeys.roll(reader.id);
      assert.notEqual(rolled.key, reader.key);
      assert.equal(await client.apiKeys.revoke(rolled.id), undefined);
      const revoked = await rejection(api.client(rolled.key, { maxRetries: 0 }).products.list());
      assert.deepEqual([revoked.status, revoked.code], [401, 'invalid_api_key']);
    });

    it('reads analytics, reports, usage and AI descriptions', async () => {
      const analytics = await client.analytics.get({ interval: 'day' });
      assert.ok(analytics.summary.orders >= 1);
      const sales = await client.analytics.getSalesReport();
      assert.ok(Array.isArray(sales.data));
      assert.ok(Array.isArray((await client.analytics.getProductsReport()).data));
      assert.ok(Array.isArray((await client.analytics.getCustomersReport()).data));
      const csv = await client.api.GET('/v1/analytics/reports/products', {
        params: { query: { format: 'csv' } },
        parseAs: 'text',
      });
      assert.match(csv.data ?? '', /^\S+,/);

      const usage = await eventually(async () => {
        const figures = await client.usage.get({ period: '7d' });
        return figures.total_calls > 10 ? figures : undefined;
      });
      assert.ok(usage.top_endpoints.length > 0);

      const generated = await client.ai.generateProductDescription({
        product: { name: 'Trail Runner', category: 'shoes' },
        tone: 'friendly',
      });
      assert.ok(generated.description.length > 20);
      const products = await client.products.list({ category, limit: 1 });
      const described = await client.ai.describeProduct({ product_id: products.data[0]?.id ?? '' });
      assert.equal(described.product_id, products.data[0]?.id);
    });

    it('installs, rates and uninstalls a marketplace plugin, and publishes one', async () => {
      const listed = await client.plugins.list({ limit: 100 });
      const hider = listed.data.find((plugin) => plugin.slug === 'sold-out-hider') ?? listed.data[0];
      assert.ok(hider, 'the marketplace lists plugins');
      assert.equal((await client.plugins.get(hider.id)).id, hider.id);
      assert.equal((await client.plugins.install(hider.id)).installed, true);
      assert.equal((await client.plugins.rate(hider.id, { stars: 5 })).stars, 5);
      assert.equal((await client.plugins.get(hider.id)).my_rating, 5);
      assert.equal((await client.plugins.uninstall(hider.id)).installed, false);

      const mine = await client.plugins.create({
        name: 'Stock Sync',
        slug: `stock-sync-${tag.toLowerCase()}`,
        description: 'Keeps stock levels in step.',
        category: 'inventory',
        permissions: ['read:products'],
        events: ['product.updated'],
        webhook_url: `${receiver.url}/app`,
      });
      assert.equal(mine.status, 'draft');
      assert.equal((await client.plugins.update(mine.id, { name: 'Stock Sync 2' })).name, 'Stock Sync 2');
      await client.plugins.install(mine.id);
      assert.equal((await client.plugins.listInstallations(mine.id)).total, 1);
      assert.ok(Array.isArray((await client.plugins.listDeliveries(mine.id)).data));
      assert.equal((await client.plugins.submit(mine.id)).status, 'in_review');
    });

    it('exports products and imports the file back, as CSV and as JSON Lines', async () => {
      const csv = await client.exports.products({ format: 'csv' });
      assert.match(csv, /^handle,/);
      const jsonl = await client.exports.products({ format: 'jsonl' });
      assert.ok(
        jsonl
          .split('\n')
          .filter(Boolean)
          .every((line) => typeof JSON.parse(line) === 'object'),
      );
      assert.match(await client.exports.customers(), /email/);
      assert.match(await client.exports.orders(), /\r?\n/);

      const job = await client.imports.create(csv, { resource: 'products', mode: 'upsert' });
      assert.equal(job.resource, 'products');
      const done = await eventually(async () => {
        const state = await client.imports.get(job.id);
        return state.status === 'succeeded' || state.status === 'failed' ? state : undefined;
      });
      assert.deepEqual([done.status, done.error_count, done.created_count], ['succeeded', 0, 0]);
      assert.equal((await client.imports.listErrors(job.id)).total, 0);

      const dryRun = await client.imports.create(
        jsonl,
        { resource: 'products', dry_run: true },
        { contentType: 'application/x-ndjson' },
      );
      assert.equal(dryRun.format, 'jsonl');
      assert.ok((await client.imports.list()).data.some((i) => i.id === dryRun.id));
    });

    it('sells through the storefront with a publishable key: catalog, carts, checkout, shopper accounts', async () => {
      const settings = await client.settings.update({ storefront: { abandoned_after_minutes: 30 } });
      assert.equal(settings.storefront.abandoned_after_minutes, 30);
      assert.deepEqual((await client.settings.get()).storefront, settings.storefront);
      const handle = `storefront-tee-${tag.toLowerCase()}`;
      const tee = await client.products.create({
        name: 'Storefront Tee',
        handle,
        category,
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [
          { sku: `SFT-${tag}-S`, options: { Size: 'S' }, price: 2500, stock: 5 },
          { sku: `SFT-${tag}-M`, options: { Size: 'M' }, price: 2600, stock: 5 },
        ],
      });
      const rate = await client.shippingRates.create({
        name: 'Storefront Ground',
        countries: ['US'],
        price: 500,
        currency: 'USD',
      });

      const publishable = await client.apiKeys.create({
        type: 'publishable',
        name: 'web shop',
        allowed_origins: [],
      });
      assert.match(publishable.key, /^pk_live_\w{40}$/);
      const shop = track(new StorefrontClient({ publishableKey: publishable.key, baseUrl: api.server.url }));
      const refused = await rejection(api.client(publishable.key, { maxRetries: 0 }).products.list());
      assert.deepEqual([refused.status, refused.code], [403, 'publishable_key_not_allowed']);

      // The catalog: the store's active products, by id or handle, and the rates a cart may choose.
      const listed = await shop.store.listProducts({ category, q: 'Storefront Tee' });
      assert.deepEqual(
        listed.data.map((product) => product.id),
        [tee.id],
      );
      const product = await shop.store.getProduct(handle);
      assert.equal(product.id, tee.id);
      assert.equal('stock' in (product.variants[0] ?? {}), false, 'a shopper never sees stock counts');
      const [small, medium] = product.variants;
      assert.ok(small && medium);
      assert.ok((await shop.store.listShippingRates({ country: 'US' })).data.some((r) => r.id === rate.id));

      // A cart, changed line by line, priced at every change.
      const email = `shopper-${tag.toLowerCase()}@example.com`;
      let cart = await shop.store.createCart({ email, lines: [{ variant_id: small.id, quantity: 1 }] });
      cart = await shop.store.addCartLine(cart.id, { variant_id: medium.id, quantity: 3 });
      const mediumLine = cart.lines.find((line) => line.variant_id === medium.id);
      assert.ok(mediumLine);
      cart = await shop.store.updateCartLine(cart.id, mediumLine.id, { quantity: 2 });
      assert.equal(cart.subtotal, 2500 + 2 * 2600);
      cart = await shop.store.removeCartLine(cart.id, mediumLine.id);
      cart = await shop.store.updateCart(cart.id, {
        shipping_address: { line1: '1 Main St', city: 'Austin', state: 'TX', country: 'US' },
        shipping_rate_id: rate.id,
      });
      assert.deepEqual(cart.problems, []);
      assert.equal((await shop.store.getCart(cart.id)).total, cart.total);

      // Completion: a total the shopper was not shown is refused with the cart as it stands.
      const changed = await rejection(
        shop.store.completeCart(cart.id, { payment_method: 'pm_card_visa', expected_total: cart.total + 1 }),
      );
      assert.deepEqual([changed.status, changed.code], [409, 'cart_changed']);
      assert.equal((changed.problem as { cart?: { total?: number } }).cart?.total, cart.total);
      const order = await shop.store.completeCart(cart.id, {
        payment_method: 'pm_card_visa',
        expected_total: cart.total,
      });
      assert.deepEqual(
        [order.status, order.total, order.source, order.cart_id],
        ['paid', cart.total, 'storefront', cart.id],
      );
      const again = await shop.store.completeCart(cart.id, {
        payment_method: 'pm_card_visa',
        expected_total: cart.total,
      });
      assert.equal(again.id, order.id, 'a completed cart answers with its order');

      // The store's side of its carts.
      const kept = await client.carts.get(cart.id);
      assert.deepEqual([kept.status, kept.order_id], ['completed', order.id]);
      assert.ok((await client.carts.list({ status: 'completed' })).data.some((c) => c.id === cart.id));

      // A shopper's account: sign-up, sign-in, their cart and orders, sign-out.
      const password = 'correct horse battery staple';
      const account = `ada-${tag.toLowerCase()}@example.com`;
      const customer = await shop.store.createCustomer({ email: account, password, name: 'Ada' });
      const session = await shop.signIn({ email: account, password });
      assert.match(session.token, /^cst_\w{40}$/);
      assert.equal(shop.customerToken, session.token);
      assert.equal((await shop.store.getCustomer()).id, customer.id);
      assert.equal((await shop.store.updateCustomer({ name: 'Ada Lovelace' })).name, 'Ada Lovelace');
      const own = await shop.store.createCart({ lines: [{ variant_id: medium.id, quantity: 1 }] });
      assert.equal(own.customer_id, customer.id, 'a cart made while signed in is the shopper’s');
      assert.equal(own.email, account);
      const priced = await shop.store.updateCart(own.id, {
        shipping_address: { line1: '2 Main St', city: 'Austin', state: 'TX', country: 'US' },
      });
      const owned = await shop.store.completeCart(own.id, {
        payment_method: 'pm_card_mastercard',
        expected_total: priced.total,
      });
      assert.deepEqual(
        (await shop.store.listCustomerOrders()).data.map((o) => o.id),
        [owned.id],
      );
      assert.equal(await shop.store.requestPasswordReset({ email: account }), undefined);
      const badReset = await rejection(
        shop.store.confirmPasswordReset({ reset_token: `rst_${'x'.repeat(40)}`, password }),
      );
      assert.deepEqual([badReset.status, badReset.code], [422, 'invalid_reset_token']);
      await shop.signOut();
      assert.equal(shop.customerToken, null);
      const signedOut = await rejection(shop.store.getCustomer());
      assert.deepEqual([signedOut.status, signedOut.code], [401, 'invalid_customer_token']);
      const ended = new StorefrontClient({
        publishableKey: publishable.key,
        baseUrl: api.server.url,
        customerToken: session.token,
      });
      const stale = await rejection(ended.store.getCustomer());
      assert.equal(stale.code, 'invalid_customer_token', 'the token ended with the session');
    });

    it('keeps stock at two locations, ships part of an order, takes a return, and reads the logs', async () => {
      const shop = await client.locations.create({ name: `Shop ${tag}`, fulfills_online_orders: true });
      assert.equal((await client.locations.get(shop.id)).name, `Shop ${tag}`);
      assert.equal(
        (await client.locations.update(shop.id, { name: `High Street ${tag}` })).name,
        `High Street ${tag}`,
      );
      const locations = await client.locations.list();
      const home = locations.data.find((location) => location.default);
      assert.ok(home, 'the store has its default location');
      const mug = await client.products.create({
        name: `Mug ${tag}`,
        price: 1200,
        currency: 'USD',
        stock: 3,
      });
      const variantId = mug.variants?.[0]?.id;
      assert.ok(variantId);
      const adjustment = await client.inventory.createAdjustment({
        variant_id: variantId,
        location_id: shop.id,
        delta: 2,
        reason: 'received',
      });
      assert.equal(adjustment.on_hand, 2);
      assert.ok((await client.inventory.listAdjustments()).data.some((a) => a.id === adjustment.id));
      const levels = await client.products.getVariantInventory(mug.id, variantId);
      assert.deepEqual(
        levels.data.map((level) => [level.location_id, level.available]).sort(),
        [
          [home.id, 3],
          [shop.id, 2],
        ].sort(),
      );

      const order = await client.orders.create({
        items: [{ variant_id: variantId, quantity: 2 }],
        customer: { email: `mugs-${tag.toLowerCase()}@example.com` },
        payment_method: 'pm_card_visa',
      });
      const parcel = await client.orders.createFulfillment(order.id, {
        items: [{ variant_id: variantId, quantity: 1 }],
        carrier: 'UPS',
        tracking_number: '1Z111',
      });
      assert.deepEqual([parcel.status, parcel.tracking.number], ['shipped', '1Z111']);
      const requested = await client.orders.createReturn(order.id, {
        items: [{ variant_id: variantId, quantity: 1, reason: 'chipped' }],
      });
      assert.equal(requested.status, 'requested');
      assert.equal((await client.returns.cancel(requested.id)).status, 'cancelled');
      const again = await client.orders.createReturn(order.id, {
        items: [{ variant_id: variantId, quantity: 1 }],
      });
      const received = await client.returns.receive(again.id, { restock: true, refund: true });
      assert.equal(received.status, 'received');
      assert.ok(received.refund_id);

      const entries = await client.auditLog.listAuditEntries({ resource_id: shop.id });
      assert.deepEqual(
        entries.data.map((entry) => entry.action),
        ['location.updated', 'location.created'],
      );
      // The request log is written off the answer's path, within seconds.
      const logged = await eventually(async () => {
        const page = await client.requestLogs.list({ route: '/v1/locations/:id', method: 'PATCH' });
        return page.data[0];
      });
      assert.equal(logged.status, 200);
      assert.equal((await client.requestLogs.get(logged.id)).id, logged.id);
      assert.equal(
        await client.locations.delete(shop.id).then(
          () => 'deleted',
          (e: unknown) => (e instanceof CommerceApiError ? e.code : e),
        ),
        'location_has_stock',
      );
    });

    it('makes a test-mode key, and resets and copies test mode with it', async () => {
      const testKey = await client.apiKeys.create({
        name: 'sandbox',
        mode: 'test',
        permissions: ['read:products', 'write:products', 'write:settings', 'read:users'],
      });
      assert.match(testKey.key, /^sk_test_/);
      const sandbox = track(api.client(testKey.key));
      assert.equal((await sandbox.users.getCurrent()).tenant.id !== undefined, true);
      const copied = await sandbox.testMode.copyLiveTo({ what: ['products'] });
      assert.ok(copied);
      const tee = await sandbox.products.list({ q: `Mug ${tag}` });
      assert.equal(tee.data.length, 1, 'the copy brought the live catalog');
      assert.equal(tee.data[0]?.livemode, false);
      await sandbox.testMode.reset();
      assert.equal((await sandbox.products.list({ q: `Mug ${tag}` })).data.length, 0);
      assert.equal((await client.products.list({ q: `Mug ${tag}` })).data.length, 1, 'live is untouched');
    });

    it('has called every area (tag) and every namespace of the API', () => {
      const specs = Object.values(OPERATIONS);
      const reached = specs.filter((spec) => called.has(`${spec.method} ${spec.path}`));
      const missingTags = [...new Set(specs.map((s) => s.tag))].filter(
        (t) => !reached.some((s) => s.tag === t),
      );
      const missingNamespaces = [...new Set(specs.map((s) => s.namespace))].filter(
        (n) => !reached.some((s) => s.namespace === n),
      );
      assert.deepEqual(missingTags, [], 'tags never called');
      assert.deepEqual(missingNamespaces, [], 'namespaces never called');
      assert.ok(
        reached.length >= specs.length * 0.9,
        `${reached.length} of ${specs.length} operations called`,
      );
    });
  });
}
