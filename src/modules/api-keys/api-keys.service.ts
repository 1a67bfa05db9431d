import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Db, Store } from '../../db/store.js';
import { notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { type Envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { KeyType, Principal } from '../../lib/principal.js';
import { pairedStoreOf } from '../tenants/index.js';
import {
  createKeyAuthenticator,
  hashKey,
  INVALIDATION_TOPIC,
  parseOrigins,
  parsePermissions,
} from './api-keys.authenticator.js';
import * as repo from './api-keys.repository.js';
import { assertHolds, assertOutlivedBy, keySpec, refuseApp } from './api-keys.rules.js';
import type { AuditRecorder } from '../audit/index.js';

export { hashKey, KEY_FAILURES } from './api-keys.authenticator.js';

export const KEY_PREFIX = 'sk_live_';
/** A publishable key: public, shown in full at every read, good for `/v1/store/*` only. */
export const PUBLISHABLE_KEY_PREFIX = 'pk_live_';
/** A key's mode: `live`, or `test` for its store's test mode (`sk_test_`, `pk_test_`). */
export type KeyMode = 'live' | 'test';
/** A key's prefix, by type and mode. */
export function keyPrefix(type: KeyType, mode: KeyMode): string {
  return `${type === 'publishable' ? 'pk' : 'sk'}_${mode}_`;
}
/** A plugin installation token (src/modules/plugins): `sk_app_` + 40 base62. */
export const APP_TOKEN_PREFIX = 'sk_app_';
const EXPIRING_WINDOW_MS = 7 * 24 * 3600 * 1000;
export const MAX_ROLL_GRACE_SECONDS = 7 * 24 * 3600;

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

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

export function createApiKeyService(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  vocabulary: Vocabulary;
  audit: AuditRecorder;
}) {
  const { store, clock, vocabulary } = deps;
  const authenticator = createKeyAuthenticator(deps);

  function toObject(row: repo.ApiKeyRow, fullKey?: string): ApiKeyObject {
    const now = clock.now();
    const lastUsed = Math.max(row.last_used ?? 0, authenticator.lastUsedOf(row.id));
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      mode: row.mode,
      // A publishable key is public: shown in full at every read.
      key: row.public_key ?? fullKey ?? maskKey(row.last4, row.mode),
      permissions: parsePermissions(row.permissions, vocabulary),
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
      await authenticator.originsAdded(db);
    }
    return toObject(row, raw);
  }

  /** A live key of the caller's tenant, masked. */
  async function current(principal: Principal, id: string): Promise<ApiKeyObject> {
    refuseApp(principal);
    const row = await repo.findLiveKey(store.db, principal.tenant.id, id, clock.now());
    if (!row) throw notFound('API key');
    return toObject(row);
  }

  return {
    insertKey,
    authenticate: authenticator.authenticate,
    originAllowed: authenticator.originAllowed,
    /** Drops this process's cached principals of a tenant after its plan, limits or version changed. */
    forgetTenant: authenticator.forgetTenant,
    flushLastUsed: authenticator.flushLastUsed,
    start: authenticator.start,
    stop: authenticator.stop,

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
        const permissions = parsePermissions(old.permissions, vocabulary);
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
      authenticator.forgetKey(id);
      return created;
    },

    async revoke(principal: Principal, id: string): Promise<void> {
      refuseApp(principal);
      const now = clock.now();
      await store.transaction(async (trx) => {
        const row = await repo.findLiveKey(trx, principal.tenant.id, id, now);
        if (!row) throw notFound('API key');
        assertHolds(principal, parsePermissions(row.permissions, vocabulary), 'revoke');
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
      authenticator.forgetKey(id);
    },

    /** Tells every process, once `trx` commits, to drop its cached principals of the tenant. */
    async tenantChanged(trx: Db, tenantId: string): Promise<void> {
      await store.notify(trx, INVALIDATION_TOPIC, `tenant:${tenantId}`);
    },
  };
}
