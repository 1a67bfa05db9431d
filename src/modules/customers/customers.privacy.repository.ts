import { type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Database, EventsTable, IdempotencyKeysTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { OrderRow } from '../orders/index.js';

type AuditEntriesTable = Database['audit_entries'];

/**
 * The reads and writes of a customer's export and erasure that reach beyond the customers table:
 * its orders and their refunds, the events and recorded idempotent responses that carry its data,
 * their rewrites, and the recorded responses of those events' webhook deliveries. Events and idempotency keys have no index on what they are about, so both are
 * walked along their tenant's primary order in windows of a fixed number of rows, each window one
 * bounded statement that returns only the matching rows.
 */

/** Rows examined per statement while walking a tenant's events or idempotency keys. */
export const SCAN_WINDOW = 2000;

/** The customer's orders, oldest first, `limit` after the (created, id) key `after`. */
export async function orderPage(
  db: Db,
  tenantId: string,
  customerId: string,
  after: readonly [number, string] | undefined,
  limit: number,
): Promise<OrderRow[]> {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId);
  if (after) query = query.where((eb) => eb(eb.refTuple('created', 'id'), '>', eb.tuple(after[0], after[1])));
  return query.orderBy('created').orderBy('id').limit(limit).execute();
}

/** The customer's orders with the address each carries (lower-cased, as orders store them). */
export async function orderAddresses(
  db: Db,
  tenantId: string,
  customerId: string,
): Promise<{ id: string; customer_email: string }[]> {
  return db
    .selectFrom('orders')
    .select(['id', 'customer_email'])
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .execute();
}

/** Of `emails` (lower-cased), those another customer of the tenant holds or ordered with. */
export async function emailsOfOthers(
  db: Db,
  tenantId: string,
  customerId: string,
  emails: readonly string[],
): Promise<{ held: Set<string>; ordered: Set<string> }> {
  if (emails.length === 0) return { held: new Set(), ordered: new Set() };
  const [held, ordered] = await Promise.all([
    db
      .selectFrom('customers')
      .select('email_key')
      .where('tenant_id', '=', tenantId)
      .where('email_key', 'in', [...emails])
      .where('id', '<>', customerId)
      .execute(),
    db
      .selectFrom('orders')
      .select('customer_email')
      .distinct()
      .where('tenant_id', '=', tenantId)
      .where('customer_email', 'in', [...emails])
      .where('customer_id', '<>', customerId)
      .execute(),
  ]);
  return {
    held: new Set(held.map((row) => row.email_key)),
    ordered: new Set(ordered.map((row) => row.customer_email)),
  };
}

/** The ids of the refunds of the customer's orders. */
export async function refundIds(db: Db, tenantId: string, customerId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('refunds')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders as o')
        .select('o.id')
        .where('o.tenant_id', '=', tenantId)
        .where('o.customer_id', '=', customerId),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** The ids of the fulfilments and returns of the customer's orders. */
export async function shipmentIds(
  db: Db,
  tenantId: string,
  customerId: string,
): Promise<{ fulfillments: string[]; returns: string[] }> {
  const [fulfillments, returns] = await Promise.all(
    (['fulfillments', 'returns'] as const).map((table) =>
      db
        .selectFrom(table)
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('order_id', 'in', (eb) =>
          eb
            .selectFrom('orders as o')
            .select('o.id')
            .where('o.tenant_id', '=', tenantId)
            .where('o.customer_id', '=', customerId),
        )
        .execute(),
    ),
  );
  return {
    fulfillments: (fulfillments ?? []).map((row) => row.id),
    returns: (returns ?? []).map((row) => row.id),
  };
}

/**
 * Clears the personal and free-text fields of the customer's orders (the customer's email and
 * name, and `ORDER_FREE_TEXT` of customers.privacy.scrub.ts); amounts, items, statuses and
 * payments stay.
 */
export async function redactOrders(
  trx: Db,
  tenantId: string,
  customerId: string,
  orderAddress: string,
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({
      customer_email: orderAddress,
      customer_name: null,
      shipping_address: null,
      metadata: '{}',
      carrier: null,
      tracking_number: null,
    })
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .execute();
}

/** Clears the reason of every refund of the customer's orders (`REFUND_FREE_TEXT`); amounts and items stay. */
export async function redactRefunds(trx: Db, tenantId: string, customerId: string): Promise<void> {
  await trx
    .updateTable('refunds')
    .set({ reason: null })
    .where('tenant_id', '=', tenantId)
    .where('reason', 'is not', null)
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders as o')
        .select('o.id')
        .where('o.tenant_id', '=', tenantId)
        .where('o.customer_id', '=', customerId),
    )
    .execute();
}

/** Clears the tracking of every fulfilment of the customer's orders (carrier, number and link); items stay. */
export async function redactFulfillments(trx: Db, tenantId: string, customerId: string): Promise<void> {
  await trx
    .updateTable('fulfillments')
    .set({ carrier: null, tracking_number: null, tracking_url: null })
    .where('tenant_id', '=', tenantId)
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders as o')
        .select('o.id')
        .where('o.tenant_id', '=', tenantId)
        .where('o.customer_id', '=', customerId),
    )
    .execute();
}

/** The returns of the customer's orders with their items (whose reasons erasure clears). */
export async function returnItems(
  db: Db,
  tenantId: string,
  customerId: string,
): Promise<{ id: string; items: string }[]> {
  return db
    .selectFrom('returns')
    .select(['id', 'items'])
    .where('tenant_id', '=', tenantId)
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders as o')
        .select('o.id')
        .where('o.tenant_id', '=', tenantId)
        .where('o.customer_id', '=', customerId),
    )
    .execute();
}

export async function rewriteReturnItems(
  trx: Db,
  tenantId: string,
  id: string,
  items: string,
): Promise<void> {
  await trx
    .updateTable('returns')
    .set({ items })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/**
 * Forgets the recorded responses (`response_body`) of the deliveries of `eventIds`: a receiver's
 * answer may echo what it was sent, and it was sent the event before erasure.
 */
export async function forgetDeliveryResponses(
  trx: Db,
  tenantId: string,
  eventIds: readonly string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  await trx
    .updateTable('webhook_deliveries')
    .set({ response_body: null })
    .where('tenant_id', '=', tenantId)
    .where('event_id', 'in', [...eventIds])
    .where('response_body', 'is not', null)
    .execute();
}

/** What a customer's data is found by in stored documents. */
export interface Match {
  tenantId: string;
  customerId: string;
  /** Lower-cased addresses searched for as text; none: only what is about the customer. */
  emails: readonly string[];
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Whether the lower-cased `column` contains one of `emails`. */
function mentions(
  column: 'data' | 'extra' | 'response_body' | 'changes' | 'snapshot',
  emails: readonly string[],
) {
  return emails.map(
    (email) => sql<SqlBool>`lower(coalesce(${sql.ref(column)}, '')) like ${likePattern(email)} escape '\\'`,
  );
}

function customerOrders(eb: ExpressionBuilder<Database, keyof Database>, match: Match) {
  return eb
    .selectFrom('orders as o')
    .select('o.id')
    .where('o.tenant_id', '=', match.tenantId)
    .where('o.customer_id', '=', match.customerId);
}

function customerPayments(eb: ExpressionBuilder<Database, keyof Database>, match: Match) {
  return eb
    .selectFrom('payments as p')
    .select('p.id')
    .where('p.tenant_id', '=', match.tenantId)
    .where('p.order_id', 'in', customerOrders(eb, match));
}

function customerRefunds(eb: ExpressionBuilder<Database, keyof Database>, match: Match) {
  return eb
    .selectFrom('refunds as r')
    .select('r.id')
    .where('r.tenant_id', '=', match.tenantId)
    .where('r.order_id', 'in', customerOrders(eb, match));
}

function customerShipments(
  eb: ExpressionBuilder<Database, keyof Database>,
  match: Match,
  table: 'fulfillments' | 'returns',
) {
  if (table === 'fulfillments') {
    return eb
      .selectFrom('fulfillments as f')
      .select('f.id')
      .where('f.tenant_id', '=', match.tenantId)
      .where('f.order_id', 'in', customerOrders(eb, match));
  }
  return eb
    .selectFrom('returns as t')
    .select('t.id')
    .where('t.tenant_id', '=', match.tenantId)
    .where('t.order_id', 'in', customerOrders(eb, match));
}

/**
 * Whether an event's object is the customer, one of its orders, or one of their payments, refunds,
 * fulfilments or returns.
 */
function aboutCustomer(eb: ExpressionBuilder<Database, 'events'>, match: Match) {
  return eb.or([
    eb.and([eb('object_type', '=', 'customer'), eb('object_id', '=', match.customerId)]),
    eb.and([eb('object_type', '=', 'order'), eb('object_id', 'in', customerOrders(eb, match))]),
    eb.and([eb('object_type', '=', 'payment'), eb('object_id', 'in', customerPayments(eb, match))]),
    eb.and([eb('object_type', '=', 'refund'), eb('object_id', 'in', customerRefunds(eb, match))]),
    eb.and([
      eb('object_type', '=', 'fulfillment'),
      eb('object_id', 'in', customerShipments(eb, match, 'fulfillments')),
    ]),
    eb.and([
      eb('object_type', '=', 'return'),
      eb('object_id', 'in', customerShipments(eb, match, 'returns')),
    ]),
  ]);
}

/** An event found, with whether its object is the customer's own (else its text mentions an address). */
export type FoundEvent = EventsTable & { about: number };

/**
 * The events that may carry the customer's data: those whose object is the customer, one of its
 * orders, or one of their payments or refunds (`about` 1), and any other whose stored object or extra data
 * contains one of `match.emails` as text (a superset: the caller tells a whole address from one
 * inside a longer one). `ownOnly` keeps to the customer's own customer events; `window` is the
 * number of rows each statement examines.
 */
export async function* matchingEvents(
  db: Db,
  match: Match,
  { ownOnly = false, window: size = SCAN_WINDOW }: { ownOnly?: boolean; window?: number } = {},
): AsyncGenerator<FoundEvent[], void, undefined> {
  let after: [number, string] | undefined;
  for (;;) {
    const range = db.selectFrom('events').where('tenant_id', '=', match.tenantId);
    const seek = after;
    const from = seek
      ? range.where((eb) => eb(eb.refTuple('created', 'id'), '>', eb.tuple(seek[0], seek[1])))
      : range;
    const end = await from
      .select(['created', 'id'])
      .orderBy('created')
      .orderBy('id')
      .offset(size - 1)
      .limit(1)
      .executeTakeFirst();
    let window = from;
    if (end) {
      window = window.where((eb) => eb(eb.refTuple('created', 'id'), '<=', eb.tuple(end.created, end.id)));
    }
    const rows = await window
      .selectAll()
      .select((eb) => eb.case().when(aboutCustomer(eb, match)).then(1).else(0).end().as('about'))
      .where((eb) =>
        ownOnly
          ? eb.and([eb('object_type', '=', 'customer'), eb('object_id', '=', match.customerId)])
          : eb.or([
              aboutCustomer(eb, match),
              ...mentions('data', match.emails),
              ...mentions('extra', match.emails),
            ]),
      )
      .orderBy('created')
      .orderBy('id')
      .execute();
    if (rows.length > 0) yield rows.map((row) => ({ ...row, about: Number(row.about) }));
    if (!end) return;
    after = [end.created, end.id];
  }
}

export async function rewriteEvent(
  trx: Db,
  tenantId: string,
  id: string,
  changes: Partial<Pick<EventsTable, 'data' | 'extra'>>,
): Promise<void> {
  await trx
    .updateTable('events')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/**
 * The recorded idempotent responses about the customer: requests whose committed resource is the
 * customer, one of its orders, or one of their payments (paying marks the payment) or refunds
 * (`POST /orders/{id}/refunds` marks the refund), and any other whose response mentions one of
 * `match.emails`.
 */
export async function* matchingIdempotencyKeys(
  db: Db,
  match: Match,
  size = SCAN_WINDOW,
): AsyncGenerator<Pick<IdempotencyKeysTable, 'key' | 'response_body'>[], void, undefined> {
  let after: string | undefined;
  for (;;) {
    const range = db.selectFrom('idempotency_keys').where('tenant_id', '=', match.tenantId);
    const from = after === undefined ? range : range.where('key', '>', after);
    const end = await from
      .select('key')
      .orderBy('key')
      .offset(size - 1)
      .limit(1)
      .executeTakeFirst();
    const window = end ? from.where('key', '<=', end.key) : from;
    const rows = await window
      .select(['key', 'response_body'])
      .where('response_body', 'is not', null)
      .where((eb) =>
        eb.or([
          eb('resource_id', '=', match.customerId),
          eb('resource_id', 'in', customerOrders(eb, match)),
          eb('resource_id', 'in', customerPayments(eb, match)),
          eb('resource_id', 'in', customerRefunds(eb, match)),
          eb('resource_id', 'in', customerShipments(eb, match, 'fulfillments')),
          eb('resource_id', 'in', customerShipments(eb, match, 'returns')),
          ...mentions('response_body', match.emails),
        ]),
      )
      .orderBy('key')
      .execute();
    if (rows.length > 0) yield rows;
    if (!end) return;
    after = end.key;
  }
}

export async function rewriteIdempotencyBody(
  trx: Db,
  tenantId: string,
  key: string,
  body: string,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_body: body })
    .where('tenant_id', '=', tenantId)
    .where('key', '=', key)
    .execute();
}

/**
 * The audit entries that may carry the customer's data: those whose resource is the customer, one
 * of its orders, or one of their payments, refunds, fulfilments or returns, and any other whose
 * changes or snapshot contain one of `match.emails` as text (a superset, as for events). Walked
 * along the tenant's entries by id, `size` rows a statement; entries already redacted included (a
 * second redaction sweeps again).
 */
export async function* matchingAuditEntries(
  db: Db,
  match: Match,
  size = SCAN_WINDOW,
): AsyncGenerator<Pick<AuditEntriesTable, 'id' | 'resource_id' | 'changes' | 'snapshot'>[], void, undefined> {
  let after: string | undefined;
  for (;;) {
    const range = db.selectFrom('audit_entries').where('tenant_id', '=', match.tenantId);
    const from = after === undefined ? range : range.where('id', '>', after);
    const end = await from
      .select('id')
      .orderBy('id')
      .offset(size - 1)
      .limit(1)
      .executeTakeFirst();
    const window = end ? from.where('id', '<=', end.id) : from;
    const rows = await window
      .select(['id', 'resource_id', 'changes', 'snapshot'])
      .where((eb) =>
        eb.or([
          eb('resource_id', '=', match.customerId),
          eb('resource_id', 'in', customerOrders(eb, match)),
          eb('resource_id', 'in', customerPayments(eb, match)),
          eb('resource_id', 'in', customerRefunds(eb, match)),
          eb('resource_id', 'in', customerShipments(eb, match, 'fulfillments')),
          eb('resource_id', 'in', customerShipments(eb, match, 'returns')),
          ...mentions('changes', match.emails),
          ...mentions('snapshot', match.emails),
        ]),
      )
      .orderBy('id')
      .execute();
    if (rows.length > 0) yield rows;
    if (!end) return;
    after = end.id;
  }
}

/**
 * Rewrites an audit entry's changes and snapshot as erasure leaves them and marks it redacted: its
 * `content_digest` (and so its place in the chain) stays as sealed.
 */
export async function redactAuditEntry(
  trx: Db,
  tenantId: string,
  id: string,
  values: Pick<AuditEntriesTable, 'changes' | 'snapshot'>,
): Promise<void> {
  await trx
    .updateTable('audit_entries')
    .set({ ...values, redacted: 1 })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}
