/**
 * The tables of customers' storefront logins (their types; migration 0040, in migrations/): a
 * customer's login, its sessions and pending password resets (customers.logins.repository.ts; the
 * shoppers module runs the storefront's use of them). The manifest adds them to the store's
 * `Database` (src/db/schema.ts).
 */

/** A customer's storefront login (migration 0040): the scrypt hash of its password, never shown. */
export interface CustomerLoginsTable {
  tenant_id: string;
  customer_id: string;
  password_hash: string;
  created: number;
  /** When the password was last set. */
  updated: number;
}

/** A shopper's session (`cst_...`), keyed by the SHA-256 (hex) of the token; the token is never stored. */
export interface CustomerSessionsTable {
  token_hash: string;
  tenant_id: string;
  customer_id: string;
  created: number;
  expires_at: number;
}

/** A pending password reset, keyed by the SHA-256 (hex) of its single-use `reset_token`. */
export interface CustomerPasswordResetsTable {
  token_hash: string;
  tenant_id: string;
  customer_id: string;
  created: number;
  expires_at: number;
}
