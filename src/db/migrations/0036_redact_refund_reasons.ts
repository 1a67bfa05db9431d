import { type Kysely, type RawBuilder, sql } from 'kysely';

/**
 * Erasure (`POST /customers/{id}/redact`) now also clears the free text the merchant wrote about
 * a customer's orders: each refund's `reason`, and each order's `carrier` and `tracking_number`.
 * The customers redacted before kept them. For every customer already redacted this clears them:
 *
 * - in the `refunds` and `orders` rows;
 * - in the stored events whose object is one of those orders or refunds (`order.*` with their
 *   `refunds`, `refund.created`), which queued webhook deliveries render when they are sent;
 * - in the recorded `Idempotency-Key` responses of requests that committed one of those orders,
 *   their payments or refunds (a replay answers the order or refund as it is now);
 * - the recorded responses (`response_body`) of the webhook deliveries of every event about the
 *   customer, its orders, their payments or refunds: a receiver may echo what it was sent.
 *
 * Amounts, items, statuses and timestamps stay. Frozen: the rewrite of stored objects below is
 * its own copy of what erasure does to those members (src/modules/customers/customers.privacy.scrub.ts
 * as it was when this was written). `down` leaves the erased text erased: it cannot come back.
 */

/** Events rewritten per statement. */
const BATCH = 500;

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `values` over the members `body` has: an object stored in an older shape may lack some. */
function overwrite(body: Record<string, Json>, values: Record<string, Json>): Record<string, Json> {
  const out = { ...body };
  for (const [key, value] of Object.entries(values)) if (key in out) out[key] = value;
  return out;
}

function redactRefund(body: Record<string, Json>): Record<string, Json> {
  return overwrite(body, { reason: null });
}

function redactOrder(body: Record<string, Json>): Record<string, Json> {
  const out = overwrite(body, { carrier: null, tracking_number: null });
  if (Array.isArray(body.refunds)) {
    out.refunds = body.refunds.map((refund: Json) => (isRecord(refund) ? redactRefund(refund) : refund));
  }
  return out;
}

/** Stored JSON of an order (`ord_`) or refund (`re_`) rewritten, or undefined when nothing changes. */
function rewrite(text: string): string | undefined {
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(body) || typeof body.id !== 'string') return undefined;
  const out = body.id.startsWith('ord_')
    ? redactOrder(body)
    : body.id.startsWith('re_')
      ? redactRefund(body)
      : body;
  const json = JSON.stringify(out);
  return json === JSON.stringify(body) ? undefined : json;
}

const redactedOrders = sql`SELECT o.id FROM orders o
  JOIN customers c ON c.tenant_id = o.tenant_id AND c.id = o.customer_id
  WHERE c.redacted = 1`;
const redactedPayments = sql`SELECT p.id FROM payments p WHERE p.order_id IN (${redactedOrders})`;
const redactedRefunds = sql`SELECT r.id FROM refunds r WHERE r.order_id IN (${redactedOrders})`;

/** Whether the event `e` is about a redacted customer, one of its orders, or their payments or refunds. */
function aboutRedacted(withCustomer: boolean): RawBuilder<unknown> {
  const orders = sql`(e.object_type = 'order' AND e.object_id IN (${redactedOrders}))
    OR (e.object_type = 'refund' AND e.object_id IN (${redactedRefunds}))`;
  if (!withCustomer) return sql`(${orders})`;
  return sql`(${orders}
    OR (e.object_type = 'payment' AND e.object_id IN (${redactedPayments}))
    OR (e.object_type = 'customer' AND e.object_id IN (SELECT id FROM customers WHERE redacted = 1)))`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE refunds SET reason = NULL
    WHERE reason IS NOT NULL AND order_id IN (${redactedOrders})`.execute(db);
  await sql`UPDATE orders SET carrier = NULL, tracking_number = NULL
    WHERE (carrier IS NOT NULL OR tracking_number IS NOT NULL) AND id IN (${redactedOrders})`.execute(db);

  // The events of those orders and refunds, in (created, id) order, a batch at a time.
  let after: { created: number; id: string } | undefined;
  for (;;) {
    const seek = after === undefined ? sql`` : sql`AND (e.created, e.id) > (${after.created}, ${after.id})`;
    const { rows } = await sql<{ id: string; created: number | string; data: string }>`
      SELECT e.id, e.created, e.data FROM events e
      WHERE ${aboutRedacted(false)} ${seek}
      ORDER BY e.created, e.id LIMIT ${BATCH}`.execute(db);
    for (const row of rows) {
      const data = rewrite(row.data);
      if (data !== undefined) await sql`UPDATE events SET data = ${data} WHERE id = ${row.id}`.execute(db);
    }
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < BATCH) break;
    after = { created: Number(last.created), id: last.id };
  }

  // Recorded responses: an order (its actions, and paying, which marks the payment) or a refund.
  const { rows: keys } = await sql<{ tenant_id: string; key: string; response_body: string }>`
    SELECT tenant_id, key, response_body FROM idempotency_keys
    WHERE response_body IS NOT NULL AND (resource_id IN (${redactedOrders})
      OR resource_id IN (${redactedPayments}) OR resource_id IN (${redactedRefunds}))`.execute(db);
  for (const key of keys) {
    const body = rewrite(key.response_body);
    if (body === undefined) continue;
    await sql`UPDATE idempotency_keys SET response_body = ${body}
      WHERE tenant_id = ${key.tenant_id} AND key = ${key.key}`.execute(db);
  }

  await sql`UPDATE webhook_deliveries SET response_body = NULL
    WHERE response_body IS NOT NULL
      AND event_id IN (SELECT e.id FROM events e WHERE ${aboutRedacted(true)})`.execute(db);
}

/** Erased text cannot come back; the earlier release reads the rows as they are. */
export async function down(): Promise<void> {
  // Nothing to undo.
}
