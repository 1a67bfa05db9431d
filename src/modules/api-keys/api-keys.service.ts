import { hash } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Db, Store } from '../../db/store.js';
import { clientAddressKey, createFailureWindow } from '../../http/client-address.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { type Envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../lib/logger.js';
import { type KeyType, type Principal, tenantSummaryOf } from '../../lib/principal.js';
import { pairedStoreOf, rememberLivemode } from '../tenants/index.js';
import * as repo from './api-keys.repository.js';
import { assertHolds, assertOutlivedBy, keySpec, refuseApp } from './api-keys.rules.js';
import type { AuditRecorder } from '../audit/index.js';

export const KEY_PREFIX = 'sk_live_';
/** A publishable key: public, shown in full at every read, good for `/v1/store/*` only. */
export const PUBLISHABLE_KEY_PREFIX = 'pk_live_';
/** A key's mode: `live`, or `test` for its store's test mode (`sk_test_`, `pk_test_`). */
export type KeyMode = 'live' | 'test';
/** A key's prefix, by type and mode. */
export function keyPrefix(type: KeyType, mode: KeyMode): string {
  return `${type === 'publishable' ? 'pk' : 'sk'}_${mode}_`;
}
const KEY_PATTERN = /^[sp]k_(?:live|test)_[0-9A-Za-z]{40}$/;
/** A plugin installation token (src/modules/plugins): `sk_app_` + 40 base62. */
export const APP_TOKEN_PREFIX = 'sk_app_';
const APP_TOKEN_PATTERN = /^sk_app_[0-9A-Za-z]{40}$/;
const BEARER_PATTERN = /^Bearer +(\S+) *$/i;
const EXPIRING_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const MAX_ROLL_GRACE_SECONDS = 7 * 24 * 3600;
/** How long an authenticated key is trusted from memory before it is read again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const LAST_USED_FLUSH_MS = 2_000;
/** The store topic on which processes tell each other to drop cached principals. */
const INVALIDATION_TOPIC = 'principals';
/** Origins whose preflight answer (allowed by some key or not) this process remembers. */
const ORIGIN_CACHE_MAX_ENTRIES = 10_000;
/**
 * Unknown, revoked or expired keys one client address may present per minute (per process). Past
 * that, a key this process has not seen valid is refused with 429 before it is looked up.
 */
export const KEY_FAILURES = { limit: 20, windowMs: 60_000, maxClients: 10_000 } as const;

export interface ApiKeyObject {
  id: string;
  name: string;
  type: KeyType;
  /** `live`, or `test` for a key of the store's test mode. */
  mode: KeyMode;
  key: string;
  permissions: Permission[];
  allowed_origins: string[];
  status: 'Active' | 'Expiring';
  created: string;
  last_used: string | null;
  expires_at: string | null;
  /** The key's own mode (a live key may make a test key): false for a test key. */
  livemode: boolean;
}

export interface NewKeyInput {
  tenantId: string;
  userId: string;
  name: string;
  /** `secret` unless said. */
  type?: KeyType;
  /** The mode of the store `tenantId` (`live` unless said): the key's prefix says it. */
  mode?: KeyMode;
  /** Empty for a publishable key. */
  permissions: readonly Permission[];
  /** A publishable key's origins, already normalised (`allowedOrigins`); none for a secret key. */
  allowedOrigins?: readonly string[];
  expiresAt: number | null;
}

/** What `POST /api-keys` takes (its schema: api-keys.schemas.ts). */
export interface CreateKeyInput {
  name: string;
  type?: KeyType | undefined;
  /** The calling key's mode unless said: a key of the other mode belongs to the paired store. */
  mode?: KeyMode | undefined;
  permissions?: Permission[] | undefined;
  allowed_origins?: string[] | undefined;
  expires_at?: string | undefined;
}

export function hashKey(raw: string): string {
  // One-shot `hash`: about half the cost of a `createHash` object, and it runs on every request.
  return hash('sha256', raw, 'hex');
}

export function maskKey(last4: string, mode: KeyMode = 'live'): string {
  return `${keyPrefix('secret', mode)}****_****_****_${last4}`;
}

/**
 * A created or rolled key as an idempotent replay shows it: a secret key masked, since it is shown
 * once; a publishable key as it is, since it is public.
 */
export function keyMasked(body: Record<string, unknown>): Record<string, unknown> {
  return typeof body.key === 'string' && !body.key.startsWith('pk_')
    ? { ...body, key: maskKey(body.key.slice(-4), body.key.startsWith('sk_test_') ? 'test' : 'live') }
    : body;
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

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

export function createApiKeyService(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  vocabulary: Vocabulary;
  audit: AuditRecorder;
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

  /** A key's stored permissions, less any the house no longer declares. */
  function parsePermissions(json: string): Permission[] {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed)
      ? parsed.filter((p): p is Permission => typeof p === 'string' && vocabulary.isPermission(p))
      : [];
  }

  /**
   * Whether an origin is listed by some key that still works, by origin: what a CORS preflight
   * asks (it carries no key). Read again after CACHE_TTL_MS, dropped when a key is made, rolled or
   * revoked in any process.
   */
  const originCache = new LRUCache<string, { allowed: boolean; cachedAt: number }>({
    max: ORIGIN_CACHE_MAX_ENTRIES,
  });

  /** A key's stored origins. */
  function parseOrigins(json: string): string[] {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === 'string') : [];
  }

  function toObject(row: repo.ApiKeyRow, fullKey?: string): ApiKeyObject {
    const now = clock.now();
    const lastUsed = Math.max(row.last_used ?? 0, pendingLastUsed.get(row.id) ?? 0);
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      mode: row.mode,
      // A publishable key is public: shown in full at every read.
      key: row.public_key ?? fullKey ?? maskKey(row.last4, row.mode),
      permissions: parsePermissions(row.permissions),
      allowed_origins: parseOrigins(row.allowed_origins),
      status: row.expires_at !== null && row.expires_at - now <= EXPIRING_WINDOW_MS ? 'Expiring' : 'Active',
      created: iso(row.created),
      last_used: lastUsed > 0 ? iso(lastUsed) : null,
      expires_at: iso(row.expires_at),
      livemode: row.mode === 'live',
    };
  }

  /** Inserts a key inside the caller's transaction and returns it with its full value, once. */
  async function insertKey(db: Db, input: NewKeyInput): Promise<ApiKeyObject> {
    const type = input.type ?? 'secret';
    const publishable = type === 'publishable';
    const mode = input.mode ?? 'live';
    const raw = keyPrefix(type, mode) + randomBase62(40);
    const origins = publishable ? [...(input.allowedOrigins ?? [])] : [];
    const now = clock.now();
    const row: repo.ApiKeyRow = {
      id: newId('key'),
      tenant_id: input.tenantId,
      user_id: input.userId,
      name: input.name,
      key_hash: hashKey(raw),
      last4: raw.slice(-4),
      permissions: JSON.stringify(publishable ? [] : [...new Set(input.permissions)]),
      created: now,
      updated: now,
      last_used: null,
      expires_at: input.expiresAt,
      revoked_at: null,
      type,
      allowed_origins: JSON.stringify(origins),
      public_key: publishable ? raw : null,
      mode,
    };
    await repo.insertApiKey(db, row);
    if (origins.length > 0) {
      await repo.insertKeyOrigins(db, row, origins);
      // Every process answers the new origins' preflights once this commits.
      await store.notify(db, INVALIDATION_TOPIC, 'origins:');
      store.afterCommit(db, () => originCache.clear());
    }
    return toObject(row, raw);
  }

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
        permissions: new Set(parsePermissions(row.permissions)),
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
        permissions: new Set(parsePermissions(row.permissions)),
        expiresAt: null,
      },
      app: { installationId: row.id, pluginId: row.plugin_id, pluginName: row.plugin_name },
    };
  }

  /** A live key of the caller's tenant, masked. */
  async function current(principal: Principal, id: string): Promise<ApiKeyObject> {
    refuseApp(principal);
    const row = await repo.findLiveKey(store.db, principal.tenant.id, id, clock.now());
    if (!row) throw notFound('API key');
    return toObject(row);
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
    insertKey,

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
        const waitMs = failures.waitMs(client, now);
        if (waitMs > 0) {
          const seconds = Math.ceil(waitMs / 1000);
          throw new AppError(
            'rate_limited',
            `Too many unknown, revoked or expired API keys from this address; retry in ${seconds} s.`,
            { headers: { 'retry-after': String(seconds) } },
          );
        }
        return lookUpApp(hash, now, client);
      }
      const cached = cache.get(hash);
      if (cached && now - cached.cachedAt < CACHE_TTL_MS) return usable(cached.principal, now, address);
      const client = clientAddressKey(address);
      if (!cached) {
        const waitMs = failures.waitMs(client, now);
        if (waitMs > 0) {
          const seconds = Math.ceil(waitMs / 1000);
          throw new AppError(
            'rate_limited',
            `Too many unknown, revoked or expired API keys from this address; retry in ${seconds} s.`,
            { headers: { 'retry-after': String(seconds) } },
          );
        }
      }
      return lookUp(hash, now, client).then((principal) => usable(principal, now, address));
    },

    /** A page of the keys that still work, masked, newest first. */
    async list(principal: Principal, query: PageQuery): Promise<Envelope<ApiKeyObject>> {
      refuseApp(principal);
      const window = pageWindow(query, 'created');
      const { rows, total } = await repo.pageLiveKeys(store.db, principal.tenant.id, clock.now(), window);
      return newestFirstEnvelope(rows, total, window, (row) => toObject(row));
    },

    /** Every key that still works, masked, newest first (the console's key page). */
    async listAll(principal: Principal): Promise<ApiKeyObject[]> {
      refuseApp(principal);
      const rows = await repo.listLiveKeys(store.db, principal.tenant.id, clock.now());
      return rows.map((row) => toObject(row));
    },

    get: current,

    /**
     * A new key. A retry whose first attempt committed (`idempotent.committed`) answers that key,
     * masked: its full value was shown once, or lost with the first answer, and is not kept.
     */
    async create(
      principal: Principal,
      input: CreateKeyInput,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ApiKeyObject> {
      refuseApp(principal);
      if (idempotent.committed !== null) return current(principal, idempotent.committed);
      const spec = keySpec(input);
      assertHolds(principal, spec.permissions, 'grant');
      // Without `expires_at`, a key made by an expiring key expires with it.
      let expiresAt: number | null = principal.key.expiresAt;
      if (input.expires_at !== undefined) {
        expiresAt = Date.parse(input.expires_at);
        if (!(expiresAt > clock.now())) throw validationError('expires_at', 'must be in the future');
      }
      assertOutlivedBy(principal, expiresAt, 'grant');
      const ownMode: KeyMode = principal.tenant.livemode ? 'live' : 'test';
      const mode = input.mode ?? ownMode;
      // A key of the other mode is a key of the paired store (its test store made when first needed).
      const tenantId =
        mode === ownMode
          ? principal.tenant.id
          : (await pairedStoreOf(store, () => clock.now(), principal.tenant.id, mode)).id;
      return store.transaction(async (trx) => {
        const created = await insertKey(trx, {
          tenantId,
          mode,
          userId: principal.userId,
          name: input.name,
          type: spec.type,
          permissions: spec.permissions,
          allowedOrigins: spec.allowedOrigins,
          expiresAt,
        });
        await idempotent.mark(trx, created.id);
        await deps.audit.record(trx, {
          tenantId,
          action: 'api_key.created',
          resource: { type: 'api_key', id: created.id },
          before: null,
          after: created,
        });
        return created;
      });
    },

    /**
     * A new key with the same name, type, permissions (or origins) and expiry; the old one works
     * until now + grace (never past its own expiry). A retry whose first attempt committed answers
     * the new key, masked (as `create`; a publishable key is never masked).
     */
    async roll(
      principal: Principal,
      id: string,
      graceSeconds: number,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ApiKeyObject> {
      refuseApp(principal);
      if (idempotent.committed !== null) return current(principal, idempotent.committed);
      const now = clock.now();
      const created = await store.transaction(async (trx) => {
        const old = await repo.findLiveKey(trx, principal.tenant.id, id, now);
        if (!old) throw notFound('API key');
        const permissions = parsePermissions(old.permissions);
        assertHolds(principal, permissions, 'roll');
        assertOutlivedBy(principal, old.expires_at, 'roll');
        await store.notify(trx, INVALIDATION_TOPIC, `key:${old.id}`);
        if (graceSeconds === 0) await repo.revokeKey(trx, old.id, now);
        else
          await repo.setKeyExpiry(
            trx,
            old.id,
            Math.min(old.expires_at ?? Infinity, now + graceSeconds * 1000),
            now,
          );
        const rolled = await insertKey(trx, {
          tenantId: principal.tenant.id,
          userId: principal.userId,
          name: old.name,
          type: old.type,
          mode: old.mode,
          permissions,
          allowedOrigins: parseOrigins(old.allowed_origins),
          expiresAt: old.expires_at,
        });
        await idempotent.mark(trx, rolled.id);
        await deps.audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'api_key.rolled',
          resource: { type: 'api_key', id: old.id },
          before: { expires_at: iso(old.expires_at), replaced_by: null },
          after: {
            expires_at: iso(
              graceSeconds === 0 ? now : Math.min(old.expires_at ?? Infinity, now + graceSeconds * 1000),
            ),
            replaced_by: rolled.id,
          },
        });
        await deps.audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'api_key.created',
          resource: { type: 'api_key', id: rolled.id },
          before: null,
          after: rolled,
        });
        return rolled;
      });
      forgetKey(id);
      return created;
    },

    async revoke(principal: Principal, id: string): Promise<void> {
      refuseApp(principal);
      const now = clock.now();
      await store.transaction(async (trx) => {
        const row = await repo.findLiveKey(trx, principal.tenant.id, id, now);
        if (!row) throw notFound('API key');
        assertHolds(principal, parsePermissions(row.permissions), 'revoke');
        assertOutlivedBy(principal, row.expires_at, 'revoke');
        await repo.revokeKey(trx, row.id, now);
        await store.notify(trx, INVALIDATION_TOPIC, `key:${row.id}`);
        await deps.audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'api_key.revoked',
          resource: { type: 'api_key', id: row.id },
          before: { revoked_at: null },
          after: { revoked_at: iso(now) },
        });
      });
      forgetKey(id);
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

    /** Tells every process, once `trx` commits, to drop its cached principals of the tenant. */
    async tenantChanged(trx: Db, tenantId: string): Promise<void> {
      await store.notify(trx, INVALIDATION_TOPIC, `tenant:${tenantId}`);
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
