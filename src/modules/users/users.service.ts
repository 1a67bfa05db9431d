import type { Store } from '../../db/store.js';
import { notFound } from '../../lib/errors.js';
import { iso } from '../../lib/clock.js';
import type { Principal } from '../../lib/principal.js';
import { findUser } from '../tenants/index.js';
import type { CurrentUser } from './users.schemas.js';

const USER_CACHE_TTL_MS = 5_000;

export type UserService = ReturnType<typeof createUserService>;

export function createUserService(deps: { store: Store }) {
  // Users change rarely; /users/me is hot. A short-lived cache keeps it off the database.
  const cache = new Map<
    string,
    { at: number; user: NonNullable<Awaited<ReturnType<typeof findUser>>>; created: string }
  >();

  type CachedUser = NonNullable<ReturnType<typeof cache.get>>;

  function present(entry: CachedUser, principal: Principal) {
    const { user, created } = entry;
    const { tenant, key } = principal;
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      created,
      tenant: {
        id: tenant.id,
        name: tenant.name,
        plan: tenant.plan,
        api_version: tenant.api_version,
        currency: tenant.currency,
      },
      api_key: { id: key.id, name: key.name, permissions: [...key.permissions] },
    };
  }

  async function load(principal: Principal, now: number): Promise<CachedUser> {
    const user = await findUser(deps.store.db, principal.userId);
    if (!user) throw notFound('user');
    const entry = { at: now, user, created: iso(user.created) };
    if (cache.size > 10_000) cache.clear();
    cache.set(user.id, entry);
    return entry;
  }

  return {
    /** The caller's user; synchronous while the user is cached (no promise on this hot route). */
    me(principal: Principal, now: number): CurrentUser | Promise<CurrentUser> {
      const entry = cache.get(principal.userId);
      if (entry && now - entry.at <= USER_CACHE_TTL_MS) return present(entry, principal);
      return load(principal, now).then((loaded) => present(loaded, principal));
    },
  };
}
