import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

async function rowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['customers', 'customer_tags', 'list_count_deltas', 'events'] as const) {
    const { n } = await ctx.deps.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(n);
  }
  return counts;
}

for (const dialect of DIALECTS) {
  describe(`customers (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let other: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const create = async (body: Record<string, unknown>, as: Client = api) => {
      const res = await as<CustomerObject>('POST', '/v1/customers', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    it('creates, reads, changes and deletes a customer, with an event for each change', async () => {
      const ada = await create({
        email: 'Ada@Example.com',
        name: 'Ada Lovelace',
        phone: '+442079460000',
        addresses: [{ line1: '12 St James Square', city: 'London', country: 'GB' }],
        tags: ['vip'],
        note: 'Prefers email.',
        metadata: { crm: '42' },
        marketing_consent: true,
      });
      assert.match(ada.id, /^cus_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...ada, id: undefined, created: undefined, updated: undefined },
        {
          id: undefined,
          email: 'Ada@Example.com',
          name: 'Ada Lovelace',
          phone: '+442079460000',
          addresses: [{ line1: '12 St James Square', city: 'London', country: 'GB' }],
          tags: ['vip'],
          note: 'Prefers email.',
          metadata: { crm: '42' },
          marketing_consent: true,
          orders_count: 0,
          total_spent: {},
          last_order_at: null,
          redacted: false,
          created: undefined,
          updated: undefined,
          livemode: true,
        },
      );
      assert.deepEqual((await api('GET', `/v1/customers/${ada.id}`)).body, ada);
      assert.equal((await other('GET', `/v1/customers/${ada.id}`)).status, 404);
      const patched = await api<CustomerObject>('PATCH', `/v1/customers/${ada.id}`, {
        body: { name: 'Ada King', tags: ['vip', 'press'] },
      });
      assert.equal(patched.status, 200);
      assert.deepEqual([patched.body.name, patched.body.tags], ['Ada King', ['vip', 'press']]);
      const tagged = await api<Page<CustomerObject>>('GET', '/v1/customers?tag=press');
      assert.deepEqual([tagged.body.total, tagged.body.data.map((c) => c.id)], [1, [ada.id]]);
      assert.equal((await api('DELETE', `/v1/customers/${ada.id}`)).status, 204);
      assert.equal((await api('GET', `/v1/customers/${ada.id}`)).status, 404);
      assert.equal((await api<Page<CustomerObject>>('GET', '/v1/customers?tag=press')).body.total, 0);
      const types = (await api<Page<{ type: string }>>('GET', '/v1/events?limit=100')).body.data.map(
        (e) => e.type,
      );
      for (const type of ['customer.created', 'customer.updated', 'customer.deleted'])
        assert.ok(types.includes(type));
    });

    it('keeps emails unique per tenant, case-insensitively', async () => {
      await create({ email: 'grace@example.com' });
      const twin = await api<Problem>('POST', '/v1/customers', { body: { email: 'GRACE@example.com' } });
      assert.equal(twin.status, 409);
      assert.equal(twin.body.code, 'duplicate_email');
      const alan = await create({ email: 'alan@example.com' });
      const clash = await api<Problem>('PATCH', `/v1/customers/${alan.id}`, {
        body: { email: 'Grace@Example.com' },
      });
      assert.equal(clash.body.code, 'duplicate_email');
      await create({ email: 'grace@example.com' }, other);
    });

    it('refuses bad input naming each field, and writes nothing', async () => {
      const before = await rowCounts(ctx);
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'not-an-email' }, 'email'],
        [
          { email: 'a@example.com', addresses: [{ line1: 'x', city: 'y', country: 'XX' }] },
          'addresses[0].country',
        ],
        [
          { email: 'a@example.com', addresses: [{ line1: 'x', city: 'y', country: 'gb' }] },
          'addresses[0].country',
        ],
        [
          {
            email: 'a@example.com',
            addresses: [
              { line1: 'x', city: 'y', country: 'US', state: 'CA' },
              { line1: 'x', city: 'y', country: 'US', state: 'XX' },
            ],
          },
          'addresses[1].state',
        ],
        [{ email: 'a@example.com', name: 'x'.repeat(201) }, 'name'],
        [{ email: 'a@example.com', phone: 'call me' }, 'phone'],
        [{ email: 'a@example.com', tags: ['a', 'a'] }, 'tags'],
        [{ email: 'a@example.com', colour: 'red' }, 'colour'],
        [{ name: 'No email' }, 'email'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/customers', { body });
        assert.equal(res.status, 400, field);
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      assert.deepEqual(await rowCounts(ctx), before);
    });

    it('stores addresses with their state in one form, and refuses a state the country does not have', async () => {
      const home = { line1: '1 Main St', city: 'Los Angeles', country: 'US' };
      const ana = await create({
        email: 'ana.states@example.com',
        addresses: [
          { ...home, state: 'ca\u200b' },
          { ...home, state: 'California' },
          { ...home, state: '   ' },
          { line1: '1 rue X', city: 'Montreal', country: 'CA', state: 'Que\u0301bec' },
          { line1: 'Rue 1', city: 'St Peter Port', country: 'GG', state: ' St.\u200b  Peter  Port ' },
        ],
      });
      assert.deepEqual(
        ana.addresses.map((a) => a.state),
        ['CA', 'CA', undefined, 'QC', 'St. Peter Port'],
      );
      assert.ok(!('state' in (ana.addresses[2] ?? {})));
      const before = await rowCounts(ctx);
      const refused = await api<Problem>('PATCH', `/v1/customers/${ana.id}`, {
        body: {
          addresses: [
            { ...home, state: 'Calif' },
            { ...home, country: 'CA', state: 'CA' },
          ],
        },
      });
      assert.deepEqual(
        [refused.status, refused.body.errors?.map((e) => e.field)],
        [400, ['addresses[0].state', 'addresses[1].state']],
      );
      assert.deepEqual(await rowCounts(ctx), before);
      assert.deepEqual(
        (await api<CustomerObject>('GET', `/v1/customers/${ana.id}`)).body.addresses,
        ana.addresses,
      );
      const moved = await api<CustomerObject>('PATCH', `/v1/customers/${ana.id}`, {
        body: { addresses: [{ ...home, state: 'new york' }] },
      });
      assert.deepEqual([moved.status, moved.body.addresses[0]?.state], [200, 'NY']);
    });

    it('orders find or create their customer by email; figures follow orders, payments and refunds', async () => {
      const product = (
        await api<ProductObject>('POST', '/v1/products', { body: { name: 'Cup', price: 1000, stock: 100 } })
      ).body;
      const order = async (body: Record<string, unknown>) => {
        const res = await api<OrderObject>('POST', '/v1/orders', {
          body: { items: [{ product_id: product.id, quantity: 1 }], ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const first = await order({
        customer: { email: 'Buyer@Example.com', name: 'Bea' },
        payment_method: 'pm_card_visa',
      });
      const second = await order({ customer: { email: 'buyer@example.com' } });
      assert.equal(first.customer.id, second.customer.id);
      const third = await order({ customer_id: first.customer.id, payment_method: 'pm_card_visa' });
      let buyer = (await api<CustomerObject>('GET', `/v1/customers/${first.customer.id}`)).body;
      assert.deepEqual(
        [buyer.email, buyer.name, buyer.orders_count, buyer.total_spent, buyer.last_order_at],
        ['buyer@example.com', 'Bea', 3, { USD: 2000 }, third.created],
      );
      assert.equal((await api('POST', `/v1/orders/${third.id}/refund`)).status, 200);
      assert.equal((await api('POST', `/v1/orders/${second.id}/cancel`)).status, 200);
      buyer = (await api<CustomerObject>('GET', `/v1/customers/${first.customer.id}`)).body;
      assert.deepEqual([buyer.orders_count, buyer.total_spent], [3, { USD: 1000 }]);
      const theirs = await api<Page<OrderObject>>('GET', `/v1/customers/${buyer.id}/orders`);
      assert.deepEqual(
        theirs.body.data.map((o) => o.id),
        [third.id, second.id, first.id],
      );
      const refused = await api<Problem>('DELETE', `/v1/customers/${buyer.id}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'customer_has_orders');
      const unknown = await api<Problem>('POST', '/v1/orders', {
        body: { items: [{ product_id: product.id, quantity: 1 }], customer_id: 'cus_nope' },
      });
      assert.equal(unknown.status, 404);
      const neither = await api<Problem>('POST', '/v1/orders', {
        body: { items: [{ product_id: product.id, quantity: 1 }] },
      });
      assert.equal(neither.status, 400);
      assert.equal(neither.body.errors?.[0]?.field, 'customer');
    });

    it('an order names its customer one way; a redacted customer takes no order, even one racing the redaction', async () => {
      const product = (
        await api<ProductObject>('POST', '/v1/products', { body: { name: 'Ref', price: 300, stock: 20 } })
      ).body;
      const items = [{ product_id: product.id, quantity: 1 }];
      const kept = await create({ email: 'kept@example.com' });
      const both = await api<Problem>('POST', '/v1/orders', {
        body: { items, customer_id: kept.id, customer: { email: 'kept@example.com' } },
      });
      assert.deepEqual([both.status, both.body.errors?.[0]?.field], [400, 'customer_id']);
      const badRange = await api<Problem>(
        'GET',
        '/v1/customers?created_from=2026-02-01T00:00:00Z&created_to=2026-01-01T00:00:00Z',
      );
      assert.deepEqual([badRange.status, badRange.body.errors?.[0]?.field], [400, 'created_from']);

      const gone = await create({ email: 'gone@example.com', name: 'Gone' });
      assert.equal((await api('POST', `/v1/customers/${gone.id}/redact`)).status, 200);
      const byId = await api<Problem>('POST', '/v1/orders', { body: { items, customer_id: gone.id } });
      assert.deepEqual([byId.status, byId.body.code], [409, 'invalid_state_transition']);
      // The original email is no longer on record: it makes a new customer.
      const byEmail = await api<OrderObject>('POST', '/v1/orders', {
        body: { items, customer: { email: 'gone@example.com' } },
      });
      assert.equal(byEmail.status, 201);
      assert.notEqual(byEmail.body.customer.id, gone.id);

      // An order that took the customer before the redaction committed counts itself on the customer's
      // row after it: its event's effect finds the customer redacted and refuses, so nothing is written.
      const tenantId = (await api<{ tenant: { id: string } }>('GET', '/v1/users/me')).body.tenant.id;
      const ordersBefore = (await api<Page<OrderObject>>('GET', '/v1/orders?limit=1')).body.total;
      await assert.rejects(
        ctx.deps.store.transaction((trx) =>
          ctx.deps.events.emit(trx, {
            tenantId,
            type: 'order.created',
            objectType: 'order',
            object: {
              ...byEmail.body,
              id: 'ord_racing',
              customer: { ...byEmail.body.customer, id: gone.id },
            },
          }),
        ),
        (error: Error & { code?: string }) => error.code === 'invalid_state_transition',
      );
      assert.equal((await api<Page<OrderObject>>('GET', '/v1/orders?limit=1')).body.total, ordersBefore);
      assert.equal((await api<CustomerObject>('GET', `/v1/customers/${gone.id}`)).body.orders_count, 0);
    });

    it('concurrent orders with one new email make exactly one customer', async () => {
      const product = (
        await api<ProductObject>('POST', '/v1/products', { body: { name: 'Rush', price: 100, stock: 100 } })
      ).body;
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          api<OrderObject>('POST', '/v1/orders', {
            body: {
              items: [{ product_id: product.id, quantity: 1 }],
              customer: { email: 'rush@example.com' },
            },
          }),
        ),
      );
      assert.ok(results.every((r) => r.status === 201));
      assert.equal(new Set(results.map((r) => r.body.customer.id)).size, 1);
      const found = await api<Page<CustomerObject>>('GET', '/v1/customers?q=rush%40example');
      assert.equal(found.body.total, 1);
      assert.equal(found.body.data[0]?.orders_count, 10);
    });

    it('lists by every sort with cursors, and searches email, name and phone', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      for (let i = 0; i < 7; i++) {
        await create({ email: `list${i}@example.com`, name: `Person ${i}`, phone: `+1555000${i}` }, shop);
      }
      for (const sort of ['-created', 'created', '-total_spent', 'email']) {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const page: { body: Page<CustomerObject> } = await shop<Page<CustomerObject>>(
            'GET',
            `/v1/customers?sort=${sort}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          ids.push(...page.body.data.map((c) => c.id));
          cursor = page.body.next_cursor;
        } while (cursor !== null);
        assert.equal(new Set(ids).size, 7, sort);
      }
      const byEmail = await shop<Page<CustomerObject>>('GET', '/v1/customers?sort=email&limit=2');
      assert.deepEqual(
        byEmail.body.data.map((c) => c.email),
        ['list0@example.com', 'list1@example.com'],
      );
      assert.equal((await shop<Page<CustomerObject>>('GET', '/v1/customers?q=person%204')).body.total, 1);
      assert.equal((await shop<Page<CustomerObject>>('GET', '/v1/customers?q=5550003')).body.total, 1);
      assert.equal((await shop<Page<CustomerObject>>('GET', '/v1/customers')).body.total, 7);
    });

    it('pages a tag in every sort, with a time range and with q, as the whole list filtered', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      for (let i = 0; i < 9; i++) {
        const tags = i % 3 === 0 ? ['gold'] : i % 3 === 1 ? ['gold', 'press'] : [];
        await create(
          { email: `tagged${i}@example.com`, name: `Tagged ${i % 2 ? 'odd' : 'even'}`, tags },
          shop,
        );
      }
      const all = async (query: string) => {
        const ids: string[] = [];
        let cursor: string | null = null;
        let total = -1;
        do {
          const page: { status: number; body: Page<CustomerObject> } = await shop<Page<CustomerObject>>(
            'GET',
            `/v1/customers?${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          assert.equal(page.status, 200, JSON.stringify(page.body));
          ids.push(...page.body.data.map((c) => c.id));
          total = page.body.total;
          cursor = page.body.next_cursor;
        } while (cursor !== null);
        assert.equal(total, ids.length, query);
        return ids;
      };
      const everyone = (await shop<Page<CustomerObject>>('GET', '/v1/customers?limit=100')).body.data;
      const gold = new Set(everyone.filter((c) => c.tags.includes('gold')).map((c) => c.id));
      const odd = new Set(everyone.filter((c) => c.name?.endsWith('odd')).map((c) => c.id));
      for (const sort of ['-created', 'created', '-total_spent', 'email']) {
        const whole = await all(`sort=${sort}`);
        assert.deepEqual(
          await all(`sort=${sort}&tag=gold`),
          whole.filter((id) => gold.has(id)),
          sort,
        );
        assert.deepEqual(
          await all(`sort=${sort}&tag=gold&q=odd`),
          whole.filter((id) => gold.has(id) && odd.has(id)),
          sort,
        );
      }
      // A range from the fourth customer's creation on: the tag's rows in it, by both bounds.
      const oldest = [...everyone].reverse();
      const from = encodeURIComponent((oldest[3] as CustomerObject).created);
      const to = encodeURIComponent((oldest[7] as CustomerObject).created);
      const inRange = await all(`created_from=${from}&created_to=${to}`);
      assert.ok(inRange.length >= 5);
      assert.deepEqual(
        await all(`created_from=${from}&created_to=${to}&tag=gold`),
        inRange.filter((id) => gold.has(id)),
      );
      assert.equal((await all('tag=press')).length, 3);
    });
  });
}
