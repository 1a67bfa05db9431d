import { randomBytes } from 'node:crypto';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * The SQLite baseline of bench/orders.ts: bare Fastify with one route, `POST /v1/orders`, that
 * writes what a paid order of ours leaves in the store, in one better-sqlite3 transaction of
 * prepared statements: the order (paid), its line, its payment (succeeded), its four events
 * (order.created, product.updated, payment.received, order.paid) (and, by their trigger, their
 * analytics queue rows),
 * the product's and the variant's stock, the customer's figures, the ledger entry with its two
 * postings and the wallet's balance, and the Idempotency-Key with its stored answer. It reads what
 * those writes need (the customer by email, the product and variant as taken). No auth, no
 * validation, no pricing, no provider, no second transaction. The store is a copy of ours, seeded
 * by our API (`DATA_DIR`), with the same schema, indexes and triggers, on the same pragmas.
 */

const file = path.join(process.env.DATA_DIR ?? '.', 'store.sqlite');
const db = new SqliteDatabase(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');

const tenant = db.prepare('SELECT id FROM tenants LIMIT 1').get() as { id: string };
const wallet = db
  .prepare("SELECT id FROM ledger_accounts WHERE tenant_id = ? AND currency = 'USD' AND type = 'wallet'")
  .get(tenant.id) as { id: string };
const clearing = 'platform_clearing_USD';

// The analytics queue's rows come from a trigger on events (migration 0045), as ours do; a store
// from before it has neither.

const id = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').slice(0, 24)}`;

const statements = {
  key: db.prepare(`INSERT INTO idempotency_keys (tenant_id, key, fingerprint, state, locked_until,
    response_status, response_body, resource_id, created) VALUES (?, ?, ?, 'completed', ?, 201, ?, ?, ?)`),
  customer: db.prepare(`SELECT id, name, total_spent FROM customers WHERE tenant_id = ? AND email_key = ?`),
  product: db.prepare(`UPDATE products SET stock = stock - ?, updated = ? WHERE tenant_id = ? AND id = ?
    RETURNING id, name, category, currency, stock`),
  variant: db.prepare(`UPDATE product_variants SET stock = stock - ?, updated = ?
    WHERE tenant_id = ? AND product_id = ? AND stock >= ? RETURNING id, price, title, sku, stock`),
  order: db.prepare(`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, discount_total,
    shipping_total, tax_total, shipping_paid, pricing, refunded_amount, customer_id, customer_email,
    customer_name, shipping_address, metadata, payment_id, restocked, source, created, updated, paid_at)
    VALUES (?, ?, 'paid', 'USD', ?, ?, 0, 0, 0, 0, ?, 0, ?, ?, ?, NULL, '{}', ?, 0, 'api', ?, ?, ?)`),
  item: db.prepare(`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id,
    variant_title, name, sku, category, quantity, unit_price, total, discount, tax, paid,
    refunded_quantity) VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, 0)`),
  payment: db.prepare(`INSERT INTO payments (id, tenant_id, order_id, provider, method, amount, currency,
    status, provider_reference, created, updated) VALUES (?, ?, ?, 'sandbox', ?, ?, 'USD', 'succeeded', ?, ?, ?)`),
  events: db.prepare(`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, extra, created)
    VALUES (?, ?, 'order.created', 'order', ?, ?, NULL, ?), (?, ?, 'product.updated', 'product', ?, ?, NULL, ?),
    (?, ?, 'payment.received', 'payment', ?, ?, NULL, ?), (?, ?, 'order.paid', 'order', ?, ?, NULL, ?)`),

  figures: db.prepare(`UPDATE customers SET orders_count = orders_count + 1, last_order_at = ?,
    total_spent = ?, total_spent_sort = total_spent_sort + ? WHERE tenant_id = ? AND id = ?`),
  entry: db.prepare(
    `INSERT INTO ledger_entries (id, type, currency, created) VALUES (?, 'payment', 'USD', ?)`,
  ),
  balance: db.prepare(`UPDATE ledger_accounts SET balance = balance + ?, postings = postings + 1, updated = ?
    WHERE id = ? RETURNING balance, postings`),
  postings: db.prepare(`INSERT INTO ledger_postings (id, entry_id, account_id, tenant_id, type, currency,
    amount, description, source_id, created, seq, balance_after)
    VALUES (?, ?, ?, ?, 'payment', 'USD', ?, ?, ?, ?, ?, ?), (?, ?, ?, NULL, 'payment', 'USD', ?, ?, ?, ?, NULL, NULL)`),
};

interface Body {
  customer: { email: string };
  items: { product_id: string; quantity: number }[];
  payment_method: string;
}

class Refused extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

const sell = db.transaction((body: Body, key: string) => {
  const now = Date.now();
  const item = body.items[0] as { product_id: string; quantity: number };
  const customer = statements.customer.get(tenant.id, body.customer.email.toLowerCase()) as
    { id: string; name: string | null; total_spent: string } | undefined;
  if (!customer) throw new Refused(404);
  const product = statements.product.get(item.quantity, now, tenant.id, item.product_id) as
    { id: string; name: string; category: string | null; currency: string; stock: number } | undefined;
  const variant = statements.variant.get(item.quantity, now, tenant.id, item.product_id, item.quantity) as
    { id: string; price: number; title: string; sku: string | null; stock: number } | undefined;
  if (!product || !variant) throw new Refused(422);
  const total = variant.price * item.quantity;
  const orderId = id('ord');
  const paymentId = id('pay');
  const order = {
    id: orderId,
    status: 'paid',
    items: [
      {
        product_id: product.id,
        variant_id: variant.id,
        name: product.name,
        variant_title: variant.title,
        sku: variant.sku,
        quantity: item.quantity,
        unit_price: variant.price,
        total,
        discount: 0,
        tax: 0,
      },
    ],
    subtotal: total,
    discount_total: 0,
    shipping_total: 0,
    tax_total: 0,
    total,
    discounts: [],
    shipping: null,
    taxes: [],
    currency: 'USD',
    customer: { id: customer.id, email: body.customer.email, name: customer.name },
    shipping_address: null,
    payment: { id: paymentId, status: 'succeeded', method: body.payment_method },
    metadata: {},
    source: 'api',
    cart_id: null,
    created: new Date(now).toISOString(),
    updated: new Date(now).toISOString(),
    paid_at: new Date(now).toISOString(),
    refunded_amount: 0,
    refundable_amount: total,
    refunds: [],
  };
  const text = JSON.stringify(order);
  statements.order.run(
    orderId,
    tenant.id,
    total,
    total,
    '{"discounts":[],"shipping":null,"taxes":[]}',
    customer.id,
    body.customer.email,
    customer.name,
    paymentId,
    now,
    now,
    now,
  );
  statements.item.run(
    orderId,
    tenant.id,
    product.id,
    variant.id,
    variant.title,
    product.name,
    variant.sku,
    product.category,
    item.quantity,
    variant.price,
    total,
    total,
  );
  statements.payment.run(
    paymentId,
    tenant.id,
    orderId,
    body.payment_method,
    total,
    `ch_${id('x')}`,
    now,
    now,
  );
  const eventIds = [id('evt'), id('evt'), id('evt'), id('evt')];
  const productText = JSON.stringify({ ...product, variants: [variant] });
  const paymentText = JSON.stringify({
    id: paymentId,
    order_id: orderId,
    amount: total,
    status: 'succeeded',
  });
  statements.events.run(
    eventIds[0],
    tenant.id,
    orderId,
    JSON.stringify({ ...order, status: 'pending', payment: { ...order.payment, status: 'pending' } }),
    now,
    eventIds[1],
    tenant.id,
    product.id,
    productText,
    now,
    eventIds[2],
    tenant.id,
    paymentId,
    paymentText,
    now,
    eventIds[3],
    tenant.id,
    orderId,
    text,
    now,
  );
  const spent = JSON.parse(customer.total_spent) as Record<string, number>;
  spent.USD = (spent.USD ?? 0) + total;
  statements.figures.run(now, JSON.stringify(spent), total, tenant.id, customer.id);
  const entryId = `je_${id('x')}`;
  statements.entry.run(entryId, now);
  const after = statements.balance.get(total, now, wallet.id) as { balance: number; postings: number };
  const description = `Payment ${paymentId} for order ${orderId}`;
  statements.postings.run(
    id('txn'),
    entryId,
    wallet.id,
    tenant.id,
    total,
    description,
    orderId,
    now,
    after.postings,
    after.balance,
    id('txn'),
    entryId,
    clearing,
    -total,
    description,
    orderId,
    now,
  );
  statements.key.run(tenant.id, key, 'f'.repeat(64), now + 120_000, text, orderId, now);
  return text;
});

const app = Fastify({ logger: false });
app.post('/v1/orders', async (request, reply) => {
  try {
    const text = sell(request.body as Body, String(request.headers['idempotency-key'] ?? id('key')));
    return await reply.code(201).type('application/json; charset=utf-8').send(text);
  } catch (error) {
    if (error instanceof Refused) return reply.code(error.status).send({ status: error.status });
    throw error;
  }
});
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`bare orders listening on ${address}\n`);
process.once(
  'SIGTERM',
  () =>
    void app.close().then(() => {
      db.close();
      process.exit(0);
    }),
);
