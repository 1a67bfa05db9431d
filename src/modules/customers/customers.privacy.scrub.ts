/**
 * What erasure does to a stored JSON document (an event's object, a recorded idempotent response),
 * as pure functions: the redaction rewrites stored copies with these so that every copy of a
 * customer or order reads as the redacted row does, in whichever API version it was stored.
 */

/** The address a redacted customer's `email` becomes: unique per customer and undeliverable (RFC 2606). */
export function redactedAddress(customerId: string): string {
  return `redacted+${customerId}@invalid`;
}

/** What one redaction erases. */
export interface Erasure {
  customerId: string;
  /** The customer's redacted `email`. */
  address: string;
  /** The same, lower-cased: what its orders carry (orders keep emails lower-cased). */
  orderAddress: string;
  /** The customer's orders (`ord_` ids). */
  orderIds: ReadonlySet<string>;
  /** The refunds of those orders (`re_` ids). */
  refundIds: ReadonlySet<string>;
  /** The fulfilments of those orders (`ful_` ids). */
  fulfillmentIds: ReadonlySet<string>;
  /** The returns of those orders (`ret_` ids). */
  returnIds: ReadonlySet<string>;
  /** Every address of the customer, lower-cased: replaced wherever it appears in its own objects. */
  emails: readonly string[];
  /**
   * The addresses no other customer holds or ordered with, lower-cased: replaced wherever they
   * appear in anything else (an address another customer also uses is theirs too, so it is left
   * in their objects and in free text that cannot be told apart).
   */
  exclusive: readonly string[];
}

type Json = unknown;

function isRecord(value: Json): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `emails` as whole addresses, case-insensitively: not inside a longer one (`ada@example.com` is
 * not found in `nada@example.com` or `ada@example.com.au`); a full stop after one ends a sentence.
 */
function addressPattern(emails: readonly string[]): RegExp {
  // Longest first, so an address that contains another is matched whole.
  const alternatives = [...emails]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  return new RegExp(`(?<![a-z0-9.!#$%&'*+/=?^_\`{|}~-])(?:${alternatives})(?![a-z0-9_-]|\\.[a-z0-9])`, 'gi');
}

/** Whether `text` holds one of `emails` as a whole address. */
export function mentionsEmail(text: string, emails: readonly string[]): boolean {
  return emails.length > 0 && addressPattern(emails).test(text);
}

/** Replaces every occurrence of `emails` (whole addresses, case-insensitively) in every string of `value` with `address`. */
export function replaceEmails(value: Json, emails: readonly string[], address: string): Json {
  if (emails.length === 0) return value;
  const pattern = addressPattern(emails);
  const walk = (node: Json): Json => {
    if (typeof node === 'string') return node.replace(pattern, address);
    if (Array.isArray(node)) return node.map(walk);
    if (isRecord(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(value);
}

/** Only the members a stored shape has are rewritten: an older version may lack some. */
function overwrite(body: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  for (const [key, value] of Object.entries(values)) if (key in out) out[key] = value;
  return out;
}

/** A customer object with its personal fields cleared; figures, flags and timestamps kept. */
export function redactCustomerObject(
  body: Record<string, unknown>,
  address: string,
): Record<string, unknown> {
  return overwrite(body, {
    email: address,
    name: null,
    phone: null,
    addresses: [],
    tags: [],
    note: null,
    metadata: {},
  });
}

/**
 * The free-text members of an order that erasure clears, with what each becomes: its shipping
 * address, its metadata and the shipping details the merchant typed (its customer's email and
 * name, and its refunds' reasons, are cleared beside them). Items, amounts, statuses, payment
 * and timestamps are not free text and stay.
 */
const ORDER_FREE_TEXT: Readonly<Record<string, unknown>> = {
  shipping_address: null,
  metadata: {},
  carrier: null,
  tracking_number: null,
};

/** The free-text members of a refund that erasure clears: its reason. Amounts, items and status stay. */
const REFUND_FREE_TEXT: Readonly<Record<string, unknown>> = { reason: null };

/** A refund object (`refund.created`, `POST /orders/{id}/refunds`, an order's `refunds`) with its reason cleared. */
export function redactRefundObject(body: Record<string, unknown>): Record<string, unknown> {
  return overwrite(body, REFUND_FREE_TEXT);
}

/**
 * The free text of a fulfilment that erasure clears: what the merchant typed of its tracking (the
 * carrier, the number and its link), in its `tracking` and in the stored row's columns. Items,
 * location and times stay.
 */
const TRACKING_FREE_TEXT: Readonly<Record<string, unknown>> = { carrier: null, number: null, url: null };
const FULFILLMENT_FREE_TEXT: Readonly<Record<string, unknown>> = {
  carrier: null,
  tracking_number: null,
  tracking_url: null,
};

/** A fulfilment object (`fulfillment.created`, an order's `fulfillments`) with its tracking cleared. */
export function redactFulfillmentObject(body: Record<string, unknown>): Record<string, unknown> {
  const out = overwrite(body, FULFILLMENT_FREE_TEXT);
  if (isRecord(body.tracking)) out.tracking = overwrite(body.tracking, TRACKING_FREE_TEXT);
  return out;
}

/** A return's items (its object's `items`, the stored row's JSON) with the reason of each cleared. */
export function redactReturnItems(items: unknown): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item: Json) => (isRecord(item) ? overwrite(item, { reason: null }) : item));
}

/** A return object (`return.*`, an order's `returns`) with its items' reasons cleared; units and status stay. */
export function redactReturnObject(body: Record<string, unknown>): Record<string, unknown> {
  return 'items' in body ? { ...body, items: redactReturnItems(body.items) } : { ...body };
}

function redactEach(
  list: unknown,
  redact: (body: Record<string, unknown>) => Record<string, unknown>,
): unknown {
  return Array.isArray(list) ? list.map((item: Json) => (isRecord(item) ? redact(item) : item)) : list;
}

/**
 * An order object with its customer's email and name, its free text, its refunds' reasons, its
 * fulfilments' tracking and its returns' reasons cleared.
 */
export function redactOrderObject(
  body: Record<string, unknown>,
  orderAddress: string,
): Record<string, unknown> {
  const out = overwrite(body, ORDER_FREE_TEXT);
  if (isRecord(body.customer)) out.customer = overwrite(body.customer, { email: orderAddress, name: null });
  if (Array.isArray(body.refunds)) out.refunds = redactEach(body.refunds, redactRefundObject);
  if (Array.isArray(body.fulfillments))
    out.fulfillments = redactEach(body.fulfillments, redactFulfillmentObject);
  if (Array.isArray(body.returns)) out.returns = redactEach(body.returns, redactReturnObject);
  return out;
}

/**
 * A stored document as erasure leaves it: the customer's own customer, order or refund object
 * redacted (told by its id) and every address of it replaced; anything else (a payment, a transfer,
 * another customer's order, a problem body) with the customer's exclusive addresses replaced.
 */
export function scrubDocument(body: Json, erasure: Erasure): Json {
  if (isRecord(body) && body.id === erasure.customerId) {
    return replaceEmails(redactCustomerObject(body, erasure.address), erasure.emails, erasure.address);
  }
  if (isRecord(body) && typeof body.id === 'string' && erasure.orderIds.has(body.id)) {
    return replaceEmails(redactOrderObject(body, erasure.orderAddress), erasure.emails, erasure.orderAddress);
  }
  if (isRecord(body) && typeof body.id === 'string' && erasure.refundIds.has(body.id)) {
    return replaceEmails(redactRefundObject(body), erasure.emails, erasure.address);
  }
  if (isRecord(body) && typeof body.id === 'string' && erasure.fulfillmentIds.has(body.id)) {
    return replaceEmails(redactFulfillmentObject(body), erasure.emails, erasure.address);
  }
  if (isRecord(body) && typeof body.id === 'string' && erasure.returnIds.has(body.id)) {
    return replaceEmails(redactReturnObject(body), erasure.emails, erasure.address);
  }
  return replaceEmails(body, erasure.exclusive, erasure.address);
}

/** What erasure puts in an audit entry in place of each of the person's values. */
export const REDACTED_VALUE = '[redacted]';

/**
 * `original` with every value that `scrubbed` (the same document as erasure leaves it) changed
 * replaced by `[redacted]`: members and items of equal shape are compared one by one, anything
 * else that differs is replaced whole.
 */
export function maskChanged(original: Json, scrubbed: Json): Json {
  if (JSON.stringify(original) === JSON.stringify(scrubbed)) return original;
  if (Array.isArray(original) && Array.isArray(scrubbed) && original.length === scrubbed.length) {
    return original.map((item: Json, at) => maskChanged(item, scrubbed[at]));
  }
  if (isRecord(original) && isRecord(scrubbed)) {
    return Object.fromEntries(
      Object.entries(original).map(([key, value]) => [
        key,
        key in scrubbed ? maskChanged(value, scrubbed[key]) : REDACTED_VALUE,
      ]),
    );
  }
  return REDACTED_VALUE;
}

/** A stored resource state of `resourceId` with the person's values `[redacted]`, as `scrubDocument` finds them. */
function redactState(state: Json, resourceId: string, erasure: Erasure): Json {
  if (!isRecord(state)) return maskChanged(state, scrubDocument(state, erasure));
  // An entry's state may lack its id: it is the entry's resource.
  const document = 'id' in state ? state : { ...state, id: resourceId };
  const masked = maskChanged(document, scrubDocument(document, erasure)) as Record<string, unknown>;
  if (!('id' in state)) delete masked.id;
  return masked;
}

/**
 * An audit entry of `resourceId` (its `changes`, `{field: {from, to}}`, and its `snapshot`, both
 * JSON) with the person's values replaced by `[redacted]`, or undefined when erasure changes
 * nothing in it. Each side of a change is read as the resource's state with that one field.
 */
export function redactAuditEntry(
  entry: { resource_id: string; changes: string | null; snapshot: string | null },
  erasure: Erasure,
): { changes: string | null; snapshot: string | null } | undefined {
  let changes = entry.changes;
  if (changes !== null) {
    const parsed = JSON.parse(changes) as Json;
    if (isRecord(parsed)) {
      const sides = (side: 'from' | 'to') =>
        Object.fromEntries(
          Object.entries(parsed).map(([field, change]) => [field, isRecord(change) ? change[side] : change]),
        );
      const from = redactState(sides('from'), entry.resource_id, erasure) as Record<string, unknown>;
      const to = redactState(sides('to'), entry.resource_id, erasure) as Record<string, unknown>;
      changes = JSON.stringify(
        Object.fromEntries(
          Object.entries(parsed).map(([field, change]) => [
            field,
            isRecord(change) ? { ...change, from: from[field], to: to[field] } : to[field],
          ]),
        ),
      );
    } else {
      changes = JSON.stringify(redactState(parsed, entry.resource_id, erasure));
    }
  }
  const snapshot =
    entry.snapshot === null
      ? null
      : JSON.stringify(redactState(JSON.parse(entry.snapshot) as Json, entry.resource_id, erasure));
  return changes === entry.changes && snapshot === entry.snapshot ? undefined : { changes, snapshot };
}

/**
 * Stored `text` scrubbed, or undefined when erasure changes nothing in it. JSON is parsed and
 * rewritten; anything else is text, in which the exclusive addresses are replaced.
 */
export function scrubText(text: string, erasure: Erasure): string | undefined {
  let out: string;
  try {
    out = JSON.stringify(scrubDocument(JSON.parse(text), erasure));
  } catch {
    out = replaceEmails(text, erasure.exclusive, erasure.address) as string;
  }
  return out === text ? undefined : out;
}
