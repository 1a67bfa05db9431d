import type { Store } from '../../db/store.js';
import { notFound } from '../../http/errors.js';
import { iso } from '../../lib/clock.js';
import type { Principal } from '../../lib/principal.js';
import { findUser } from '../tenants/tenants.repository.js';

const USER_CACHE_TTL_MS = 5_000;

export type UserService = ReturnType<typeof createUserService>;

export function createUserService(deps: { store: Store }) {
  // Users change rarely; /users/me is hot. A short-lived cache keeps it off the database.
  const cache = new Map<
    string,
    { at: number; user: NonNullable<Awaited<ReturnType<typeof findUser>>>; created: string }
  >();

  return {
    async me(principal: Principal, now: number) {
      let entry = cache.get(principal.userId);
      if (!entry || now - entry.at > USER_CACHE_TTL_MS) {
        const user = await findUser(deps.store.db, principal.userId);
        if (!user) throw notFound('user');
        entry = { at: now, user, created: iso(user.created) };
        if (cache.size > 10_000) cache.clear();
        cache.set(user.id, entry);
      }
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
    },
  };
}
