import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Each tenant's share of a pool of store connections. Code that runs as a tenant (`run`: the
 * request gate does it once the key is known) holds, or waits in the pool for, at most `perTenant`
 * connections at once. Beyond that its requests wait in the tenant's own queue, never in the
 * pool's, for at most `waitMs`, and at most `queueLimit` of them at once; past either bound they
 * are refused with `refuse()`. So requests of one tenant stuck on a row lock, or on slow
 * statements, take at most its share of the pool, and every other tenant keeps the rest.
 * Work outside a tenant (key lookups, background jobs) takes connections from the pool directly.
 *
 * A request that already had a connection goes ahead, in the tenant's queue, of those that have
 * not started: under a burst a request finishes what it began (a completion's order, once its
 * stock is held and its card charged) before the tenant's next requests begin, so the queue's
 * wait falls on a request's first statement and not again on each of its transactions. A route
 * may ask its requests to go ahead from the first (`run`'s `ahead`: a cart's completion, the sale
 * itself, before browsing). A request under way is never refused for the queue's length.
 */

export interface TenantShareOptions {
  /** Connections one tenant may hold, or wait for in the pool, at once. */
  perTenant: number;
  /** How long a request beyond that waits for one of its tenant's connections. */
  waitMs: number;
  /** How many requests of one tenant may wait so at once; more are refused at once. */
  queueLimit: number;
  /** The error a refused request gets. */
  refuse: (reason: 'queue_full' | 'wait_expired') => Error;
}

interface Waiter {
  start(): void;
  timer: NodeJS.Timeout;
}

interface Share {
  /** Connections the tenant holds or is waiting for in the pool. */
  active: number;
  /** Requests that have not had a connection yet, and those that have (served first). */
  waiting: Waiter[];
  ahead: Waiter[];
}

/** One `run`: its tenant, and whether it has had a connection (or goes ahead as if it had). */
interface Scope {
  tenant: string;
  started: boolean;
}

export function createTenantShare<C extends object>(connect: () => Promise<C>, options: TenantShareOptions) {
  const scope = new AsyncLocalStorage<Scope>();
  const shares = new Map<string, Share>();
  /** The tenant each connection handed out under a tenant was taken for. */
  const owners = new WeakMap<C, string>();

  function take(tenant: string, share: Share): Promise<C> {
    share.active++;
    return connect().then(
      (connection) => {
        owners.set(connection, tenant);
        return connection;
      },
      (error: unknown) => {
        done(tenant, share);
        throw error;
      },
    );
  }

  /** One of the tenant's connections is back (or was never had): the next in its queue goes. */
  function done(tenant: string, share: Share): void {
    share.active--;
    const next = share.ahead.shift() ?? share.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    } else if (share.active === 0) {
      shares.delete(tenant);
    }
  }

  return {
    /**
     * Runs `fn`, and everything it starts, as `tenant`'s; `ahead`: its first wait too goes ahead
     * of the tenant's new requests (a cart's completion), as a request already under way does.
     */
    run<T>(tenant: string, fn: () => T, ahead = false): T {
      return scope.run({ tenant, started: ahead }, fn);
    },

    /** Runs `fn`, and everything it starts, outside any tenant's share. */
    outside<T>(fn: () => T): T {
      return scope.exit(fn);
    },

    /** A connection from the pool, within the share of the tenant running, if any. */
    connect(): Promise<C> {
      const current = scope.getStore();
      if (current === undefined) return connect();
      const { tenant, started } = current;
      current.started = true;
      let share = shares.get(tenant);
      if (!share) {
        share = { active: 0, waiting: [], ahead: [] };
        shares.set(tenant, share);
      }
      if (share.active < options.perTenant) return take(tenant, share);
      // A request already under way is never refused for the queue's length: it was let in.
      const queue = started ? share.ahead : share.waiting;
      if (!started && queue.length >= options.queueLimit) {
        return Promise.reject(options.refuse('queue_full'));
      }
      const owner = share;
      return new Promise<C>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => void take(tenant, owner).then(resolve, reject),
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            reject(options.refuse('wait_expired'));
          }, options.waitMs),
        };
        queue.push(waiter);
      });
    },

    /** Tells the share that `connection` went back to the pool. */
    released(connection: C): void {
      const tenant = owners.get(connection);
      if (tenant === undefined) return;
      owners.delete(connection);
      const share = shares.get(tenant);
      if (share) done(tenant, share);
    },
  };
}
