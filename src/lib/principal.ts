import type { Permission } from '../kernel/vocabulary.js';

export type Plan = 'free' | 'pro' | 'enterprise';

export interface TenantSummary {
  id: string;
  name: string;
  plan: Plan;
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
  /** false for a store's test mode (its paired test tenant, `sk_test_`/`pk_test_` keys). */
  livemode: boolean;
}

/** A row that joined `tenants` with the columns `tenant_id`, `tenant_name`, `plan`, `currency`, … */
export interface TenantColumns {
  tenant_id: string;
  tenant_name: string;
  plan: Plan;
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
  /** `live` or `test` (the tenant is a store's test mode). */
  mode: string;
}

/** The tenant summary a principal or a console session carries, from its joined columns. */
export function tenantSummaryOf(row: TenantColumns): TenantSummary {
  return {
    id: row.tenant_id,
    name: row.tenant_name,
    plan: row.plan,
    currency: row.currency,
    api_version: row.api_version,
    hourly_limit: row.hourly_limit,
    monthly_limit: row.monthly_limit,
    livemode: row.mode !== 'test',
  };
}

/** The plugin installation an installation token (`sk_app_...`) belongs to. */
export interface AppIdentity {
  installationId: string;
  pluginId: string;
  pluginName: string;
}

/**
 * A secret key (`sk_live_`, an installation token, a console session) acts on the store with its
 * permissions; a publishable key (`pk_live_`) is public, holds no permission and opens only the
 * storefront routes (`/v1/store/*`), from its `allowedOrigins` when called by a browser.
 */
export type KeyType = 'secret' | 'publishable';

/** What a principal's key is. */
export interface PrincipalKey {
  id: string;
  name: string;
  type: KeyType;
  permissions: ReadonlySet<Permission>;
  expiresAt: number | null;
  /** A publishable key's browser origins (normalised, e.g. `https://shop.example.com`). */
  allowedOrigins?: ReadonlySet<string>;
}

/**
 * Who is calling: the key, its tenant and the user who owns the key. For an installation token,
 * `key` is the installation (its id, the plugin's name, the permissions granted) and `app` says so.
 */
export interface Principal {
  tenant: TenantSummary;
  userId: string;
  key: PrincipalKey;
  app?: AppIdentity;
}
