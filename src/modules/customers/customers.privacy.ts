import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import { pagePresenter, type OrderObject } from '../orders/index.js';
import { eraseAnalytics } from './customers.privacy.analytics.js';
import { forgetLogin, loginSummary } from './customers.logins.repository.js';
import * as privacy from './customers.privacy.repository.js';
import type { CustomerExport, ExportEvent } from './customers.privacy.schemas.js';
import {
  type Erasure,
  mentionsEmail,
  redactAuditEntry,
  redactedAddress,
  redactReturnItems,
  scrubText,
} from './customers.privacy.scrub.js';
import * as repo from './customers.repository.js';
import type { CustomerObject } from './customers.schemas.js';
import { countDeltas, presentCustomer } from './customers.service.js';

/**
 * A customer's privacy rights (docs/customers.md, "Privacy: export and erasure"): the export of
 * everything held about the person (GDPR article 15) and its irreversible erasure (article 17).
 * Both find the same data: the customer, its orders and their refunds, fulfilments and returns, the
 * events about them or mentioning its addresses, and (erasure) the recorded idempotent responses,
 * the recorded responses of those events' webhook deliveries, the audit log's entries and the
 * analytics rollups.
 */

/** How much each statement reads: orders presented per batch, and rows examined per scan window. */
export interface PrivacySizes {
  orders: number;
  window: number;
}

/** Orders presented per batch (two queries each for their lines and payments); scan windows as the repository's. */
const SIZES: PrivacySizes = { orders: 200, window: privacy.SCAN_WINDOW };

/** Every address the customer is known by, lower-cased, and the orders that carry each. */
interface Addresses {
  all: string[];
  orderIds: Set<string>;
}

async function addressesOf(db: Db, row: repo.CustomerRow, window: number): Promise<Addresses> {
  const all = new Set([row.email.toLowerCase()]);
  // Addresses it had before a change of email are in its own customer events.
  for await (const rows of privacy.matchingEvents(
    db,
    { tenantId: row.tenant_id, customerId: row.id, emails: [] },
    { ownOnly: true, window },
  )) {
    for (const event of rows) {
      const email = (JSON.parse(event.data) as { email?: unknown }).email;
      if (typeof email === 'string') all.add(email.toLowerCase());
    }
  }
  const orderIds = new Set<string>();
  for (const order of await privacy.orderAddresses(db, row.tenant_id, row.id)) {
    all.add(order.customer_email);
    orderIds.add(order.id);
  }
  return { all: [...all], orderIds };
}

/** What erasing `row` means, read in `db`. */
async function erasureOf(db: Db, row: repo.CustomerRow, window: number): Promise<{ erasure: Erasure }> {
  const address = redactedAddress(row.id);
  const orderAddress = address.toLowerCase();
  const found = await addressesOf(db, row, window);
  const emails = found.all.filter((email) => email !== orderAddress);
  const others = await privacy.emailsOfOthers(db, row.tenant_id, row.id, emails);
  const refundIds = new Set(await privacy.refundIds(db, row.tenant_id, row.id));
  const shipments = await privacy.shipmentIds(db, row.tenant_id, row.id);
  return {
    erasure: {
      customerId: row.id,
      address,
      orderAddress,
      orderIds: found.orderIds,
      refundIds,
      fulfillmentIds: new Set(shipments.fulfillments),
      returnIds: new Set(shipments.returns),
      emails,
      exclusive: emails.filter((email) => !others.held.has(email) && !others.ordered.has(email)),
    },
  };
}

export type CustomerPrivacy = ReturnType<typeof createCustomerPrivacy>;

export function createCustomerPrivacy(deps: {
  store: Store;
  clock: Clock;
  events: EventService;
  /** Takes the queued analytics events in, in the erasure's transaction, before it rewrites the rollups. */
  analyticsRollups: { flushIn(trx: Db): Promise<void> };
  /** The audit log's chain, held while the erasure rewrites its entries. */
  audit: Pick<AuditRecorder, 'holdChain'>;
  /** Smaller batches and windows (tests walk many of them over a few rows). */
  sizes?: Partial<PrivacySizes>;
}) {
  const { store, clock, events } = deps;
  const sizes = { ...SIZES, ...deps.sizes };

  return {
    /**
     * The customer, every order (paged by (created, id), each page presented with two queries)
     * and the events that carry its data. Read without a snapshot: a change made meanwhile may
     * show in one part and not another.
     */
    async export(tenantId: string, id: string): Promise<CustomerExport> {
      const row = await repo.findCustomer(store.db, tenantId, id);
      if (!row) throw notFound('customer');
      const orders: OrderObject[] = [];
      let after: [number, string] | undefined;
      for (;;) {
        const page = await privacy.orderPage(store.db, tenantId, id, after, sizes.orders);
        if (page.length === 0) break;
        const present = await pagePresenter(store.db, page);
        orders.push(...page.map(present));
        const last = page[page.length - 1];
        if (!last || page.length < sizes.orders) break;
        after = [last.created, last.id];
      }
      const { erasure } = await erasureOf(store.db, row, sizes.window);
      const login = await loginSummary(store.db, tenantId, id, clock.now());
      const found: ExportEvent[] = [];
      const match = { tenantId, customerId: id, emails: erasure.exclusive };
      for await (const rows of privacy.matchingEvents(store.db, match, { window: sizes.window })) {
        for (const event of rows) {
          const mentioned =
            mentionsEmail(event.data, erasure.exclusive) ||
            (event.extra !== null && mentionsEmail(event.extra, erasure.exclusive));
          if (event.about !== 1 && !mentioned) continue;
          found.push({
            id: event.id,
            type: event.type,
            object_type: event.object_type,
            object_id: event.object_id,
            created: iso(event.created),
          });
        }
      }
      return {
        object: 'customer_export',
        generated: iso(clock.now()),
        customer: presentCustomer(row),
        // That a login exists, never its password hash.
        login:
          login === null
            ? null
            : {
                created: iso(login.created),
                password_set: iso(login.updated),
                active_sessions: login.sessions,
              },
        orders,
        events: found,
      };
    },

    /**
     * Erases the customer's personal data everywhere it is stored, in one transaction, keeping
     * every amount and figure. Redacting a redacted customer sweeps again (what a change racing
     * the first redaction left is erased too) and answers the customer as it is: no second event.
     */
    async redact(tenantId: string, id: string): Promise<CustomerObject> {
      const row = await store.transaction(async (trx) => {
        const before = await repo.findCustomer(trx, tenantId, id, true);
        if (!before) throw notFound('customer');
        const { erasure } = await erasureOf(trx, before, sizes.window);

        // The orders first: their row locks make any change of them wait for this commit.
        await privacy.redactOrders(trx, tenantId, id, erasure.orderAddress);
        await privacy.redactRefunds(trx, tenantId, id);
        await privacy.redactFulfillments(trx, tenantId, id);
        for (const ret of await privacy.returnItems(trx, tenantId, id)) {
          const items = JSON.stringify(redactReturnItems(JSON.parse(ret.items)));
          if (items !== ret.items) await privacy.rewriteReturnItems(trx, tenantId, ret.id, items);
        }

        const match = { tenantId, customerId: id, emails: erasure.exclusive };
        for await (const rows of privacy.matchingEvents(trx, match, { window: sizes.window })) {
          // The events about the customer's data and those rewritten: their deliveries' recorded
          // responses go too (a receiver may echo what it was sent).
          const delivered: string[] = [];
          for (const event of rows) {
            const data = scrubText(event.data, erasure);
            const extra = event.extra === null ? undefined : scrubText(event.extra, erasure);
            if (event.about === 1 || data !== undefined || extra !== undefined) delivered.push(event.id);
            if (data === undefined && extra === undefined) continue;
            await privacy.rewriteEvent(trx, tenantId, event.id, {
              ...(data === undefined ? {} : { data }),
              ...(extra === undefined ? {} : { extra }),
            });
          }
          await privacy.forgetDeliveryResponses(trx, tenantId, delivered);
        }
        for await (const rows of privacy.matchingIdempotencyKeys(trx, match, sizes.window)) {
          for (const key of rows) {
            const body = key.response_body === null ? undefined : scrubText(key.response_body, erasure);
            if (body !== undefined) await privacy.rewriteIdempotencyBody(trx, tenantId, key.key, body);
          }
        }
        // The audit log: the person's values in its entries become `[redacted]`; each entry keeps
        // its content digest, so the chain still verifies (audit.chain.ts). Under the chain's head:
        // a sealer chaining these entries (which reads them, then writes the changes it worked out
        // of them) is done before they are read here, or waits for this commit and reads them redacted.
        await deps.audit.holdChain(trx, tenantId);
        for await (const rows of privacy.matchingAuditEntries(trx, match, sizes.window)) {
          for (const entry of rows) {
            const redacted = redactAuditEntry(entry, erasure);
            if (redacted !== undefined) await privacy.redactAuditEntry(trx, tenantId, entry.id, redacted);
          }
        }
        // Rollups of events queued before this erasure are taken in now, under the queue's lock: none
        // taken in later can bring a name back (they read the events rewritten above).
        await deps.analyticsRollups.flushIn(trx);
        await eraseAnalytics(trx, { tenantId, customerId: id });
        // Its storefront login goes whole: the password hash, the sessions and pending resets.
        await forgetLogin(trx, tenantId, id);

        if (before.redacted === 1) return before;
        const changes = {
          email: erasure.address,
          email_key: erasure.orderAddress,
          name: null,
          phone: null,
          addresses: '[]',
          tags: '[]',
          note: null,
          metadata: '{}',
          redacted: 1,
          updated: clock.now(),
        };
        await repo.updateCustomer(trx, tenantId, id, changes);
        // Its tags go, and with them its place in each tag's count; it stays one of the customers.
        await repo.setTags(trx, tenantId, id, before.created, []);
        await repo.adjustCounts(
          trx,
          tenantId,
          countDeltas([], 1, countDeltas(JSON.parse(before.tags) as string[], -1)),
        );
        const after: repo.CustomerRow = { ...before, ...changes };
        await events.emit(trx, {
          tenantId,
          type: 'customer.redacted',
          objectType: 'customer',
          object: presentCustomer(after),
        });
        return after;
      });
      return presentCustomer(row);
    },
  };
}
