import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { Store } from '../../db/store.js';
import type { CustomerRow as ReportRow } from '../analytics/analytics.schemas.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { RefundObject } from '../orders/refunds.schemas.js';
import type { DeliveryObject } from '../webhooks/webhooks.presenter.js';
import { createCustomerPrivacy } from './customers.privacy.js';
import type { CustomerExport } from './customers.privacy.schemas.js';
import { type Erasure, mentionsEmail, replaceEmails, scrubText } from './customers.privacy.scrub.js';
import type { CustomerObject } from './customers.schemas.js';

interface EventBody {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * Every text-holding column of every table (SQLite: every column of every table, the search
 * index's shadow tables included; PostgreSQL: the text and JSON columns of the store's schema)
 * that contains one of `needles`, compared case-insensitively, as `table.column: needle`.
 */
async function scanStore(store: Store, needles: readonly string[]): Promise<string[]> {
  const columns: { table: string; column: string }[] = [];
  if (store.dialect === 'sqlite') {
    const tables = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(store.db);
    for (const { name } of tables.rows) {
      const info = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(store.db);
      for (const column of info.rows) columns.push({ table: name, column: column.name });
    }
  } else {
    const info = await sql<{ table_name: string; column_name: string }>`
      SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = ${store.schema} AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')`.execute(store.db);
    for (const row of info.rows) columns.push({ table: row.table_name, column: row.column_name });
  }
  const hits: string[] = [];
  for (const { table, column } of columns) {
    const text =
      store.dialect === 'sqlite'
        ? sql`lower(CAST(${sql.ref(column)} AS TEXT))`
        : sql`lower(${sql.ref(column)}::text)`;
    for (const needle of needles) {
      const { rows } = await sql<{ n: number }>`
        SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE ${text} LIKE ${`%${needle.toLowerCase()}%`}`.execute(
        store.db,
      );
      if (Number(rows[0]?.n) > 0) hits.push(`${table}.${column}: ${needle}`);
    }
  }
  return hits;
}

/** The ledger as stored: every account, entry, posting and transfer. */
async function ledger(store: Store): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const table of ['ledger_accounts', 'ledger_entries', 'ledger_postings', 'wallet_transfers'] as const) {
    out.push(await store.db.selectFrom(table).selectAll().orderBy('id').execute());
  }
  return out;
}

/**
 * The service's export as the API answers it in live mode: `livemode` on the export, its customer and
 * each of its orders and their refunds (objects of their own), and the answer's `generated` time.
 */
function answered(exported: CustomerExport, generated: string): CustomerExport {
  return {
    ...exported,
    generated,
    livemode: true,
    customer: { ...exported.customer, livemode: true },
    orders: exported.orders.map((order) => ({
      ...order,
      refunds: order.refunds.map((refund) => ({ ...refund, livemode: true })),
      livemode: true,
    })),
  } as CustomerExport;
}

/** An order as redaction leaves it: everything kept but the person's data and the free text. */
function redactedOrder(order: OrderObject, address: string): OrderObject {
  return {
    ...order,
    customer: { ...order.customer, email: address, name: null },
    shipping_address: null,
    metadata: {},
    carrier: null,
    tracking_number: null,
    refunds: order.refunds.map((refund) => ({ ...refund, reason: null })),
    fulfillments: order.fulfillments.map((fulfillment) => ({
      ...fulfillment,
      tracking: { carrier: null, number: null, url: null },
    })),
    returns: order.returns.map((ret) => ({
      ...ret,
      items: ret.items.map((item) => ({ ...item, reason: null })),
    })),
  };
}

describe('erasure of an address in stored text', () => {
  it('replaces whole addresses only, in any case, and leaves longer ones that contain them', () => {
    const emails = ['ada@example.com'];
    const text = 'To ADA@Example.com, cc nada@example.com and ada@example.com.au; ada@example.com.';
    assert.equal(mentionsEmail('nada@example.com or ada@example.com.au', emails), false);
    assert.equal(mentionsEmail(text, emails), true);
    assert.deepEqual(replaceEmails({ note: [text] }, emails, 'R'), {
      note: ['To R, cc nada@example.com and ada@example.com.au; R.'],
    });
  });
});

describe('erasure of the free text of stored orders and refunds', () => {
  const erasure: Erasure = {
    customerId: 'cus_1',
    address: 'redacted+cus_1@invalid',
    orderAddress: 'redacted+cus_1@invalid',
    orderIds: new Set(['ord_1']),
    refundIds: new Set(['re_1']),
    fulfillmentIds: new Set(['ful_1']),
    returnIds: new Set(['ret_1']),
    emails: ['zed@example.net'],
    exclusive: ['zed@example.net'],
  };
  const reason = 'Asked by Zed Name';

  it('clears the free-text members by object, whatever they say, and only the members a stored shape has', () => {
    const refund = { id: 're_1', amount: 300, reason };
    assert.deepEqual(JSON.parse(scrubText(JSON.stringify(refund), erasure) ?? ''), {
      ...refund,
      reason: null,
    });
    const order = {
      id: 'ord_1',
      total: 2000,
      customer: { id: 'cus_1', email: 'zed@example.net', name: 'Zed Name' },
      shipping_address: { line1: '7 Quiet Lane' },
      metadata: { note: 'Ring twice' },
      carrier: 'Courier of Zed Name',
      tracking_number: 'ZN-1',
      refunds: [refund, { ...refund, id: 're_2', reason: null }],
    };
    assert.deepEqual(JSON.parse(scrubText(JSON.stringify(order), erasure) ?? ''), {
      id: 'ord_1',
      total: 2000,
      customer: { id: 'cus_1', email: 'redacted+cus_1@invalid', name: null },
      shipping_address: null,
      metadata: {},
      carrier: null,
      tracking_number: null,
      refunds: [
        { ...refund, reason: null },
        { ...refund, id: 're_2', reason: null },
      ],
    });
    // An order stored in an older shape (no refunds, no carrier) gains no member.
    assert.deepEqual(JSON.parse(scrubText('{"id":"ord_1","metadata":{"a":"b"}}', erasure) ?? ''), {
      id: 'ord_1',
      metadata: {},
    });
    // Another order's or refund's text is not the customer's: nothing changes.
    assert.equal(scrubText(JSON.stringify({ ...refund, id: 're_9' }), erasure), undefined);
    assert.equal(scrubText(JSON.stringify({ ...order, id: 'ord_9', customer: {} }), erasure), undefined);
  });
});

for (const dialect of DIALECTS) {
  describe(`customer privacy: export and erasure (${dialect})`, () => {
    let ctx: TestContext;
    let rx: Receiver;
    let api: Client;
    let tenantId: string;
    let other: Client;
    let product: ProductObject;

    before(async () => {
      ctx = await createTestContext(dialect);
      rx = await startReceiver();
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      product = (
        await api<ProductObject>('POST', '/v1/products', { body: { name: 'Cup', price: 1000, stock: 1000 } })
      ).body;
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    const order = async (body: Record<string, unknown>, key?: string) => {
      const res = await api<OrderObject>('POST', '/v1/orders', {
        body: { items: [{ product_id: product.id, quantity: 2 }], ...body },
        ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res;
    };
    const act = async (id: string, action: string, key: string) => {
      const res = await api<OrderObject>('POST', `/v1/orders/${id}/${action}`, {
        body: {},
        headers: { 'idempotency-key': key },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const customersReport = async () =>
      (await api<Page<ReportRow>>('GET', '/v1/analytics/reports/customers?limit=100')).body;

    it('erases the person everywhere in one go and keeps every amount, figure and count', async () => {
      const hook = await api('POST', '/v1/webhooks', { body: { url: rx.url, events: ['*'] } });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));

      const created = await api<CustomerObject>('POST', '/v1/customers', {
        body: {
          email: 'Ada.Lovelace@Example.com',
          name: 'Ada Lovelace',
          phone: '+442079460000',
          addresses: [{ name: 'Ada Lovelace', line1: '12 St James Square', city: 'London', country: 'GB' }],
          tags: ['vip', 'press'],
          note: 'Prefers the analytical engine.',
          metadata: { crm: 'ada-42' },
          marketing_consent: true,
        },
        headers: { 'idempotency-key': 'customer-ada' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const ada = created.body;
      const shipTo = { name: 'Ada Lovelace', line1: '10 Marylebone Road', city: 'London', country: 'GB' };
      const paidBody = {
        customer_id: ada.id,
        shipping_address: shipTo,
        metadata: { gift: 'Wrapped in blue' },
        payment_method: 'pm_card_visa',
      };
      const paid = (await order(paidBody, 'order-paid')).body;
      const byEmail = { customer: { email: 'ada.lovelace@example.com', name: 'Ada Lovelace' } };
      const refunded = (await order({ ...byEmail, payment_method: 'pm_card_visa' }, 'order-refunded')).body;
      await act(refunded.id, 'refund', 'refund-1');
      const cancelled = (
        await order({ ...byEmail, shipping_address: shipTo, payment_method: 'pm_card_visa' })
      ).body;
      await act(cancelled.id, 'cancel', 'cancel-1');
      const pending = (
        await order({ customer_id: ada.id, payment_method: 'pm_card_declined' }, 'order-pending')
      ).body;
      assert.deepEqual([paid.status, pending.status, pending.payment?.status], ['paid', 'pending', 'failed']);
      assert.equal(refunded.customer.id, ada.id);

      // Someone else in the store, and another store's customer: neither may change.
      const grace = (await order({ customer: { email: 'grace@example.com', name: 'Grace Hopper' } })).body;
      const theirs = (
        await other<CustomerObject>('POST', '/v1/customers', { body: { email: 'someone@example.org' } })
      ).body;

      // A mention of the address in something else's event: a product made for her, since deleted.
      const engraved = (
        await api<ProductObject>('POST', '/v1/products', {
          body: { name: 'Engraved cup', description: 'Engraved for Ada.Lovelace@example.com', price: 5000 },
        })
      ).body;
      assert.equal((await api('DELETE', `/v1/products/${engraved.id}`)).status, 204);

      const needles = [
        'ada.lovelace@example.com',
        'Ada Lovelace',
        '12 St James Square',
        '10 Marylebone Road',
        '2079460000',
        'analytical engine',
        'ada-42',
        'Wrapped in blue',
      ];
      // The analytics rollups take the orders' events in (a read would first).
      await ctx.deps.analyticsRollups.flush();
      const found = await scanStore(ctx.deps.store, needles);
      for (const table of [
        'customers',
        'orders',
        'events',
        'idempotency_keys',
        // Analytics know customers by id; only a customer member's name is personal there.
        'analytics_members',
      ]) {
        assert.ok(
          found.some((hit) => hit.startsWith(`${table}.`)),
          `the scan finds the person in ${table}: ${found.join(', ')}`,
        );
      }

      const exported = await api<CustomerExport>('GET', `/v1/customers/${ada.id}/export`);
      assert.equal(exported.status, 200);
      const adaNow = (await api<CustomerObject>('GET', `/v1/customers/${ada.id}`)).body;
      const ordersBefore = (await api<Page<OrderObject>>('GET', `/v1/customers/${ada.id}/orders`)).body.data;
      assert.equal(exported.body.object, 'customer_export');
      assert.deepEqual({ ...exported.body.customer, livemode: true }, adaNow);
      // The export holds the orders as listed, each with its `livemode`.
      assert.deepEqual(exported.body.orders, [...ordersBefore].reverse());
      const allEvents = (await api<Page<EventBody>>('GET', '/v1/events?limit=100')).body.data;
      const paymentIds = ordersBefore.flatMap((o) => (o.payment ? [o.payment.id] : []));
      const refundIds = ordersBefore.flatMap((o) => o.refunds.map((r) => r.id));
      assert.equal(refundIds.length, 2);
      const about = new Set([ada.id, ...ordersBefore.map((o) => o.id), ...paymentIds, ...refundIds]);
      const mentions = allEvents.filter((e) => e.data.object.id === engraved.id).map((e) => e.id);
      assert.equal(mentions.length, 2);
      const expected = allEvents
        .filter((e) => about.has(e.data.object.id as string) || e.data.object.id === engraved.id)
        .map((e) => e.id);
      assert.deepEqual(exported.body.events.map((e) => e.id).sort(), [...expected].sort());
      assert.ok(exported.body.events.some((e) => e.type === 'payment.failed'));
      const tiny = createCustomerPrivacy({ ...ctx.deps, sizes: { orders: 1, window: 1 } });
      assert.deepEqual(answered(await tiny.export(tenantId, ada.id), exported.body.generated), exported.body);
      assert.ok(!exported.body.events.some((e) => e.object_id === grace.id));

      // The snapshot redaction must leave exactly as it is.
      const ledgerBefore = await ledger(ctx.deps.store);
      const balanceBefore = (await api('GET', '/v1/wallet/balance')).body;
      const overviewBefore = (await api('GET', '/v1/analytics')).body;
      const reportBefore = await customersReport();
      const graceBefore = (await api('GET', `/v1/customers/${grace.customer.id}`)).body;
      const graceOrderBefore = (await api('GET', `/v1/orders/${grace.id}`)).body;
      const countsBefore = await Promise.all(
        ['/v1/customers', '/v1/customers?tag=vip', '/v1/customers?tag=press'].map(
          async (url) => (await api<Page<CustomerObject>>('GET', url)).body.total,
        ),
      );
      assert.deepEqual(countsBefore, [2, 1, 1]);

      const redacted = await api<CustomerObject>('POST', `/v1/customers/${ada.id}/redact`, {
        headers: { 'idempotency-key': 'redact-ada' },
      });
      assert.equal(redacted.status, 200, JSON.stringify(redacted.body));
      const address = `redacted+${ada.id}@invalid`;
      const orderAddress = address.toLowerCase();
      assert.deepEqual(redacted.body, {
        ...adaNow,
        email: address,
        name: null,
        phone: null,
        addresses: [],
        tags: [],
        note: null,
        metadata: {},
        redacted: true,
        updated: redacted.body.updated,
      });
      assert.deepEqual([adaNow.orders_count, Object.values(adaNow.total_spent)], [4, [2000]]);

      assert.deepEqual(await scanStore(ctx.deps.store, needles), []);
      assert.deepEqual(await ledger(ctx.deps.store), ledgerBefore);
      assert.deepEqual((await api('GET', '/v1/wallet/balance')).body, balanceBefore);
      assert.deepEqual((await api('GET', '/v1/analytics')).body, overviewBefore);
      // The report shows each customer's email as it is now: Ada's redacted address, and no name.
      const anonymous = (row: ReportRow) =>
        row.email === 'Ada.Lovelace@Example.com'
          ? { ...row, email: `redacted+${ada.id}@invalid`, name: null }
          : row;
      assert.deepEqual(await customersReport(), { ...reportBefore, data: reportBefore.data.map(anonymous) });
      assert.ok(reportBefore.data.some((row) => row.email === 'Ada.Lovelace@Example.com'));
      assert.deepEqual((await api('GET', `/v1/customers/${grace.customer.id}`)).body, graceBefore);
      assert.deepEqual((await api('GET', `/v1/orders/${grace.id}`)).body, graceOrderBefore);
      assert.deepEqual(
        await Promise.all(
          ['/v1/customers', '/v1/customers?tag=vip', '/v1/customers?tag=press'].map(
            async (url) => (await api<Page<CustomerObject>>('GET', url)).body.total,
          ),
        ),
        [2, 0, 0],
      );
      const ordersAfter = (await api<Page<OrderObject>>('GET', `/v1/customers/${ada.id}/orders`)).body.data;
      assert.deepEqual(
        ordersAfter,
        ordersBefore.map((o) => redactedOrder(o, orderAddress)),
      );

      // The export shows what is left; the stored events and replays read the same.
      const afterExport = (await api<CustomerExport>('GET', `/v1/customers/${ada.id}/export`)).body;
      assert.deepEqual({ ...afterExport.customer, livemode: true }, redacted.body);
      assert.deepEqual(afterExport.orders, [...ordersAfter].reverse());
      // The product's events no longer mention the person, so they are no longer listed.
      assert.deepEqual(
        afterExport.events.filter((e) => e.type !== 'customer.redacted').map((e) => e.id),
        exported.body.events.map((e) => e.id).filter((id) => !mentions.includes(id)),
      );
      for (const id of mentions) {
        const event = (await api<EventBody>('GET', `/v1/events/${id}`)).body;
        assert.equal(event.data.object.description, `Engraved for ${address}`);
      }
      const replay = await api<OrderObject>('POST', '/v1/orders', {
        body: { items: [{ product_id: product.id, quantity: 2 }], ...paidBody },
        headers: { 'idempotency-key': 'order-paid' },
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.body, redactedOrder(paid, orderAddress));
      const replayedCustomer = await api<CustomerObject>('POST', '/v1/customers', {
        body: {
          email: 'Ada.Lovelace@Example.com',
          name: 'Ada Lovelace',
          phone: '+442079460000',
          addresses: [{ name: 'Ada Lovelace', line1: '12 St James Square', city: 'London', country: 'GB' }],
          tags: ['vip', 'press'],
          note: 'Prefers the analytical engine.',
          metadata: { crm: 'ada-42' },
          marketing_consent: true,
        },
        headers: { 'idempotency-key': 'customer-ada' },
      });
      assert.equal(replayedCustomer.headers['idempotent-replayed'], 'true');
      assert.deepEqual(
        [replayedCustomer.body.email, replayedCustomer.body.name, replayedCustomer.body.addresses],
        [address, null, []],
      );

      const events = (await api<Page<EventBody>>('GET', '/v1/events?limit=100')).body.data;
      const erased = events.filter((e) => e.type === 'customer.redacted');
      assert.deepEqual(
        erased.map((e) => e.data.object),
        [redacted.body],
      );
      for (const event of events.filter(
        (e) => e.type.startsWith('order.') && about.has(e.data.object.id as string),
      )) {
        const object = event.data.object as unknown as OrderObject;
        assert.deepEqual(
          [object.customer.email, object.customer.name, object.shipping_address],
          [orderAddress, null, null],
        );
      }

      // Final: no change, and a second redaction answers the same without a second event.
      const patch = await api<Problem>('PATCH', `/v1/customers/${ada.id}`, { body: { name: 'Ada' } });
      assert.deepEqual([patch.status, patch.body.code], [409, 'invalid_state_transition']);
      const again = await api<CustomerObject>('POST', `/v1/customers/${ada.id}/redact`);
      assert.deepEqual([again.status, again.body], [200, redacted.body]);
      assert.equal((await api<Page<EventBody>>('GET', '/v1/events?type=customer.redacted')).body.total, 1);

      // Another store's customer is not found, either way round.
      for (const [as, id] of [
        [other, ada.id],
        [api, theirs.id],
      ] as const) {
        assert.equal((await as('GET', `/v1/customers/${id}/export`)).status, 404);
        assert.equal((await as('POST', `/v1/customers/${id}/redact`)).status, 404);
      }
      assert.equal((await other<CustomerObject>('GET', `/v1/customers/${theirs.id}`)).body.redacted, false);
      // A customer without orders is redacted as well (deleting it is the other way).
      const noOrders = await other<CustomerObject>('POST', `/v1/customers/${theirs.id}/redact`);
      assert.deepEqual(
        [noOrders.status, noOrders.body.email, noOrders.body.redacted],
        [200, `redacted+${theirs.id}@invalid`, true],
      );

      // Deliveries still pending render from the rewritten events: nothing of the person goes out.
      const pendingDeliveries = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      ctx.deps.webhookWorker.start();
      const sent = await rx.waitFor(Number(pendingDeliveries.n));
      assert.ok(sent.some((r) => r.body.includes('"customer.redacted"')));
      for (const request of sent) {
        for (const needle of needles)
          assert.ok(!request.body.toLowerCase().includes(needle.toLowerCase()), needle);
      }

      // The person's original email, no longer on record, makes a new customer.
      const returning = (await order(byEmail)).body;
      assert.notEqual(returning.customer.id, ada.id);
      assert.equal(
        (await api<CustomerObject>('GET', `/v1/customers/${returning.customer.id}`)).body.email,
        'ada.lovelace@example.com',
      );
    });

    it('exports orders in the API version of the key, as the orders list shows them', async () => {
      const shop = await createTenant(ctx, { apiVersion: '2026-11-21' });
      const as = client(ctx.app, shop.apiKey.key);
      const mug = (
        await as<ProductObject>('POST', '/v1/products', { body: { name: 'Mug', price: 700, stock: 5 } })
      ).body;
      const placed = await as<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: mug.id, quantity: 1 }],
          customer: { email: 'old.version@example.com' },
        },
      });
      assert.equal(placed.status, 201, JSON.stringify(placed.body));
      const customerId = (
        await ctx.deps.store.db
          .selectFrom('orders')
          .select('customer_id')
          .where('id', '=', placed.body.id)
          .executeTakeFirstOrThrow()
      ).customer_id;
      const old = (await as<CustomerExport>('GET', `/v1/customers/${customerId}/export`)).body;
      assert.deepEqual(old.orders, [placed.body]);
      assert.equal('variant_id' in (old.orders[0]?.items[0] ?? {}), false);
      assert.equal('id' in (old.orders[0]?.customer ?? {}), false);
      const latest = await as<CustomerExport>('GET', `/v1/customers/${customerId}/export`, {
        headers: { 'x-service-version': '2026-12-15' },
      });
      assert.equal(latest.body.orders[0]?.customer.id, customerId);
      assert.equal(typeof latest.body.orders[0]?.items[0]?.variant_id, 'string');
    });

    it('leaves analytics figures as they were: a customer with several addresses is one row, shown redacted; one who took an old address keeps theirs', async () => {
      const shop = await createTenant(ctx);
      const as = client(ctx.app, shop.apiKey.key);
      const cup = (
        await as<ProductObject>('POST', '/v1/products', { body: { name: 'Mug', price: 700, stock: 100 } })
      ).body;
      let keys = 0;
      const buy = async (body: Record<string, unknown>) => {
        const res = await as<OrderObject>('POST', '/v1/orders', {
          body: { items: [{ product_id: cup.id, quantity: 1 }], payment_method: 'pm_card_visa', ...body },
          headers: { 'idempotency-key': `buy-${++keys}` },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const first = await buy({ customer: { email: 'old@example.net', name: 'Charles Babbage' } });
      const charles = first.customer.id;
      assert.equal(
        (await as('PATCH', `/v1/customers/${charles}`, { body: { email: 'new@example.net' } })).status,
        200,
      );
      await buy({ customer_id: charles });
      const refunded = await buy({ customer_id: charles });
      assert.equal((await as('POST', `/v1/orders/${refunded.id}/refund`)).status, 200);
      // Someone now orders with Charles's old address: another customer, who shares the address.
      const taker = await buy({ customer: { email: 'old@example.net', name: 'Taker' } });
      assert.notEqual(taker.customer.id, charles);

      const report = async () =>
        (await as<Page<ReportRow>>('GET', '/v1/analytics/reports/customers?limit=100')).body.data;
      const overview = async () => (await as('GET', '/v1/analytics')).body;
      const before = await report();
      const overviewBefore = await overview();
      const row = (rows: ReportRow[], email: string) => rows.find((r) => r.email === email);
      // Analytics know customers by id: Charles is one row under his current address, the taker another.
      assert.deepEqual(
        [row(before, 'old@example.net')?.orders, row(before, 'new@example.net')?.orders],
        [1, 3],
      );

      // Through the service with tiny batches and windows, so every scan walks many windows.
      const small = createCustomerPrivacy({ ...ctx.deps, sizes: { orders: 2, window: 3 } });
      const exportedBefore = (await as<CustomerExport>('GET', `/v1/customers/${charles}/export`)).body;
      assert.deepEqual(
        answered(await small.export(shop.tenant.id, charles), exportedBefore.generated),
        exportedBefore,
      );
      assert.equal((await small.redact(shop.tenant.id, charles)).redacted, true);
      // Each recorded response of Charles's orders reads redacted; the taker's keeps its address.
      for (let key = 1; key <= keys; key++) {
        const row = await ctx.deps.store.db
          .selectFrom('idempotency_keys')
          .select('response_body')
          .where('tenant_id', '=', shop.tenant.id)
          .where('key', '=', `buy-${key}`)
          .executeTakeFirstOrThrow();
        const body = JSON.parse(row.response_body ?? '') as OrderObject;
        const mine = body.customer.id === charles;
        assert.equal(
          body.customer.email,
          mine ? `redacted+${charles}@invalid`.toLowerCase() : 'old@example.net',
        );
      }
      const after = await report();
      assert.deepEqual(overviewBefore, await overview());
      assert.deepEqual(row(after, 'old@example.net'), {
        email: 'old@example.net',
        name: 'Taker',
        orders: 1,
        revenue: 700,
        first_order: taker.created,
        last_order: taker.created,
      });
      // The report shows the customer's email as it is now: its redacted address.
      assert.deepEqual(row(after, `redacted+${charles}@invalid`), {
        email: `redacted+${charles}@invalid`,
        name: null,
        orders: 3,
        revenue: 1400,
        first_order: first.created,
        last_order: refunded.created,
      });
      assert.equal(row(after, 'new@example.net'), undefined);
      const sum = (rows: ReportRow[], key: 'orders' | 'revenue') => rows.reduce((n, r) => n + r[key], 0);
      assert.deepEqual(
        [sum(after, 'orders'), sum(after, 'revenue')],
        [sum(before, 'orders'), sum(before, 'revenue')],
      );

      // The rollups now equal a rebuild from the orders (reach aside: it keeps its counts).
      const rollups = async () => {
        const out: unknown[] = [];
        for (const table of [
          'analytics_orders',
          'analytics_daily',
          'analytics_members',
          'analytics_customer_days',
        ] as const) {
          const rows = await ctx.deps.store.db
            .selectFrom(table)
            .selectAll()
            .where('tenant_id', '=', shop.tenant.id)
            .execute();
          out.push(rows.map((r) => JSON.stringify(r)).sort());
        }
        return out;
      };
      const kept = await rollups();
      await ctx.deps.analytics.rebuild(shop.tenant.id);
      assert.deepEqual(await rollups(), kept);

      // The taker's data is theirs: untouched, though it holds Charles's old address.
      const takerNow = (await as<CustomerObject>('GET', `/v1/customers/${taker.customer.id}`)).body;
      assert.deepEqual([takerNow.email, takerNow.name], ['old@example.net', 'Taker']);
      assert.equal(
        (await as<OrderObject>('GET', `/v1/orders/${taker.id}`)).body.customer.email,
        'old@example.net',
      );
      // Charles's own events lose both addresses, the old one included.
      const exported = (await as<CustomerExport>('GET', `/v1/customers/${charles}/export`)).body;
      for (const event of exported.events) {
        const body = JSON.stringify((await as('GET', `/v1/events/${event.id}`)).body);
        assert.ok(!body.includes('old@example.net') && !body.includes('new@example.net'), event.type);
        assert.ok(!body.includes('Charles Babbage'), event.type);
      }
      assert.equal(exported.orders.length, 3);
    });

    it('clears the free text of its orders and refunds wherever it is kept: API, export, events, replays and webhook deliveries queued or logged', async () => {
      const shop = await createTenant(ctx);
      const as = client(ctx.app, shop.apiKey.key);
      const db = ctx.deps.store.db;
      const worker = ctx.deps.webhookWorker;
      // A receiver that answers with what it was sent: the delivery log keeps its first 1 KiB.
      const echo = await startReceiver((request) => ({ status: 200, body: request.body }));
      // Deliveries wait in the queue until this test sends them.
      await worker.stop();
      const pendingOf = async () =>
        Number(
          (
            await db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('tenant_id', '=', shop.tenant.id)
              .where('status', '=', 'pending')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const sendQueued = async () => {
        worker.start();
        await eventually(async () => (await pendingOf()) === 0, 15_000, 'the queue to drain');
        await worker.stop();
      };
      try {
        const early = await as<{ id: string }>('POST', '/v1/webhooks', {
          body: { url: `${echo.url}/early`, events: ['*'] },
        });
        assert.equal(early.status, 201, JSON.stringify(early.body));
        const cup = (
          await as<ProductObject>('POST', '/v1/products', { body: { name: 'Cup', price: 1000, stock: 10 } })
        ).body;
        const zed = (
          await as<CustomerObject>('POST', '/v1/customers', {
            body: { email: 'zed.name@example.net', name: 'Zed Name' },
          })
        ).body;
        const placed = await as<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: cup.id, quantity: 2 }],
            customer_id: zed.id,
            shipping_address: { name: 'Zed Name', line1: '7 Quiet Lane', city: 'Leeds', country: 'GB' },
            metadata: { note: 'Ring twice for Zed Name' },
            payment_method: 'pm_card_visa',
          },
        });
        assert.equal(placed.status, 201, JSON.stringify(placed.body));
        const orderId = placed.body.id;
        const shipped = await as<OrderObject>('POST', `/v1/orders/${orderId}/ship`, {
          body: { carrier: 'Courier of Zed Name', tracking_number: 'ZN-TRACK-0042' },
        });
        assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
        const firstBody = { amount: 300, reason: 'Asked by Zed Name: one cup chipped' };
        const first = await as<RefundObject>('POST', `/v1/orders/${orderId}/refunds`, {
          body: firstBody,
          headers: { 'idempotency-key': 'zed-refund-1' },
        });
        assert.equal(first.status, 201, JSON.stringify(first.body));

        // Everything so far is delivered to the early endpoint; then a second endpoint, and the rest
        // refunded: its refund.created and order.refunded wait in the queue for both.
        await sendQueued();
        const late = await as<{ id: string }>('POST', '/v1/webhooks', {
          body: { url: `${echo.url}/late`, events: ['*'] },
        });
        assert.equal(late.status, 201, JSON.stringify(late.body));
        const rest = await as<RefundObject>('POST', `/v1/orders/${orderId}/refunds`, {
          body: { reason: 'Zed Name wants the rest back' },
        });
        assert.equal(rest.status, 201, JSON.stringify(rest.body));
        const logOf = async (webhookId: string) =>
          (await as<Page<DeliveryObject>>('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`)).body.data;
        const earlyLog = await logOf(early.body.id);
        const firstEvent = (
          await as<Page<EventBody>>('GET', '/v1/events?type=refund.created&limit=100')
        ).body.data.find((e) => e.data.object.id === first.body.id);
        assert.ok(firstEvent);
        const delivered = earlyLog.find((d) => d.event_id === firstEvent.id && d.status === 'succeeded');
        assert.ok(delivered);
        assert.ok(delivered.response_body?.includes('Asked by Zed Name'), 'the log holds the echoed reason');
        // And a retry of that delivery, queued too.
        const retry = await as<DeliveryObject>(
          'POST',
          `/v1/webhooks/${early.body.id}/deliveries/${delivered.id}/retry`,
        );
        assert.equal(retry.status, 202, JSON.stringify(retry.body));
        assert.equal(await pendingOf(), 5);

        const needles = [
          'Zed Name',
          'zed.name@example.net',
          'chipped',
          'wants the rest',
          'ZN-TRACK-0042',
          '7 Quiet Lane',
          'Ring twice',
        ];
        const found = await scanStore(ctx.deps.store, needles);
        for (const hit of [
          'refunds.reason: Zed Name',
          'orders.tracking_number: ZN-TRACK-0042',
          'orders.carrier: Zed Name',
          'orders.metadata: Ring twice',
          'events.data: chipped',
          'events.data: wants the rest',
          'idempotency_keys.response_body: chipped',
          'webhook_deliveries.response_body: chipped',
        ]) {
          assert.ok(found.includes(hit), `${hit} in ${found.join(', ')}`);
        }

        const orderBefore = await as<OrderObject>('GET', `/v1/orders/${orderId}`);
        assert.deepEqual(
          orderBefore.body.refunds.map((r) => r.reason),
          [firstBody.reason, 'Zed Name wants the rest back'],
        );
        const refundsBefore = (await as<Page<RefundObject>>('GET', `/v1/orders/${orderId}/refunds`)).body;
        const ledgerBefore = await ledger(ctx.deps.store);

        const redacted = await as<CustomerObject>('POST', `/v1/customers/${zed.id}/redact`);
        assert.equal(redacted.status, 200, JSON.stringify(redacted.body));
        const orderAddress = `redacted+${zed.id}@invalid`.toLowerCase();
        const expected = redactedOrder(orderBefore.body, orderAddress);

        assert.deepEqual(await scanStore(ctx.deps.store, needles), []);
        assert.deepEqual(await ledger(ctx.deps.store), ledgerBefore);
        // Every read of the order shows it without the free text, amounts and refunds kept.
        const orderAfter = await as<OrderObject>('GET', `/v1/orders/${orderId}`, {
          headers: { 'if-none-match': String(orderBefore.headers.etag) },
        });
        assert.deepEqual([orderAfter.status, orderAfter.body], [200, expected]);
        assert.notEqual(orderAfter.headers.etag, orderBefore.headers.etag);
        assert.deepEqual(
          [expected.status, expected.refunded_amount, expected.refunds.map((r) => r.amount)],
          ['refunded', 2000, [300, 1700]],
        );
        assert.deepEqual((await as<Page<OrderObject>>('GET', '/v1/orders')).body.data, [expected]);
        assert.deepEqual((await as<Page<OrderObject>>('GET', `/v1/customers/${zed.id}/orders`)).body.data, [
          expected,
        ]);
        assert.deepEqual((await as<Page<RefundObject>>('GET', `/v1/orders/${orderId}/refunds`)).body, {
          ...refundsBefore,
          data: refundsBefore.data.map((r) => ({ ...r, reason: null })),
        });
        const exported = (await as<CustomerExport>('GET', `/v1/customers/${zed.id}/export`)).body;
        assert.deepEqual(exported.orders, [expected]);
        const events = (await as<Page<EventBody>>('GET', '/v1/events?limit=100')).body.data;
        const refundEvents = events.filter((e) => e.type === 'refund.created');
        assert.deepEqual(
          refundEvents.map((e) => [e.data.object.id, e.data.object.reason, e.data.object.amount]).reverse(),
          [
            [first.body.id, null, 300],
            [rest.body.id, null, 1700],
          ],
        );
        // The export lists the refunds' events with the order's and payment's.
        for (const event of refundEvents) assert.ok(exported.events.some((e) => e.id === event.id));
        const shippedEvent = events.find((e) => e.type === 'order.shipped')?.data.object;
        assert.deepEqual([shippedEvent?.carrier, shippedEvent?.tracking_number], [null, null]);
        const closed = events.find((e) => e.type === 'order.refunded')?.data.object as unknown as OrderObject;
        assert.deepEqual(
          closed.refunds.map((r) => r.reason),
          [null, null],
        );
        const replay = await as<RefundObject>('POST', `/v1/orders/${orderId}/refunds`, {
          body: firstBody,
          headers: { 'idempotency-key': 'zed-refund-1' },
        });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.deepEqual(replay.body, { ...first.body, reason: null });

        // The delivery log no longer holds what the receiver echoed of the person's events.
        for (const log of [
          await logOf(early.body.id),
          (await as<Page<DeliveryObject>>('GET', `/v1/events/${firstEvent.id}/deliveries`)).body.data,
        ]) {
          assert.ok(log.length > 0);
          for (const entry of log) {
            for (const needle of needles) assert.ok(!(entry.response_body ?? '').includes(needle), needle);
          }
        }
        // Its rows stay (the redaction's own event queued beside them).
        assert.deepEqual(
          (await logOf(early.body.id))
            .filter((d) => d.event !== 'customer.redacted')
            .map((d) => d.id)
            .sort(),
          [...earlyLog.map((d) => d.id), retry.body.id].sort(),
        );

        // The queued deliveries (the rest's events and customer.redacted to both endpoints, the
        // retry) send the redacted payload.
        const sentBefore = echo.received.length;
        await sendQueued();
        const sent = echo.received.slice(sentBefore);
        assert.equal(sent.length, 7);
        for (const request of sent) {
          for (const needle of needles) assert.ok(!request.body.includes(needle), needle);
        }
        const resent = sent.find((r) => r.id === firstEvent.id);
        assert.equal((JSON.parse(resent?.body ?? '{}') as EventBody).data.object.reason, null);
      } finally {
        worker.start();
        await echo.close();
      }
    });
  });
}
