import { createHash } from 'node:crypto';
import type { Db, Store } from '../../db/store.js';
import { type Clock, iso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { randomBase62 } from '../../lib/ids.js';
import { type CustomerRow, customerLogins } from '../customers/index.js';
import { SESSION_TOKEN_PATTERN } from './shoppers.schemas.js';

/**
 * Shoppers' sessions: a `cst_` token of 238 random bits that only the shopper holds, the store
 * keeping its SHA-256 (a read of the table cannot be replayed as a sign-in). A session lasts
 * `SESSION_TTL_MS` from sign-in, whatever its use, and ends at sign-out, at a password change (the
 * others of the customer) or reset (all of them), and with the customer's erasure or deletion. A
 * token acts only in the tenant it was made in.
 */

export const SESSION_TTL_MS = 30 * 24 * 3_600_000;

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A new random token with its prefix: `cst_...` (sessions), `rst_...` (password resets). */
export function newToken(prefix: 'cst' | 'rst'): string {
  return `${prefix}_${randomBase62(40)}`;
}

export function invalidCustomerToken(): AppError {
  return new AppError(
    'invalid_customer_token',
    'Send a live session token as X-Customer-Token; sign in (POST /v1/store/sessions) for a new one.',
  );
}

/** A shopper's live session: the customer and the hash its token is kept by. */
export interface ShopperSession {
  customer: CustomerRow;
  tokenHash: string;
  expiresAt: number;
}

export type ShopperSessions = ReturnType<typeof createShopperSessions>;

export function createShopperSessions(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  /** The live session of `token` in the tenant, or undefined (no token, malformed, unknown, ended). */
  async function find(tenantId: string, token: string | undefined): Promise<ShopperSession | undefined> {
    if (token === undefined || !SESSION_TOKEN_PATTERN.test(token)) return undefined;
    const tokenHash = sha256(token);
    const found = await customerLogins.findSessionCustomer(store.db, tenantId, tokenHash, clock.now());
    return found && { customer: found.customer, tokenHash, expiresAt: found.expiresAt };
  }

  return {
    /**
     * The customer a shopper's token signs in as, in the tenant of the caller's key, or null for no
     * token, a malformed, unknown, ended or expired one, or one of another tenant. What another
     * module binds to a shopper (a cart made or read with a token).
     */
    async customerForToken(
      tenantId: string,
      token: string | undefined,
    ): Promise<{ id: string; email: string } | null> {
      const session = await find(tenantId, token);
      return session ? { id: session.customer.id, email: session.customer.email } : null;
    },

    /** The live session of `token`, else `401 invalid_customer_token`. */
    async authenticate(tenantId: string, token: string | undefined): Promise<ShopperSession> {
      const session = await find(tenantId, token);
      if (!session) throw invalidCustomerToken();
      return session;
    },

    /** Starts a session for the customer in `trx`: its token, shown once, and its end. */
    async start(trx: Db, customer: CustomerRow, now: number): Promise<{ token: string; expires_at: string }> {
      const token = newToken('cst');
      const expiresAt = now + SESSION_TTL_MS;
      await customerLogins.insertSession(trx, {
        token_hash: sha256(token),
        tenant_id: customer.tenant_id,
        customer_id: customer.id,
        created: now,
        expires_at: expiresAt,
      });
      return { token, expires_at: iso(expiresAt) };
    },
  };
}
