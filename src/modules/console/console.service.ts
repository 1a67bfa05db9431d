import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { clientAddressKey } from '../../http/client-address.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import { AppError, isAppError } from '../../lib/errors.js';
import {
  clearThrottle,
  createThrottle,
  deleteStaleThrottles,
  limitsOf,
  PLAN_LIMITS,
  type ThrottleRule,
} from '../limits/index.js';
import { type Clock, iso } from '../../lib/clock.js';
import { hashPassword, needsRehash, verifyPassword } from '../../lib/passwords.js';
import type { Plan, Principal } from '../../lib/principal.js';
import type { ApiKeyObject } from '../api-keys/index.js';
import { findUserByEmail, type TenantService } from '../tenants/index.js';
import * as repo from './console.repository.js';

/**
 * Developer console accounts: sign-up (a tenant and its owner), password login, server-side
 * sessions and their CSRF tokens, and login/sign-up throttling. A session acts for its user's
 * tenant with every permission: the `/v1` gate takes a session with its CSRF token as a key holding
 * every permission of the session's user (see `principal` and console.session.ts).
 *
 * - The session id is 32 random bytes (base64url) that only the browser's cookie holds; the store
 *   keeps its SHA-256, so a read of the table cannot be replayed as a login.
 * - The CSRF token is an HMAC of the session id: nothing to store, and it changes with the session.
 * - Throttling counts failed logins per (email, client address) pair and per client address, and
 *   sign-ups per client address, in fixed windows in the store (the limits library's throttle), so
 *   it holds across processes and restarts. Nothing is counted per email alone: however many
 *   addresses fail on an email, its owner still signs in from their own, so nobody can lock an
 *   account by knowing its email.
 * - A login costs one scrypt whether or not the email has an account (`verifyPassword` checks an
 *   unknown email against a decoy at the configured cost) and does the same store work either way
 *   up to a correct password; a hash made at an older cost is rehashed when its owner signs in.
 */

export const SESSION_MAX_AGE_MS = 7 * 24 * 3_600_000;
export const SESSION_IDLE_MS = 24 * 3_600_000;
/** `last_seen` is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const THROTTLE = {
  /** Failed logins for one email from one client address: guessing one account's password. */
  loginPerPair: { limit: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  /** Failed logins from one client address, whatever the email: spraying guesses over accounts. */
  loginPerAddress: { limit: 50, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  /** Sign-ups (each creates a tenant and runs scrypt) from one client address. */
  signupPerAddress: { limit: 10, windowMs: 3_600_000, blockMs: 3_600_000 },
} as const satisfies Record<string, ThrottleRule>;

/** Self-service sign-ups start on this plan; the operator changes plans (`tenant:set-limits`). */
export const SIGNUP_PLAN: Plan = 'free';

export interface AccountView {
  user: { id: string; email: string; name: string; role: string };
  tenant: { id: string; name: string; plan: Plan; currency: string; api_version: string };
  plans: { name: Plan; hourly: number; monthly: number; current: boolean }[];
  limits: { hourly: number; monthly: number; custom: boolean };
  csrf_token: string;
  expires_at: string;
}

/** A session resolved from its cookie, for one request. */
export interface ConsoleSession {
  id: string;
  expiresAt: number;
  account: repo.SessionWithOwner;
  /** The tenant with every permission: what the console's calls into the services act as. */
  principal: Principal;
}

export interface StartedSession {
  id: string;
  expiresAt: number;
  view: AccountView;
}

export interface SignupInput {
  store_name: string;
  email: string;
  password: string;
  owner_name?: string | undefined;
  /** The store's currency; USD when not given. */
  currency?: string | undefined;
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('console-csrf').digest('base64url');
}

function equalSecrets(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function loggedOut(detail = 'Log in to the developer console.'): AppError {
  return new AppError('authentication_required', detail);
}

/**
 * What a session acts as, on `/v1` too: its user in its tenant, with every permission and no
 * expiry (so it may create, roll and revoke any key of the tenant). It has no key of its own:
 * `GET /v1/users/me` names it `console`, and nothing records a `last_used` for it.
 */
function consolePrincipal(account: repo.SessionWithOwner, permissions: readonly Permission[]): Principal {
  return {
    tenant: account.tenant,
    userId: account.user.id,
    key: {
      id: 'console',
      name: 'Developer console',
      type: 'secret',
      permissions: new Set(permissions),
      expiresAt: null,
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;

/**
 * The tenant service names the store `name`; the sign-up form sends it as `store_name`, so a
 * refusal of it names the field the caller sent.
 */
function asSignupFields(error: unknown): unknown {
  if (!isAppError(error) || error.code !== 'validation_failed' || !error.errors) return error;
  const errors = error.errors.map((e) => (e.field === 'name' ? { ...e, field: 'store_name' } : e));
  return new AppError('validation_failed', errors.map((e) => `${e.field} ${e.message}`).join('; '), {
    errors,
  });
}

export function createConsoleService(deps: {
  store: Store;
  clock: Clock;
  vocabulary: Vocabulary;
  tenants: TenantService;
}) {
  const { store, clock, vocabulary, tenants } = deps;
  const throttle = createThrottle({ store });

  function view(account: repo.SessionWithOwner, sessionId: string, expiresAt: number): AccountView {
    return {
      user: account.user,
      tenant: {
        id: account.tenant.id,
        name: account.tenant.name,
        plan: account.tenant.plan,
        currency: account.tenant.currency,
        api_version: account.tenant.api_version,
      },
      plans: (Object.keys(PLAN_LIMITS) as Plan[]).map((name) => ({
        name,
        ...PLAN_LIMITS[name],
        current: name === account.tenant.plan,
      })),
      limits: {
        ...limitsOf(account.tenant),
        custom: account.tenant.hourly_limit !== null || account.tenant.monthly_limit !== null,
      },
      csrf_token: csrfTokenFor(sessionId),
      expires_at: iso(expiresAt),
    };
  }

  /** A new session for the user; `replacing` (the caller's current session, if any) ends. */
  async function startSession(
    user: { id: string; tenant_id: string },
    replacing: string | undefined,
    extra?: (trx: Store['db']) => Promise<void>,
  ): Promise<StartedSession> {
    const id = randomBytes(32).toString('base64url');
    const now = clock.now();
    const expiresAt = now + SESSION_MAX_AGE_MS;
    await store.transaction(async (trx) => {
      await repo.deleteExpiredSessions(trx, now, now - SESSION_IDLE_MS);
      await deleteStaleThrottles(trx, now);
      if (replacing !== undefined && SESSION_ID_PATTERN.test(replacing)) {
        await repo.deleteSession(trx, sha256(replacing));
      }
      await repo.insertSession(trx, {
        id_hash: sha256(id),
        tenant_id: user.tenant_id,
        user_id: user.id,
        created: now,
        last_seen: now,
        expires_at: expiresAt,
      });
      if (extra) await extra(trx);
    });
    const account = await repo.findSession(store.db, sha256(id));
    if (!account) throw new Error('a session just created could not be read back');
    return { id, expiresAt, view: view(account, id, expiresAt) };
  }

  return {
    /** A new tenant with its owner (and a first full-permission key), logged in. */
    async signup(
      input: SignupInput,
      address: string,
      replacing: string | undefined,
    ): Promise<StartedSession & { apiKey: ApiKeyObject }> {
      const addressKey = `signup-address:${sha256(clientAddressKey(address))}`;
      const now = clock.now();
      await throttle.refuseWhileBlocked([addressKey], now, 'sign-ups from this address');
      await throttle.count([[addressKey, THROTTLE.signupPerAddress]], now);
      const created = await tenants
        .create({
          name: input.store_name,
          email: input.email,
          ownerName: input.owner_name,
          password: input.password,
          currency: input.currency,
          plan: SIGNUP_PLAN,
          keyName: 'Default key',
        })
        .catch((error: unknown) => {
          throw asSignupFields(error);
        });
      const started = await startSession({ id: created.user.id, tenant_id: created.tenant.id }, replacing);
      return { ...started, apiKey: created.apiKey };
    },

    /** Checks the password and starts a new session (the caller's previous one ends: rotation). */
    async login(
      input: { email: string; password: string },
      address: string,
      replacing: string | undefined,
    ): Promise<StartedSession> {
      const email = input.email.trim().toLowerCase();
      const client = clientAddressKey(address);
      const pairKey = `login-pair:${sha256(`${email}\n${client}`)}`;
      const addressKey = `login-address:${sha256(client)}`;
      const now = clock.now();
      await throttle.refuseWhileBlocked([pairKey, addressKey], now, 'failed logins');
      const user = await findUserByEmail(store.db, email);
      const stored = user?.password_hash ?? null;
      // One scrypt either way: without an account (or a password) the check runs against a decoy.
      const valid = await verifyPassword(input.password, stored);
      if (!user || stored === null || !valid) {
        await throttle.count(
          [
            [pairKey, THROTTLE.loginPerPair],
            [addressKey, THROTTLE.loginPerAddress],
          ],
          now,
        );
        throw loggedOut('The email or password is incorrect.');
      }
      const rehashed = needsRehash(stored) ? await hashPassword(input.password) : undefined;
      return startSession(user, replacing, async (trx) => {
        await clearThrottle(trx, pairKey);
        if (rehashed !== undefined) await repo.setPasswordHash(trx, user.id, rehashed, now);
      });
    },

    async logout(session: ConsoleSession): Promise<void> {
      await store.transaction((trx) => repo.deleteSession(trx, sha256(session.id)));
    },

    /** The session behind a cookie value, or 401. */
    async authenticate(sessionId: string | undefined): Promise<ConsoleSession> {
      if (sessionId === undefined || !SESSION_ID_PATTERN.test(sessionId)) throw loggedOut();
      const idHash = sha256(sessionId);
      const account = await repo.findSession(store.db, idHash);
      const now = clock.now();
      if (!account) throw loggedOut();
      if (account.expires_at <= now || account.last_seen <= now - SESSION_IDLE_MS) {
        await store.transaction((trx) => repo.deleteSession(trx, idHash));
        throw loggedOut('Your console session has expired; log in again.');
      }
      if (now - account.last_seen >= TOUCH_EVERY_MS) {
        await store.transaction((trx) => repo.touchSession(trx, idHash, now));
      }
      return {
        id: sessionId,
        expiresAt: account.expires_at,
        account,
        principal: consolePrincipal(account, vocabulary.permissions),
      };
    },

    /**
     * The session's principal in `mode`: in test mode the same user acting on the store's test
     * mode (made the first time it is needed).
     */
    async inMode(principal: Principal, mode: 'live' | 'test'): Promise<Principal> {
      if (mode === (principal.tenant.livemode ? 'live' : 'test')) return principal;
      const paired = await tenants.pairedStoreOf(principal.tenant.id, mode);
      return {
        ...principal,
        tenant: {
          id: paired.id,
          name: paired.name,
          plan: paired.plan,
          currency: paired.currency,
          api_version: paired.api_version,
          hourly_limit: paired.hourly_limit,
          monthly_limit: paired.monthly_limit,
          livemode: paired.mode !== 'test',
        },
      };
    },

    view(session: ConsoleSession): AccountView {
      return view(session.account, session.id, session.expiresAt);
    },

    /** 403 unless `header` is the session's CSRF token (compared in constant time). */
    checkCsrf(session: ConsoleSession, header: string | undefined): void {
      if (header === undefined || !equalSecrets(header, csrfTokenFor(session.id))) {
        throw new AppError(
          'insufficient_permissions',
          'Missing or invalid X-CSRF-Token header; reload the console and try again.',
        );
      }
    },
  };
}
