import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { runAdmin } from '../../cli/admin.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

interface Entry {
  id: string;
  seq: number | string;
  resource_id: string;
  changes: string | null;
  snapshot: string | null;
  redacted: number | string;
  content_digest: string | null;
}

/**
 * Erasure in the audit log: the person's values in the entries of the customer, its orders and
 * their payments, refunds, fulfilments and returns (and of anything whose changes hold its
 * address) become `[redacted]`, each entry keeping its content digest, so the chain still verifies;
 * an edited entry still breaks it. Also the fulfilments' tracking and the returns' reasons.
 */
for (const dialect of DIALECTS) {
  describe(`customer erasure in the audit log, fulfilments and returns (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('redacts the entries and keeps the chain verifying; an edited entry still breaks it', async () => {
      const shop = await createTenant(ctx);
      const tenantId = shop.tenant.id;
      const as = client(ctx.app, shop.apiKey.key);
      const db = ctx.deps.store.db;
      const cup = (
        await as<ProductObject>('POST', '/v1/products', { body: { name: 'Cup', price: 1000, stock: 10 } })
      ).body;
      const zed = (
        await as<CustomerObject>('POST', '/v1/customers', {
          body: { email: 'zed.name@example.net', name: 'Zed Name', phone: '+44 20 7946 0042' },
        })
      ).body;
      assert.equal(
        (await as('PATCH', `/v1/customers/${zed.id}`, { body: { note: 'Met Zed Name at the fair' } })).status,
        200,
      );
      const placed = await as<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: cup.id, quantity: 2 }],
          customer_id: zed.id,
          shipping_address: { name: 'Zed Name', line1: '7 Quiet Lane', city: 'Leeds', country: 'GB' },
          metadata: { note: 'Ring twice' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(placed.status, 201, JSON.stringify(placed.body));
      const orderId = placed.body.id;
      const shipped = await as('POST', `/v1/orders/${orderId}/ship`, {
        body: { carrier: 'Courier of Zed Name', tracking_number: 'ZN-TRACK-0042' },
      });
      assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
      const variantId = placed.body.items[0]?.variant_id;
      const returned = await as<{ id: string }>('POST', `/v1/orders/${orderId}/returns`, {
        body: { items: [{ variant_id: variantId, quantity: 1, reason: 'Zed Name found it chipped' }] },
      });
      assert.equal(returned.status, 201, JSON.stringify(returned.body));
      const refund = await as('POST', `/v1/orders/${orderId}/refunds`, {
        body: { amount: 300, reason: 'Zed Name asked nicely' },
      });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      // Another product whose description names the person's address: its entry holds it too.
      const mentioned = await as<ProductObject>('PATCH', `/v1/products/${cup.id}`, {
        body: { description: 'Ask zed.name@example.net about the glaze' },
      });
      assert.equal(mentioned.status, 200, JSON.stringify(mentioned.body));
      // And someone else's order, which stays as it was.
      const other = await as<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: cup.id, quantity: 1 }],
          customer: { email: 'amy@example.org', name: 'Amy Other' },
          metadata: { note: 'Leave at the door' },
        },
      });
      assert.equal(other.status, 201, JSON.stringify(other.body));

      const first = await ctx.deps.auditLog.verify(tenantId);
      assert.equal(first.ok, true, JSON.stringify(first.broken));
      const needles = [
        'Zed Name',
        'zed.name@example.net',
        '7 Quiet Lane',
        'Ring twice',
        'ZN-TRACK-0042',
        'chipped',
        'asked nicely',
        '7946',
        'fair',
      ];
      const entries = async () =>
        db
          .selectFrom('audit_entries')
          .select(['id', 'seq', 'resource_id', 'changes', 'snapshot', 'redacted', 'content_digest'])
          .where('tenant_id', '=', tenantId)
          .orderBy('id')
          .execute() as Promise<Entry[]>;
      const holding = (rows: Entry[]) =>
        needles.filter((needle) =>
          rows.some((row) =>
            `${row.changes ?? ''}${row.snapshot ?? ''}`.toLowerCase().includes(needle.toLowerCase()),
          ),
        );
      assert.deepEqual(holding(await entries()), needles);
      const before = await entries();

      const redacted = await as('POST', `/v1/customers/${zed.id}/redact`);
      assert.equal(redacted.status, 200, JSON.stringify(redacted.body));
      const report = await ctx.deps.auditLog.verify(tenantId);
      assert.equal(report.ok, true, JSON.stringify(report.broken));
      const cli = await runAdmin(['audit:verify', '--tenant', tenantId], ctx.config);
      assert.equal(cli.code, 0, cli.stdout + cli.stderr);

      const afterRows = await entries();
      assert.deepEqual(holding(afterRows), []);
      const byId = new Map(afterRows.map((row) => [row.id, row]));
      // Each entry touched is marked and keeps its digest; the others are as they were.
      for (const row of before) {
        const now = byId.get(row.id);
        assert.ok(now);
        assert.equal(now.content_digest, row.content_digest);
        const touched = now.changes !== row.changes || now.snapshot !== row.snapshot;
        assert.equal(Number(now.redacted), touched ? 1 : 0, row.resource_id);
      }
      const otherEntries = afterRows.filter((row) => row.resource_id === other.body.id);
      assert.ok(otherEntries.length > 0);
      for (const row of otherEntries) assert.equal(Number(row.redacted), 0);
      assert.ok(otherEntries.some((row) => (row.snapshot ?? '').includes('Leave at the door')));
      // The person's values read `[redacted]`, what is not theirs stays.
      const customerEntry = afterRows.find(
        (row) => row.resource_id === zed.id && row.changes?.includes('note'),
      );
      assert.deepEqual(JSON.parse(customerEntry?.changes ?? '{}'), {
        note: { from: null, to: '[redacted]' },
      });
      const productEntry = afterRows.find(
        (row) =>
          row.resource_id === cup.id &&
          row.changes !== null &&
          'description' in (JSON.parse(row.changes) as Record<string, unknown>),
      );
      assert.equal(
        (JSON.parse(productEntry?.changes ?? '{}') as { description: { to: string } }).description.to,
        '[redacted]',
      );
      assert.equal(Number(productEntry?.redacted), 1);

      // The fulfilment's tracking and the return's reason are cleared in their rows too.
      const parcel = await db
        .selectFrom('fulfillments')
        .select(['carrier', 'tracking_number'])
        .where('order_id', '=', orderId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(parcel, { carrier: null, tracking_number: null });
      const ret = await db
        .selectFrom('returns')
        .select('items')
        .where('id', '=', returned.body.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(ret.items), [{ variant_id: variantId, quantity: 1, reason: null }]);

      // Redacting again changes nothing in the chain.
      assert.equal((await as('POST', `/v1/customers/${zed.id}/redact`)).status, 200);
      assert.equal((await ctx.deps.auditLog.verify(tenantId)).ok, true);

      // An entry not redacted, edited: its digest no longer matches.
      const plain = otherEntries[0];
      assert.ok(plain);
      await sql`UPDATE audit_entries SET changes = '{}' WHERE id = ${plain.id}`.execute(db);
      const edited = await ctx.deps.auditLog.verify(tenantId);
      assert.deepEqual([edited.ok, edited.broken?.seq], [false, Number(plain.seq)]);
      await sql`UPDATE audit_entries SET changes = ${plain.changes} WHERE id = ${plain.id}`.execute(db);
      assert.equal((await ctx.deps.auditLog.verify(tenantId)).ok, true);
      // A redacted entry whose digest is changed: its hash no longer holds.
      const marked = afterRows.find((row) => Number(row.redacted) === 1);
      assert.ok(marked);
      await sql`UPDATE audit_entries SET content_digest = ${'0'.repeat(64)} WHERE id = ${marked.id}`.execute(
        db,
      );
      const forged = await ctx.deps.auditLog.verify(tenantId);
      assert.deepEqual([forged.ok, forged.broken?.seq], [false, Number(marked.seq)]);
      // Neither can an edited entry pass for a redacted one: the flag is not in the digest, but the
      // digest is in the hash, and the changes of an entry not redacted must match it.
      await sql`UPDATE audit_entries SET content_digest = ${marked.content_digest} WHERE id = ${marked.id}`.execute(
        db,
      );
      assert.equal((await ctx.deps.auditLog.verify(tenantId)).ok, true);
    });
  });
}
