import type { FastifyReply, FastifyRequest } from 'fastify';
import { CompiledQuery } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Store } from '../db/store.js';
import { entityTag } from './etag.js';

/**
 * An exact cache of catalog answers: the bytes a GET of products or variants sent (in the
 * caller's version), per tenant and normalized request, each kept with the catalog version it was
 * read at (migration 0033: moved in the transaction of every write of the tenant's products or
 * variants, by triggers). A request reads the current version from the store, one indexed row,
 * and is answered from the cache only when the entry's version is that one; otherwise it runs
 * and its answer replaces the entry. The version is read before the answer's own queries, so an
 * entry never holds data older than its version: no read after an acknowledged write, in this
 * process or another, is answered from before it.
 *
 * Routes opt in with `config.cache: 'catalog'` (route-hooks.ts attaches `lookup` and `keep`).
 */

/** Bytes of answers kept at most, across tenants (least recently used go first). */
const MAX_BYTES = 16 * 1024 * 1024;

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

/** Keys of a plain object in order, nested ones too: one key per meaning of a query. */
function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stable(item)}`).join(',')}}`;
}

export function createReadCache(deps: { store: Store }, options: { maxBytes?: number } = {}) {
  const { store } = deps;
  const entries = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? MAX_BYTES,
    sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
  });
  const pending = new WeakMap<FastifyRequest, Pending>();

  // Every request of a cached route reads it: written once, not built and compiled per request.
  const versionSql = `SELECT version FROM catalog_versions WHERE tenant_id = ${store.dialect === 'sqlite' ? '?' : '$1'}`;

  async function catalogVersion(tenantId: string): Promise<number> {
    const { rows } = await store.db.executeQuery<{ version: number | string }>(
      CompiledQuery.raw(versionSql, [tenantId]),
    );
    return rows[0] === undefined ? 0 : Number(rows[0].version);
  }

  return {
    /** Whether the request was answered from the cache (its body is final: no transform again). */
    answered(request: FastifyRequest): boolean {
      return pending.get(request)?.hit === true;
    },

    /** preHandler: answers from the cache when its entry is of the catalog's current version. */
    async lookup(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const tenantId = request.principal?.tenant.id;
      if (tenantId === undefined) return undefined;
      const key = [
        tenantId,
        request.apiVersion,
        request.routeOptions.url,
        stable(request.params),
        stable(request.query),
      ].join('\u0000');
      const version = await catalogVersion(tenantId);
      const entry = entries.get(key);
      const hit = entry !== undefined && entry.version === version;
      pending.set(request, { key, version, hit });
      if (!hit) return undefined;
      reply.header('etag', entry.etag);
      reply.type('application/json; charset=utf-8');
      // Answered here: Fastify runs no handler for a reply sent and returned by a hook.
      return reply.send(entry.body);
    },

    /** onSend, after the version transform: keeps a fresh 200 answer with the version read before it. */
    async keep(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const state = pending.get(request);
      if (state === undefined || state.hit || reply.statusCode !== 200 || typeof payload !== 'string') {
        return payload;
      }
      const etag = entityTag(payload);
      reply.header('etag', etag);
      entries.set(state.key, { version: state.version, body: payload, etag });
      return payload;
    },

    /** Drops every entry (tests; a restore of the store under a running server). */
    clear(): void {
      entries.clear();
    },
  };
}
