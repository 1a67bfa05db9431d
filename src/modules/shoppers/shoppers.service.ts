import type { Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { clientAddressKey } from '../../http/client-address.js';
import { type Clock, iso } from '../../lib/clock.js';
import { AppError, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { hashPassword, needsRehash, verifyPassword } from '../../lib/passwords.js';
import {
  type CustomerRow,
  customerChanges,
  customerLogins,
  findCustomer,
  insertCustomer,
  newCustomerRow,
  normaliseAddresses,
  presentCustomer,
  updateCustomerIn,
} from '../customers/index.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import type { Services } from '../../kernel/module.js';
import { clearThrottle, createThrottle, deleteStaleThrottles, type ThrottleRule } from '../limits/index.js';
import { presentStoreCustomer, presentStoreOrder } from './shoppers.presenter.js';
import {
  RESET_TOKEN_PATTERN,
  type PasswordResetConfirmBody,
  type SignInBody,
  type SignUpBody,
  type StoreCustomer,
  type StoreOrderListQuery,
  type StoreSession,
  type UpdateStoreCustomerBody,
} from './shoppers.schemas.js';
import { newToken, sha256, type ShopperSessions } from './shoppers.sessions.js';

/**
 * Shopper accounts (docs/storefront.md, "Shopper accounts"): sign-up, sign-in and sign-out, the
 * signed-in shopper's profile and orders, and password resets. The login itself (hash, sessions,
 * resets) is the customer's data, kept by the customers module (customers.logins.repository.ts).
 *
 * - Passwords are hashed as console passwords are (scrypt, src/lib/passwords.ts). A sign-in costs
 *   one scrypt whether or not the email has a login (an unknown email is checked against a decoy)
 *   and reads the same rows either way, so its time does not tell whether the email is known; a
 *   wrong password and an unknown email are the same `401 invalid_credentials`.
 * - Failed sign-ins are counted per email (of the store) and per buyer IP in the store (the
 *   limits library's throttle), so the counts hold across processes. A blocked email is refused
 *   even with the right password: its owner gets back in through a password reset, which clears
 *   the count and signs them in.
 * - A customer that exists without a login (made by an order, an import or the admin API) gets
 *   none by sign-up, which would let anyone claim it: sign-up answers it `409 duplicate_email` as
 *   it does a customer with a login, and such a customer gets a login through a password reset.
 */

export const RESET_TTL_MS = 3_600_000;
const MINUTES_15 = 15 * 60_000;
const HOUR = 3_600_000;

export const THROTTLE = {
  /** Failed sign-ins on one email of the store, from anywhere: guessing one shopper's password. */
  signInPerEmail: { limit: 10, windowMs: MINUTES_15, blockMs: MINUTES_15 },
  /** Failed sign-ins from one buyer IP at the store, whatever the email: spraying guesses. */
  signInPerAddress: { limit: 30, windowMs: MINUTES_15, blockMs: MINUTES_15 },
  /** Sign-ups (each runs scrypt) from one buyer IP at the store. */
  signUpPerAddress: { limit: 20, windowMs: HOUR, blockMs: HOUR },
  /** Reset requests from one buyer IP at the store (a 429 past it). */
  resetPerAddress: { limit: 10, windowMs: HOUR, blockMs: HOUR },
  /** Reset mails to one email an hour: past it, requests answer 202 and send nothing. */
  resetPerEmail: { limit: 3, windowMs: HOUR, blockMs: HOUR },
} as const satisfies Record<string, ThrottleRule>;

/** A throttle counter's key: its purpose, then a hash of the store and what it counts. */
function counter(purpose: string, tenantId: string, value: string): string {
  return `shopper-${purpose}:${sha256(`${tenantId}\n${value}`)}`;
}

const signInEmailKey = (tenantId: string, email: string) =>
  counter('signin-email', tenantId, email.toLowerCase());

function invalidCredentials(field?: string): AppError {
  return new AppError(
    'invalid_credentials',
    field === undefined ? 'The email or password is incorrect.' : 'The current password is incorrect.',
    field === undefined ? {} : { errors: [{ field, message: 'is incorrect' }] },
  );
}

function invalidResetToken(): AppError {
  return new AppError(
    'invalid_reset_token',
    'This reset token is unknown, used or expired; ask for a new one (POST /v1/store/customers/password-reset).',
    { errors: [{ field: 'reset_token', message: 'is unknown, used or expired' }] },
  );
}

function accountExists(): AppError {
  return new AppError(
    'duplicate_email',
    'An account with this email exists: sign in, or reset the password (POST /v1/store/customers/password-reset).',
    { errors: [{ field: 'email', message: 'is taken' }] },
  );
}

export type ShopperAccounts = ReturnType<typeof createShopperAccounts>;

export function createShopperAccounts(deps: {
  store: Store;
  clock: Clock;
  events: EventService;
  orders: Services['orders'];
  sessions: ShopperSessions;
  audit: AuditRecorder;
}) {
  const { store, clock, events, orders, sessions, audit } = deps;
  const throttle = createThrottle({ store });

  /** Refuses while the email or the address is blocked; counts a failure against both. */
  async function checkPassword(
    tenantId: string,
    email: string,
    buyerIp: string,
    password: string,
    stored: string | null,
    now: number,
    field?: string,
  ): Promise<boolean> {
    const emailKey = signInEmailKey(tenantId, email);
    const addressKey = counter('signin-address', tenantId, clientAddressKey(buyerIp));
    await throttle.refuseWhileBlocked([emailKey, addressKey], now, 'failed sign-ins');
    // One scrypt either way: without a login the check runs against a decoy.
    if (await verifyPassword(password, stored)) return true;
    await throttle.count(
      [
        [emailKey, THROTTLE.signInPerEmail],
        [addressKey, THROTTLE.signInPerAddress],
      ],
      now,
    );
    throw invalidCredentials(field);
  }

  return {
    /** A new customer with a login; an email the store knows, with a login or not, is 409. */
    async signUp(
      tenantId: string,
      input: SignUpBody,
      buyerIp: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<StoreCustomer> {
      if (idempotent.committed !== null) {
        const row = await findCustomer(store.db, tenantId, idempotent.committed);
        if (row) return presentStoreCustomer(row);
      }
      const now = clock.now();
      const addressKey = counter('signup-address', tenantId, clientAddressKey(buyerIp));
      await throttle.refuseWhileBlocked([addressKey], now, 'sign-ups from this address');
      await throttle.count([[addressKey, THROTTLE.signUpPerAddress]], now);
      const passwordHash = await hashPassword(input.password);
      const row = newCustomerRow(tenantId, { email: input.email, name: input.name ?? null }, now);
      try {
        await store.transaction(async (trx) => {
          if (await customerLogins.findCustomerWithLogin(trx, tenantId, input.email)) throw accountExists();
          await insertCustomer(trx, events, row);
          await customerLogins.setPasswordHash(trx, tenantId, row.id, passwordHash, now);
          await idempotent.mark(trx, row.id);
        });
      } catch (error) {
        // Another sign-up (or order) with this email committed first.
        if (isUniqueViolation(error)) throw accountExists();
        throw error;
      }
      return presentStoreCustomer(row);
    },

    /** Checks the password and starts a session. */
    async signIn(tenantId: string, input: SignInBody, buyerIp: string): Promise<StoreSession> {
      const now = clock.now();
      const found = await customerLogins.findCustomerWithLogin(store.db, tenantId, input.email);
      const stored = found?.passwordHash ?? null;
      await checkPassword(tenantId, input.email, buyerIp, input.password, stored, now);
      // checkPassword throws unless the password matched a stored hash, so both are here.
      const customer = found?.customer as CustomerRow;
      const rehashed =
        stored !== null && needsRehash(stored) ? await hashPassword(input.password) : undefined;
      const started = await store.transaction(async (trx) => {
        await clearThrottle(trx, signInEmailKey(tenantId, input.email));
        if (rehashed !== undefined) {
          await customerLogins.setPasswordHash(trx, tenantId, customer.id, rehashed, now);
        }
        return sessions.start(trx, customer, now);
      });
      return { ...started, customer: presentStoreCustomer(customer) };
    },

    /** Ends the session of `token`. */
    async signOut(tenantId: string, token: string | undefined): Promise<void> {
      const session = await sessions.authenticate(tenantId, token);
      await store.transaction((trx) => customerLogins.deleteSession(trx, tenantId, session.tokenHash));
    },

    async me(tenantId: string, token: string | undefined): Promise<StoreCustomer> {
      return presentStoreCustomer((await sessions.authenticate(tenantId, token)).customer);
    },

    /**
     * Changes the shopper's own profile (only the fields given; `customer.updated` when anything
     * changed) and, with the current password, the password: the shopper's other sessions end.
     */
    async updateMe(
      tenantId: string,
      token: string | undefined,
      input: UpdateStoreCustomerBody,
      buyerIp: string,
    ): Promise<StoreCustomer> {
      const session = await sessions.authenticate(tenantId, token);
      const { password, current_password: current, ...profile } = input;
      if (password !== undefined && current === undefined) {
        throw validationError('current_password', 'is required to change the password');
      }
      if (password === undefined && current !== undefined) {
        throw validationError('current_password', 'goes only with password');
      }
      const now = clock.now();
      let passwordHash: string | undefined;
      if (password !== undefined && current !== undefined) {
        const stored = await customerLogins.findPasswordHash(store.db, tenantId, session.customer.id);
        await checkPassword(
          tenantId,
          session.customer.email,
          buyerIp,
          current,
          stored,
          now,
          'current_password',
        );
        passwordHash = await hashPassword(password);
      }
      const changes = customerChanges({
        ...profile,
        ...(profile.addresses === undefined
          ? {}
          : { addresses: normaliseAddresses(profile.addresses, 'addresses') }),
      });
      const row = await store.transaction(async (trx) => {
        const before = await findCustomer(trx, tenantId, session.customer.id, true);
        if (!before || before.redacted === 1)
          throw new AppError('invalid_customer_token', 'The session ended.');
        const after = await updateCustomerIn(trx, events, before, changes, now);
        if (passwordHash !== undefined) {
          await customerLogins.setPasswordHash(trx, tenantId, before.id, passwordHash, now);
          await customerLogins.deleteSessionsOf(trx, tenantId, before.id, session.tokenHash);
        }
        return after;
      });
      return presentStoreCustomer(row);
    },

    /** The shopper's own orders, newest first, as the shopper sees them. */
    async myOrders(tenantId: string, token: string | undefined, query: StoreOrderListQuery) {
      const session = await sessions.authenticate(tenantId, token);
      const page = await orders.list(tenantId, { ...query, customer_id: session.customer.id });
      return { ...page, data: page.data.map(presentStoreOrder) };
    },

    /**
     * For a known, unerased customer of the store, a one-hour single-use reset token in a
     * `customer.password_reset` event (the store's webhook mails it); nothing for another email.
     * The caller answers 202 either way. At most `resetPerEmail` mails an hour per email.
     */
    async requestReset(tenantId: string, email: string, buyerIp: string): Promise<void> {
      const now = clock.now();
      const addressKey = counter('reset-address', tenantId, clientAddressKey(buyerIp));
      await throttle.refuseWhileBlocked([addressKey], now, 'password reset requests from this address');
      await throttle.count([[addressKey, THROTTLE.resetPerAddress]], now);
      const found = await customerLogins.findCustomerWithLogin(store.db, tenantId, email);
      if (!found || found.customer.redacted === 1) return;
      const emailKey = counter('reset-email', tenantId, found.customer.email_key);
      if ((await throttle.waitMs([emailKey], now)) > 0) return;
      await throttle.count([[emailKey, THROTTLE.resetPerEmail]], now);
      const token = newToken('rst');
      const expiresAt = now + RESET_TTL_MS;
      await store.transaction(async (trx) => {
        await customerLogins.insertPasswordReset(trx, {
          token_hash: sha256(token),
          tenant_id: tenantId,
          customer_id: found.customer.id,
          created: now,
          expires_at: expiresAt,
        });
        await events.emit(trx, {
          tenantId,
          type: 'customer.password_reset',
          objectType: 'customer',
          object: presentCustomer(found.customer),
          extra: { reset_token: token, expires_at: iso(expiresAt) },
        });
      });
    },

    /**
     * Sets the password of the reset token's customer (its login is made if it had none), takes
     * the token and the customer's other pending resets, ends every session of the customer and
     * clears its failed sign-ins; then signs the shopper in.
     */
    async confirmReset(tenantId: string, input: PasswordResetConfirmBody): Promise<StoreSession> {
      if (!RESET_TOKEN_PATTERN.test(input.reset_token)) throw invalidResetToken();
      const tokenHash = sha256(input.reset_token);
      const now = clock.now();
      const reset = await customerLogins.findPasswordReset(store.db, tenantId, tokenHash, now);
      if (!reset) throw invalidResetToken();
      const passwordHash = await hashPassword(input.password);
      const { customer, started } = await store.transaction(async (trx) => {
        const row = await findCustomer(trx, tenantId, reset.customerId, true);
        if (!row || row.redacted === 1) throw invalidResetToken();
        if (!(await customerLogins.takePasswordReset(trx, tenantId, row.id, tokenHash, now))) {
          throw invalidResetToken();
        }
        await customerLogins.setPasswordHash(trx, tenantId, row.id, passwordHash, now);
        await customerLogins.deleteSessionsOf(trx, tenantId, row.id);
        // By the customer the token names (by id only: a name in the chain could not be erased).
        // The password never reaches the log (nor does anything else of the customer change): the
        // fact and its time do.
        const customer = presentCustomer(row);
        await audit.record(trx, {
          tenantId,
          action: 'customer.password_reset_completed',
          resource: { type: 'customer', id: row.id },
          before: customer,
          after: customer,
          actor: { type: 'customer', id: row.id, name: null },
        });
        await clearThrottle(trx, signInEmailKey(tenantId, row.email_key));
        return { customer: row, started: await sessions.start(trx, row, now) };
      });
      return { ...started, customer: presentStoreCustomer(customer) };
    },

    /** Deletes expired sessions and resets, and throttle counters that hold nothing back. */
    async purgeExpired(): Promise<number> {
      const now = clock.now();
      return store.transaction(async (trx) => {
        await deleteStaleThrottles(trx, now);
        return customerLogins.deleteExpired(trx, now, 10_000);
      });
    },
  };
}
