import type { Permission } from '../http/permissions.js';

export type Plan = 'free' | 'pro' | 'enterprise';

export interface TenantSummary {
  id: string;
  name: string;
  plan: Plan;
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
}

/** Who is calling: the key, its tenant and the user who owns the key. */
export interface Principal {
  tenant: TenantSummary;
  userId: string;
  key: { id: string; name: string; permissions: ReadonlySet<Permission>; expiresAt: number | null };
}
