import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Store } from '../db/store.js';
import type { Clock } from '../lib/clock.js';
import type { IdempotencyState } from '../lib/idempotent-write.js';
import { AppError } from '../lib/errors.js';
import { buyerIpOf } from './auth.js';

/**
 * `Idempotency-Key` on POST (docs/api-conventions.md). The first request claims the key with a row
 * (`in_flight`, leased); its response is stored when it is sent, before the client sees it. A
 * repeat gets the stored response, a different request with the key 422, a concurrent one 409.
 * A 5xx result releases the key, unless the use case marked it (src/lib/idempotent-write.ts): then
 * only the lease is let go. A claim whose process died is taken over when its lease runs out.
 */

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
const LEASE_MS = 2 * 60 * 1000;

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` fingerprint alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprint(method: string, url: string, body: unknown): string {
  // `/v1/products/` is the route `/v1/products` (the router ignores one trailing slash): a retry
  // with or without it is the same request.
  const path = url.replace(/(?<=.)\/(?=\?|$)/, '');
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

/**
 * The space a request's `Idempotency-Key` is unique in, within its tenant. A secret key's are the
 * tenant's (its servers retry their own requests). A publishable key is in every shopper's browser:
 * its keys are the shopper's own, by buyer address and signed-in shopper, so one shopper's key can
 * never replay another's cart or order.
 */
function keySpace(request: FastifyRequest, header: string): string {
  if (request.principal?.key.type !== 'publishable') return header;
  const token = request.headers['x-customer-token'];
  const shopper = createHash('sha256')
    .update(`${buyerIpOf(request)}\n${typeof token === 'string' ? token : ''}`)
    .digest('base64url')
    .slice(0, 22);
  return `shopper:${shopper}:${header}`;
}

export function createIdempotency(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const db = store.db;

  async function claim(tenantId: string, key: string, print: string): Promise<Claimed | Replay> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = clock.now();
      // Not waited to disk (SQLite): lost in a power cut only with nothing after it committed.
      const inserted = await store.unsynced((unsynced) =>
        unsynced
          .insertInto('idempotency_keys')
          .values({
            tenant_id: tenantId,
            key,
            fingerprint: print,
            state: 'in_flight',
            locked_until: now + LEASE_MS,
            response_status: null,
            response_body: null,
            resource_id: null,
            created: now,
          })
          .onConflict((oc) => oc.columns(['tenant_id', 'key']).doNothing())
          .executeTakeFirst(),
      );
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { committed: null };

      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) continue;
      if (row.created <= now - IDEMPOTENCY_RETENTION_MS) {
        await db
          .deleteFrom('idempotency_keys')
          .where('tenant_id', '=', tenantId)
          .where('key', '=', key)
          .where('created', '=', row.created)
          .execute();
        continue;
      }
      if (row.fingerprint !== print) {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request; use a new key for a new request.',
        );
      }
      if (row.state === 'completed')
        return { status: row.response_status ?? 200, body: row.response_body ?? '' };
      if (row.locked_until > now) {
        throw new AppError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed; retry after it completes.',
        );
      }
      // The attempt that claimed the key died or failed before answering: take the claim over,
      // once, resuming whatever it committed.
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ locked_until: now + LEASE_MS })
        .where('tenant_id', '=', tenantId)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .where('locked_until', '=', row.locked_until)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { committed: row.resource_id };
    }
    throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is being processed.');
  }

  const inFlight = (state: IdempotencyState, on: Db = db) =>
    on
      .updateTable('idempotency_keys')
      .where('tenant_id', '=', state.tenantId)
      .where('key', '=', state.key)
      .where('state', '=', 'in_flight');

  /**
   * After a 5xx, which is not stored so that the client can retry: a key whose work committed
   * keeps its mark and only lets go of its lease (the retry resumes); any other key is released.
   */
  async function release(state: IdempotencyState): Promise<void> {
    await inFlight(state).set({ locked_until: 0 }).where('resource_id', 'is not', null).execute();
    await db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', state.tenantId)
      .where('key', '=', state.key)
      .where('state', '=', 'in_flight')
      .where('resource_id', 'is', null)
      .execute();
  }

  return {
    /** preHandler: claims the key, or answers from the stored response. */
    async begin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (request.method !== 'POST' || !request.principal) return;
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
        throw new AppError(
          'invalid_idempotency_key',
          'Idempotency-Key must be 1 to 255 printable ASCII characters.',
        );
      }
      const tenantId = request.principal.tenant.id;
      const key = keySpace(request, header);
      const outcome = await claim(tenantId, key, fingerprint(request.method, request.url, request.body));
      if ('committed' in outcome) {
        request.idempotency = { tenantId, key, committed: outcome.committed };
        return;
      }
      reply
        .code(outcome.status)
        .header('idempotent-replayed', 'true')
        .header(
          'content-type',
          outcome.status >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8',
        );
      await reply.send(outcome.body === '' ? undefined : outcome.body);
    },

    /**
     * onSend: stores the response (or releases the key on 5xx) before the client receives it; a
     * success as the route's `replayed` shows it again, when the route declares one.
     */
    async finish(
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      replayed?: (body: Record<string, unknown>) => Record<string, unknown>,
    ): Promise<void> {
      const state = request.idempotency;
      if (!state) return;
      request.idempotency = null;
      if (reply.statusCode >= 500) {
        // Best effort: when the store itself is what failed, the 5xx still goes out (a throw here
        // would replace it with a bare 500) and the claim is taken over once its lease runs out.
        await release(state).catch(() => undefined);
        return;
      }
      let body =
        typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      if (replayed && reply.statusCode < 400 && body !== '')
        body = JSON.stringify(replayed(JSON.parse(body) as Record<string, unknown>));
      const write = (on: Db) =>
        inFlight(state, on)
          .set({ state: 'completed', response_status: reply.statusCode, response_body: body })
          .execute();
      // A success whose use case marked the key committed that mark durably: should the stored
      // answer be lost in a power cut, a retry resumes the marked resource. So it is not waited to
      // disk (SQLite); any other answer is.
      const stored = reply.statusCode < 400 && state.marked === true ? store.unsynced(write) : write(db);
      if (reply.statusCode < 400) {
        // A success that cannot be recorded is not sent: the error handler answers 5xx instead,
        // so the key is let go as for any 5xx.
        await stored.catch(async (error: unknown) => {
          await release(state).catch(() => undefined);
          throw error;
        });
        return;
      }
      // An error answer comes from the error handler already: if it cannot be recorded (the store
      // is unreachable) it still goes out, since a throw here would become a bare 500; the claim is
      // taken over once its lease runs out.
      await stored.catch(() => undefined);
    },

    async purgeExpired(): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('created', '<', clock.now() - IDEMPOTENCY_RETENTION_MS)
        .execute();
    },
  };
}

interface Claimed {
  committed: string | null;
}

interface Replay {
  status: number;
  body: string;
}

export type Idempotency = ReturnType<typeof createIdempotency>;
