import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { CompiledQuery } from 'kysely';
import { LRUCache } from 'lru-cache';
import { commitCount } from '../../db/commit-mark.js';
import type { Store } from '../../db/store.js';
import { entityTag, type OnSendDone } from '../../http/etag.js';
import type { RouteAnswerCache } from '../../http/read-cache.js';
import type { Clock } from '../../lib/clock.js';
import type { CartAnswer, CartShopper } from './carts.service.js';

/**
 * The shopper's cart answers kept (`GET /store/carts/{id}`): the bytes sent for a cart, per tenant,
 * version asked for and cart, each with the stamp of what it was priced from, read before the
 * answer's own queries in one statement: the cart's `revision` (moved by every write of its row
 * and lines) and the tenant's catalog and pricing versions (moved by every write of its products
 * and variants, and of its discounts and their uses, customers' emails, rates and settings; one
 * row of `catalog_versions`, migrations 0033 and 0044, by triggers in the writes' transactions). An answer is served again only while its
 * stamp is the current one and the time is before `until` (the first instant its pricing could
 * read otherwise with nothing stored changed: a discount starting or ending, the hold running out,
 * the cart expiring; carts.pricing.ts), so no read after an acknowledged write, in this process or
 * another, and no read after such an instant is answered from before it.
 *
 * The stamp costs one read of the store. On SQLite it is not read again while nothing has been
 * committed to the store since it was, which its commit marks tell for one `pread` shared by the
 * requests received together (src/db/commit-mark.ts). A request with a shopper's `X-Customer-Token` is served a kept answer
 * only when the token signs in the cart's own customer (as a fresh read would show it; it would
 * bind a cart of nobody, and refuse another's): the token is checked at every such request.
 */

/** Bytes of answers kept at most (least recently used go first): about 5,000 carts of three lines. */
const MAX_BYTES = 8 * 1024 * 1024;

interface Entry {
  /** What it was priced from: `revision.catalog.pricing`. */
  stamp: string;
  /** The answer holds from `from` (when it was priced) until `until`. */
  from: number;
  until: number;
  /** The cart's customer as shown. */
  customerId: string | null;
  body: string;
  etag: string;
  /** The commit count (SQLite) at which the stamp was last found current. */
  checked: number;
}

interface Pending {
  key: string;
  hit: boolean;
  /** Read before the handler's queries; undefined for a cart not found. */
  stamp?: string | undefined;
  count?: number | undefined;
  /** What the handler answered holds (set by `holds`). */
  answer?: Pick<Entry, 'from' | 'until' | 'customerId'>;
}

export interface CartAnswersDeps {
  store: Store;
  clock: Clock;
  /** The customer a shopper's token signs in, if any. */
  shopperFor: (tenantId: string, token: string) => Promise<CartShopper | null>;
}

export type CartAnswers = ReturnType<typeof createCartAnswers>;

export function createCartAnswers(deps: CartAnswersDeps, options: { maxBytes?: number } = {}) {
  const { store, clock } = deps;
  const entries = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? MAX_BYTES,
    sizeCalculation: (entry, key) => entry.body.length + key.length + 96,
  });
  const pending = new WeakMap<FastifyRequest, Pending>();
  const commits = store.commitMarks === undefined ? undefined : commitCount(store.commitMarks);
  // Read at every request that is not answered from memory: written once, not built per request.
  const [cart, tenant] = store.dialect === 'sqlite' ? ['?', '?'] : ['$1', '$2'];
  const stampSql = `SELECT c.revision AS revision, v.version AS catalog, v.pricing_version AS pricing
    FROM carts c LEFT JOIN catalog_versions v ON v.tenant_id = c.tenant_id
    WHERE c.id = ${cart} AND c.tenant_id = ${tenant}`;

  type Version = number | string | null;
  async function stampOf(tenantId: string, cartId: string): Promise<string | undefined> {
    const { rows } = await store.db.executeQuery<{ revision: Version; catalog: Version; pricing: Version }>(
      CompiledQuery.raw(stampSql, [cartId, tenantId]),
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return `${Number(row.revision)}.${Number(row.catalog ?? 0)}.${Number(row.pricing ?? 0)}`;
  }

  function serve(reply: FastifyReply, state: Pending, entry: Entry): void {
    state.hit = true;
    reply.header('etag', entry.etag);
    reply.type('application/json; charset=utf-8');
    // Answered here: a callback hook that sends and does not call `done` ends the chain.
    reply.send(entry.body);
  }

  const answers = {
    // Kept by the cart's id alone, which passed validation when its answer was kept; the route's
    // one header (`X-Customer-Token`, any string) cannot fail it: a kept answer skips validation.
    beforeValidation: true,

    answered(request: FastifyRequest): boolean {
      return pending.get(request)?.hit === true;
    },

    /**
     * preValidation: answers from a kept answer that still holds. A callback hook: on SQLite, with
     * nothing committed since its stamp was read and no shopper's token, with no promise at all,
     * once the commit count is read for the requests received meanwhile (`CommitCount`).
     */
    lookup(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const tenantId = request.principal?.tenant.id;
      const cartId = (request.params as { id?: string }).id;
      if (tenantId === undefined || cartId === undefined) {
        done();
        return;
      }
      const key = `${tenantId}\u0000${request.apiVersion}\u0000${cartId}`;
      const state: Pending = { key, hit: false };
      pending.set(request, state);
      const token = request.headers['x-customer-token'];
      const decide = (count: number | undefined): void => {
        const now = clock.now();
        const entry = entries.get(key);
        const timely = entry !== undefined && entry.from <= now && now < entry.until;
        if (timely && count !== undefined && entry.checked === count && token === undefined) {
          serve(reply, state, entry);
          return;
        }
        const found = async (): Promise<Entry | undefined> => {
          state.stamp = await stampOf(tenantId, cartId);
          state.count = count;
          if (entry === undefined || !timely || state.stamp !== entry.stamp) return undefined;
          if (count !== undefined) entry.checked = count;
          if (token === undefined) return entry;
          const shopper = await deps.shopperFor(tenantId, typeof token === 'string' ? token : '');
          return shopper !== null && shopper.id === entry.customerId ? entry : undefined;
        };
        found().then(
          (kept) => {
            if (kept === undefined) done();
            else serve(reply, state, kept);
          },
          () => done(), // the handler reads again, and answers what it meets
        );
      };
      if (commits === undefined) decide(undefined);
      else {
        commits.after((count) => {
          try {
            decide(count);
          } catch (error) {
            done(error as Error); // the batch's other requests go on
          }
        });
      }
    },

    /** The handler's part: how long the answer it gives holds (carts.service.ts's `read`). */
    holds(request: FastifyRequest, answer: CartAnswer): void {
      const state = pending.get(request);
      if (state === undefined || answer.until === null) return;
      state.answer = { from: answer.pricedAt, until: answer.until, customerId: answer.cart.customer_id };
    },

    /** onSend, after the version transform: keeps a fresh 200 answer with the stamp read before it. */
    keep(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void {
      const state = pending.get(request);
      if (
        state === undefined ||
        state.hit ||
        state.stamp === undefined ||
        state.answer === undefined ||
        reply.statusCode !== 200 ||
        typeof payload !== 'string'
      ) {
        done(null, payload);
        return;
      }
      const etag = entityTag(payload);
      reply.header('etag', etag);
      entries.set(state.key, {
        stamp: state.stamp,
        ...state.answer,
        body: payload,
        etag,
        checked: state.count ?? 0,
      });
      done(null, payload);
    },

    /** Drops every kept answer (tests; a restore of the store under a running server). */
    clear(): void {
      entries.clear();
    },
  } satisfies RouteAnswerCache & Record<string, unknown>;
  return answers;
}
