import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Store } from '../../db/store.js';
import { clientAddressKey, createFailureWindow } from '../../http/client-address.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { type Principal, tenantSummaryOf } from '../../lib/principal.js';
import { rememberLivemode } from '../tenants/index.js';
import * as repo from './api-keys.repository.js';

/**
 * Who a request is: an `Authorization` header resolved to a principal, from memory when this
 * process has seen the key valid within CACHE_TTL_MS, else from the store; the failures an address
 * may make; each key's last use, written in batches; a CORS preflight's answer; and the messages
 * by which processes tell each other to forget a key or a tenant.
 */

const KEY_PATTERN = /^[sp]k_(?:live|test)_[0-9A-Za-z]{40}$/;
const APP_TOKEN_PATTERN = /^sk_app_[0-9A-Za-z]{40}$/;
const BEARER_PATTERN = /^Bearer +(\S+) *$/i;
/** How long an authenticated key is trusted from memory before it is read again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const LAST_USED_FLUSH_MS = 2_000;
/** The store topic on which processes tell each other to drop cached principals. */
export const INVALIDATION_TOPIC = 'principals';
/** Origins whose preflight answer (allowed by some key or not) this process remembers. */
const ORIGIN_CACHE_MAX_ENTRIES = 10_000;
/**
 * Unknown, revoked or expired keys one client address may present per minute (per process). Past
 * that, a key this process has not seen valid is refused with 429 before it is looked up.
 */
export const KEY_FAILURES = { limit: 20, windowMs: 60_000, maxClients: 10_000 } as const;
export function hashKey(raw: string): string {
  // One-shot `hash`: about half the cost of a `createHash` object, and it runs on every request.
  return hash('sha256', raw, 'hex');
}

function unauthorized(
  code: 'authentication_required' | 'invalid_api_key' | 'api_key_expired',
  detail: string,
) {
  const error = code === 'authentication_required' ? 'Bearer' : 'Bearer error="invalid_token"';
  return new AppError(code, detail, { headers: { 'www-authenticate': error } });
}

interface CacheEntry {
  principal: Principal;
  cachedAt: number;
}

interface CacheEntry {
  principal: Principal;
  cachedAt: number;
}

/** A key's stored permissions, less any the house no longer declares. */
export function parsePermissions(json: string, vocabulary: Vocabulary): Permission[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed)
    ? parsed.filter((p): p is Permission => typeof p === 'string' && vocabulary.isPermission(p))
    : [];
}

/** A key's stored origins. */
export function parseOrigins(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;

export function createKeyAuthenticator(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  vocabulary: Vocabulary;
}) {
  const { store, clock, logger, vocabulary } = deps;
  /**
   * Principals by key digest. An entry older than CACHE_TTL_MS is read again before it is used,
   * but stays as the knowledge that the key was valid (see `authenticate`) until it is evicted or
   * the key is revoked; unknown keys never enter it.
   */
  const cache = new Map<string, CacheEntry>();
  const failures = createFailureWindow(KEY_FAILURES);
  const pendingLastUsed = new Map<string, number>();
  let flushTimer: NodeJS.Timeout | undefined;

  /**
   * Whether an origin is listed by some key that still works, by origin: what a CORS preflight
   * asks (it carries no key). Read again after CACHE_TTL_MS, dropped when a key is made, rolled or
   * revoked in any process.
   */
  const originCache = new LRUCache<string, { allowed: boolean; cachedAt: number }>({
    max: ORIGIN_CACHE_MAX_ENTRIES,
  });

  /** Forgets a key that was rolled or revoked, and the preflight answers its origins may have given. */
  function forgetKey(keyId: string): void {
    for (const [hash, entry] of cache) if (entry.principal.key.id === keyId) cache.delete(hash);
    originCache.clear();
  }

  function forgetTenant(tenantId: string): void {
    for (const [hash, entry] of cache) if (entry.principal.tenant.id === tenantId) cache.delete(hash);
  }

  /**
   * A message from any process (this one included): `key:<id>` or `tenant:<id>` changed, or
   * `origins:` (a key with origins was made).
   */
  function onInvalidation(payload: string): void {
    const [kind, id = ''] = payload.split(':', 2);
    if (kind === 'key') forgetKey(id);
    else if (kind === 'tenant') forgetTenant(id);
    else if (kind === 'origins') originCache.clear();
  }

  async function flushLastUsed(): Promise<void> {
    if (pendingLastUsed.size === 0) return;
    const batch = new Map(pendingLastUsed);
    try {
      await store.transaction((trx) => repo.writeLastUsed(trx, batch));
      // Only now forget them, so a listing never sees a gap between memory and the database.
      for (const [id, at] of batch) if (pendingLastUsed.get(id) === at) pendingLastUsed.delete(id);
    } catch (error) {
      logger.warn({ err: error }, 'could not record api key last_used; will retry');
    }
  }

  /**
   * Reads a key by its digest and caches its principal; a missing or revoked key is a 401, and a
   * failure of the client.
   */
  async function lookUp(hash: string, now: number, client: string): Promise<Principal> {
    const row = await repo.findKeyWithTenantByHash(store.db, hash);
    if (!row || row.revoked_at !== null) {
      cache.delete(hash);
      failures.record(client, now);
      throw unauthorized('invalid_api_key', 'The API key is not valid.');
    }
    const principal: Principal = {
      tenant: tenantSummaryOf(row),
      userId: row.user_id,
      key: {
        id: row.id,
        name: row.name,
        type: row.type,
        permissions: new Set(parsePermissions(row.permissions, vocabulary)),
        expiresAt: row.expires_at,
        ...(row.type === 'publishable' ? { allowedOrigins: new Set(parseOrigins(row.allowed_origins)) } : {}),
      },
    };
    // Events written for this store need not read its mode again.
    rememberLivemode(principal.tenant.id, principal.tenant.livemode);
    if (cache.size >= CACHE_MAX_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(hash, { principal, cachedAt: now });
    return principal;
  }

  /**
   * An installation token's principal, read from the store on every request and never cached: an
   * uninstall (which ends the installation in its transaction) stops the token at once in every
   * process, with no cache entry or notification to wait for.
   */
  async function lookUpApp(hash: string, now: number, client: string): Promise<Principal> {
    const row = await repo.findAppTokenWithTenantByHash(store.db, hash);
    if (!row || row.uninstalled_at !== null) {
      failures.record(client, now);
      throw unauthorized('invalid_api_key', 'The API key is not valid.');
    }
    return {
      tenant: tenantSummaryOf(row),
      userId: row.user_id,
      key: {
        id: row.id,
        name: row.plugin_name,
        type: 'secret',
        permissions: new Set(parsePermissions(row.permissions, vocabulary)),
        expiresAt: null,
      },
      app: { installationId: row.id, pluginId: row.plugin_id, pluginName: row.plugin_name },
    };
  }

  /** 429 for an address past KEY_FAILURES, until its oldest counted failure is a minute old. */
  function refuseIfFailing(client: string, now: number): void {
    const waitMs = failures.waitMs(client, now);
    if (waitMs <= 0) return;
    const seconds = Math.ceil(waitMs / 1000);
    throw new AppError(
      'rate_limited',
      `Too many unknown, revoked or expired API keys from this address; retry in ${seconds} s.`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }

  /** An expired key is a 401 (and a failure of the client); a usable one is noted as used now. */
  function usable(principal: Principal, now: number, address: string): Principal {
    if (principal.key.expiresAt !== null && principal.key.expiresAt <= now) {
      failures.record(clientAddressKey(address), now);
      throw unauthorized('api_key_expired', 'The API key has expired.');
    }
    pendingLastUsed.set(principal.key.id, now);
    return principal;
  }

  return {
    /**
     * Resolves an `Authorization` header sent from `address` (the client's IP) to a principal, or
     * throws the API's 401. A key trusted from memory is answered synchronously (no promise on
     * the hot path); otherwise the returned promise settles once the store answered, rejecting with
     * the 401.
     *
     * An address that presented KEY_FAILURES.limit unknown, revoked or expired keys within a minute
     * gets 429 `rate_limited` for any key this process has not seen valid, before the store is
     * read, until its oldest counted failure is a minute old (refusals are not counted, so a slot
     * opens again each time one ages out). A key this process has seen valid (cached, however long
     * ago, and not revoked since) is read and served as from any address: valid keys are not slowed.
     */
    authenticate(header: string | undefined, address: string): Principal | Promise<Principal> {
      const match = header === undefined ? null : BEARER_PATTERN.exec(header);
      if (!match?.[1]) {
        throw unauthorized(
          'authentication_required',
          'Send an API key as "Authorization: Bearer sk_live_...".',
        );
      }
      const raw = match[1];
      const app = APP_TOKEN_PATTERN.test(raw);
      if (!app && !KEY_PATTERN.test(raw)) throw unauthorized('invalid_api_key', 'The API key is not valid.');
      const hash = hashKey(raw);
      const now = clock.now();
      if (app) {
        const client = clientAddressKey(address);
        refuseIfFailing(client, now);
        return lookUpApp(hash, now, client);
      }
      const cached = cache.get(hash);
      if (cached && now - cached.cachedAt < CACHE_TTL_MS) return usable(cached.principal, now, address);
      const client = clientAddressKey(address);
      if (!cached) refuseIfFailing(client, now);
      return lookUp(hash, now, client).then((principal) => usable(principal, now, address));
    },

    /**
     * Whether some key that still works, of any tenant, lists `origin` (in normal form, see
     * `requestOrigin`) in its `allowed_origins`: how a CORS preflight, which carries no key, is
     * answered. Answered from memory when known within CACHE_TTL_MS, else once the store answered.
     */
    originAllowed(origin: string): boolean | Promise<boolean> {
      const now = clock.now();
      const cached = originCache.get(origin);
      if (cached && now - cached.cachedAt < CACHE_TTL_MS) return cached.allowed;
      return repo.liveKeyAllowsOrigin(store.db, origin, now).then((allowed) => {
        originCache.set(origin, { allowed, cachedAt: now });
        return allowed;
      });
    },

    /** Drops this process's cached principals of a tenant after its plan, limits or version changed. */
    forgetTenant,

    forgetKey,

    /** The last use of a key this process has seen and not written yet (0: none). */
    lastUsedOf(keyId: string): number {
      return pendingLastUsed.get(keyId) ?? 0;
    },

    /** Once `db` commits, every process answers preflights of the new origins afresh. */
    async originsAdded(db: Parameters<Store['notify']>[0]): Promise<void> {
      await store.notify(db, INVALIDATION_TOPIC, 'origins:');
      store.afterCommit(db, () => originCache.clear());
    },

    flushLastUsed,

    /**
     * Starts the last_used flush and listens for other processes' revocations and tenant changes,
     * so a revoked key stops working everywhere at once, not when a cache entry runs out.
     */
    start(): void {
      if (flushTimer === undefined) {
        store.listen(INVALIDATION_TOPIC, onInvalidation, () => {
          cache.clear();
          originCache.clear();
        });
      }
      flushTimer ??= setInterval(() => void flushLastUsed(), LAST_USED_FLUSH_MS);
      flushTimer.unref();
    },

    async stop(): Promise<void> {
      if (flushTimer) clearInterval(flushTimer);
      flushTimer = undefined;
      await flushLastUsed();
    },
  };
}
