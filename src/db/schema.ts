/**
 * Table types. Instants are integer milliseconds since the epoch (int8 on PostgreSQL), money is
 * integer minor units, flags are 0/1 integers and structured values are JSON text, so the same
 * SQL runs on SQLite and PostgreSQL.
 */

export interface TenantsTable {
  id: string;
  name: string;
  plan: 'free' | 'pro' | 'enterprise';
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
  created: number;
  updated: number;
}

export interface UsersTable {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'developer';
  password_hash: string | null;
  created: number;
  updated: number;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  key_hash: string;
  last4: string;
  permissions: string;
  created: number;
  updated: number;
  last_used: number | null;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  locked_until: number;
  response_status: number | null;
  response_body: string | null;
  created: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  /** The resource in `data.object` (`order`, `product`, ...), for version transforms. */
  object_type: string;
  object_id: string;
  /** JSON of the object, in the latest API version's shape. */
  data: string;
  created: number;
}

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
}
