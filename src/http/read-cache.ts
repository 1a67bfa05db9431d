import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { CompiledQuery } from 'kysely';
import { LRUCache } from 'lru-cache';
import { commitCount } from '../db/commit-mark.js';
import type { Store } from '../db/store.js';
import { entityTag, type OnSendDone } from './etag.js';

/**
 * An exact cache of catalog answers: the bytes a GET of products or variants sent (in the
 * caller's version), per tenant and normalized request, each kept with the catalog version it was
 * read at (migration 0033: moved in the transaction of every write of the tenant's products or
 * variants, by triggers). A request takes the current version (`catalogVersions` below) and is
 * answered from the cache only when the entry's version is that one; otherwise it runs and its
 * answer replaces the entry. The version is taken before the answer's own queries, so an entry
 * never holds data older than its version: no read after an acknowledged write, in this process
 * or another, is answered from before it.
 *
 * Routes opt in with `config.cache: 'catalog'` (route-hooks.ts attaches `lookup` and `keep`).
 */

/**
 * Bytes of answers kept at most, across tenants (least recently used go first): about a thousand
 * pages of 20 products. Twice this left the server 10-15 MiB larger at its peak under load
 * (bench/catalog.ts at 100,000 products, whose crawl to the middle fills the cache).
 */
const MAX_BYTES = 8 * 1024 * 1024;

interface Entry {
  version: number;
  body: string;
  etag: string;
}

interface Pending {
  key: string;
  version: number;
  hit: boolean;
}

export type ReadCache = ReturnType<typeof createReadCache>;

/**
 * A cache of a route's answers, attached where a route's `config.cache` names one (the catalog's
 * below, or a module's own: src/modules/carts/carts.answers.ts) by route-hooks.ts: `lookup`
 * (preHandler, last) answers from it or lets the handler run, `keep` (onSend, after the version
 * transform) keeps what the handler answered, and `answered` tells whether the request was
 * answered from it (its body is final: no version transform again).
 */
export interface RouteAnswerCache {
  /**
   * `lookup` runs before validation (preValidation) rather than after it: for a route whose
   * answers are kept by parameters only, so that a request answered from the cache is one whose
   * parameters passed validation before, and whose headers and query validation cannot refuse.
   */
  beforeValidation?: boolean;
  lookup(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
  keep(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void;
  answered(request: FastifyRequest): boolean;
}

/** Keys of a plain object in order, nested ones too: one key per meaning of a query. */
function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stable(item)}`).join(',')}}`;
}

/**
 * The tenants' catalog versions: `current(tenantId, then, fail)` calls `then` with it. On PostgreSQL
 * each is read from the store on every request. On SQLite each is kept as last read until anything
 * is committed to the store, by any connection of any process, which the store's commit marks tell
 * for the cost of one `pread` shared by the requests received together (`commitCount`,
 * src/db/commit-mark.ts): a read transaction of the version costs more than the rest of a cached
 * answer. A version read while a commit happened is kept only when no newer mark had been seen by
 * then, and a kept one is dropped by the next mark: never older than the last commit.
 */
function catalogVersions(
  store: Store,
): (tenantId: string, then: (version: number) => void, fail: (error: Error) => void) => void {
  // Every request of a cached route reads it: written once, not built and compiled per request.
  const versionSql = `SELECT version FROM catalog_versions WHERE tenant_id = ${store.dialect === 'sqlite' ? '?' : '$1'}`;
  async function read(tenantId: string): Promise<number> {
    const { rows } = await store.db.executeQuery<{ version: number | string }>(
      CompiledQuery.raw(versionSql, [tenantId]),
    );
    return rows[0] === undefined ? 0 : Number(rows[0].version);
  }
  const marks = store.commitMarks;
  if (marks === undefined) return (tenantId, then, fail) => void read(tenantId).then(then, fail);
  const commits = commitCount(marks);
  const known = new Map<string, number>();
  // The commit count `known` holds for: a read that started at another must not refill it.
  let generation = -1;
  return function current(tenantId, then, fail) {
    commits.after((count) => {
      if (count !== generation) {
        known.clear();
        generation = count;
      }
      const version = known.get(tenantId);
      if (version === undefined) {
        read(tenantId).then((fresh) => {
          if (generation === count) known.set(tenantId, fresh);
          then(fresh);
        }, fail);
        return;
      }
      try {
        then(version);
      } catch (error) {
        fail(error as Error); // the batch's other requests go on
      }
    });
  };
}

export function createReadCache(
  deps: { store: Store },
  options: { maxBytes?: number } = {},
): RouteAnswerCache & { clear(): void } {
  const entries = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? MAX_BYTES,
    sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
  });
  const pending = new WeakMap<FastifyRequest, Pending>();
  const catalogVersion = catalogVersions(deps.store);

  return {
    /** Whether the request was answered from the cache (its body is final: no transform again). */
    answered(request: FastifyRequest): boolean {
      return pending.get(request)?.hit === true;
    },

    /**
     * preHandler: answers from the cache when its entry is of the catalog's current version. A
     * callback hook: a version known in memory answers with no promise at all (on SQLite once the
     * commit count is read for the requests received meanwhile).
     */
    lookup(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const tenantId = request.principal?.tenant.id;
      if (tenantId === undefined) {
        done();
        return;
      }
      const key = [
        tenantId,
        request.apiVersion,
        request.routeOptions.url,
        stable(request.params),
        stable(request.query),
      ].join('\u0000');
      const answer = (version: number): void => {
        const entry = entries.get(key);
        const hit = entry !== undefined && entry.version === version;
        pending.set(request, { key, version, hit });
        if (!hit) {
          done();
          return;
        }
        reply.header('etag', entry.etag);
        reply.type('application/json; charset=utf-8');
        // Answered here: a callback hook that sends and does not call `done` ends the chain.
        reply.send(entry.body);
      };
      catalogVersion(tenantId, answer, done);
    },

    /** onSend, after the version transform: keeps a fresh 200 answer with the version read before it. */
    keep(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void {
      const state = pending.get(request);
      if (state === undefined || state.hit || reply.statusCode !== 200 || typeof payload !== 'string') {
        done(null, payload);
        return;
      }
      const etag = entityTag(payload);
      reply.header('etag', etag);
      entries.set(state.key, { version: state.version, body: payload, etag });
      done(null, payload);
    },

    /** Drops every entry (tests; a restore of the store under a running server). */
    clear(): void {
      entries.clear();
    },
  };
}
