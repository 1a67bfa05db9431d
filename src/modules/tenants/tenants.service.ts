import type { Store } from '../../db/store.js';
import type { AuditRecorder } from '../audit/index.js';
import type { TenantsTable } from '../../db/schema.js';
import { notFound, validationError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import { newId } from '../../lib/ids.js';
import { isCurrency } from '../../lib/money.js';
import { hashPassword } from '../../lib/passwords.js';
import type { Plan } from '../../lib/principal.js';
import type { ApiKeyObject, ApiKeyService } from '../api-keys/index.js';
import type { VersionRegistry } from '../versions/index.js';
import * as repo from './tenants.repository.js';
import { insertStore, pairedStoreOf } from './tenants.stores.js';

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise'];

export interface CreateTenantInput {
  name: string;
  email: string;
  ownerName?: string | undefined;
  password?: string | undefined;
  plan?: Plan | undefined;
  currency?: string | undefined;
  apiVersion?: string | undefined;
  keyName?: string | undefined;
}

export interface CreatedTenant {
  tenant: TenantsTable;
  user: { id: string; email: string; name: string };
  apiKey: ApiKeyObject;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type TenantService = ReturnType<typeof createTenantService>;

export function createTenantService(deps: {
  store: Store;
  clock: Clock;
  versions: VersionRegistry;
  /** Every permission the modules declare: the owner's first key holds them all. */
  vocabulary: Vocabulary;
  apiKeys: ApiKeyService;
  /** Records an API version upgrade (it has no event). */
  audit: AuditRecorder;
}) {
  const { store, clock, versions, vocabulary, apiKeys, audit } = deps;

  return {
    /** A tenant, its owner and a key holding every permission, in one transaction. */
    async create(input: CreateTenantInput): Promise<CreatedTenant> {
      const name = input.name.trim();
      const email = input.email.trim().toLowerCase();
      const currency = (input.currency ?? 'USD').toUpperCase();
      const plan = input.plan ?? 'pro';
      if (name.length < 1 || name.length > 200) throw validationError('name', 'must be 1 to 200 characters');
      if (!EMAIL_PATTERN.test(email) || email.length > 254)
        throw validationError('email', 'must be an email address');
      if (!isCurrency(currency)) throw validationError('currency', 'must be an ISO 4217 currency code');
      if (!PLANS.includes(plan)) throw validationError('plan', `must be one of ${PLANS.join(', ')}`);
      if (input.password !== undefined && (input.password.length < 8 || input.password.length > 200)) {
        throw validationError('password', 'must be 8 to 200 characters');
      }
      const apiVersion = input.apiVersion ?? versions.latest.version;
      if (!versions.has(apiVersion)) {
        throw validationError(
          'api_version',
          `must be one of ${versions
            .list()
            .map((v) => v.version)
            .join(', ')}`,
        );
      }
      const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
      const now = clock.now();
      return store.transaction(async (trx) => {
        if (await repo.findUserByEmail(trx, email)) throw validationError('email', 'is already registered');
        const tenant = await insertStore(
          trx,
          { name, plan, currency, api_version: apiVersion, mode: 'live', live_tenant_id: null },
          now,
        );
        const user = {
          id: newId('usr'),
          tenant_id: tenant.id,
          email,
          name: input.ownerName?.trim() || email.split('@')[0] || email,
          role: 'owner' as const,
          password_hash: passwordHash,
          created: now,
          updated: now,
        };
        await repo.insertUser(trx, user);
        const apiKey = await apiKeys.insertKey(trx, {
          tenantId: tenant.id,
          userId: user.id,
          name: input.keyName ?? 'Default key',
          permissions: vocabulary.permissions,
          expiresAt: null,
        });
        return { tenant, user: { id: user.id, email: user.email, name: user.name }, apiKey };
      });
    },

    /** The store of `mode` paired with a store (its test store made when first needed). */
    pairedStoreOf(tenantId: string, mode: 'live' | 'test'): Promise<TenantsTable> {
      return pairedStoreOf(store, () => clock.now(), tenantId, mode);
    },

    /** The store paired with a store (its test store, or its live one), if there is one yet: never makes one. */
    async pairOf(tenantId: string): Promise<TenantsTable | undefined> {
      const tenant = await repo.findTenant(store.db, tenantId);
      if (tenant?.mode === 'live') return repo.findTestStore(store.db, tenant.id);
      if (tenant?.live_tenant_id == null) return undefined;
      return repo.findTenant(store.db, tenant.live_tenant_id);
    },

    async get(tenantId: string): Promise<TenantsTable> {
      const tenant = await repo.findTenant(store.db, tenantId);
      if (!tenant) throw notFound('tenant');
      return tenant;
    },

    async setLimits(
      tenantId: string,
      changes: {
        plan?: Plan | undefined;
        hourly?: number | null | undefined;
        monthly?: number | null | undefined;
      },
    ): Promise<TenantsTable> {
      const update: Parameters<typeof repo.updateTenant>[2] = {};
      if (changes.plan !== undefined) update.plan = changes.plan;
      if (changes.hourly !== undefined) update.hourly_limit = changes.hourly;
      if (changes.monthly !== undefined) update.monthly_limit = changes.monthly;
      let testStoreId: string | undefined;
      const updated = await store.transaction(async (trx) => {
        if ((await repo.updateTenant(trx, tenantId, update, clock.now())) === 0) throw notFound('tenant');
        await apiKeys.tenantChanged(trx, tenantId);
        // Test mode has the plan's hourly limit: its plan follows live's.
        const testStore = changes.plan === undefined ? undefined : await repo.findTestStore(trx, tenantId);
        if (testStore && changes.plan !== undefined) {
          testStoreId = testStore.id;
          await repo.updateTenant(trx, testStore.id, { plan: changes.plan }, clock.now());
          await apiKeys.tenantChanged(trx, testStore.id);
        }
        return repo.findTenant(trx, tenantId);
      });
      apiKeys.forgetTenant(tenantId);
      if (testStoreId !== undefined) apiKeys.forgetTenant(testStoreId);
      if (!updated) throw notFound('tenant');
      return updated;
    },

    async setApiVersion(tenantId: string, version: string): Promise<void> {
      await store.transaction(async (trx) => {
        await repo.updateTenant(trx, tenantId, { api_version: version }, clock.now());
        await apiKeys.tenantChanged(trx, tenantId);
      });
      apiKeys.forgetTenant(tenantId);
    },

    /** Pins the tenant to `target` (default: the latest version); never to an older one. */
    async upgradeApiVersion(
      tenantId: string,
      target: string | undefined,
    ): Promise<{ previous_version: string; api_version: string }> {
      const version = target ?? versions.latest.version;
      if (!versions.has(version)) {
        throw validationError(
          'version',
          `must be one of ${versions
            .list()
            .map((v) => v.version)
            .join(', ')}`,
        );
      }
      const result = await store.transaction(async (trx) => {
        const tenant = await repo.findTenant(trx, tenantId);
        if (!tenant) throw notFound('tenant');
        if (version < tenant.api_version) {
          throw validationError('version', `must not be older than the pinned ${tenant.api_version}`);
        }
        await repo.updateTenant(trx, tenantId, { api_version: version }, clock.now());
        await apiKeys.tenantChanged(trx, tenantId);
        await audit.record(trx, {
          tenantId,
          action: 'api_version.upgraded',
          resource: { type: 'api_version', id: tenantId },
          before: { api_version: tenant.api_version },
          after: { api_version: version },
        });
        return { previous_version: tenant.api_version, api_version: version };
      });
      apiKeys.forgetTenant(tenantId);
      return result;
    },

    async ownerOf(tenantId: string) {
      const owner = await repo.findOwner(store.db, tenantId);
      if (!owner) throw notFound('tenant owner');
      return owner;
    },

    async count(): Promise<number> {
      return repo.countTenants(store.db);
    },
  };
}
