import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Each tenant's share of a pool of store connections. Code that runs as a tenant (`run`: the
 * request gate does it once the key is known) holds, or waits in the pool for, at most `perTenant`
 * connections at once. Beyond that its requests wait in the tenant's own queue, never in the
 * pool's, for at most `waitMs`, and at most `queueLimit` of them at once; past either bound they
 * are refused with `refuse()`. So requests of one tenant stuck on a row lock, or on slow
 * statements, take at most its share of the pool, and every other tenant keeps the rest.
 * Work outside a tenant (key lookups, background jobs) takes connections from the pool directly.
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
  waiting: Waiter[];
}

export function createTenantShare<C extends object>(connect: () => Promise<C>, options: TenantShareOptions) {
  const scope = new AsyncLocalStorage<string>();
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
    const next = share.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    } else if (share.active === 0) {
      shares.delete(tenant);
    }
  }

  return {
    /** Runs `fn`, and everything it starts, as `tenant`'s. */
    run<T>(tenant: string, fn: () => T): T {
      return scope.run(tenant, fn);
    },

    /** Runs `fn`, and everything it starts, outside any tenant's share. */
    outside<T>(fn: () => T): T {
      return scope.exit(fn);
    },

    /** A connection from the pool, within the share of the tenant running, if any. */
    connect(): Promise<C> {
      const tenant = scope.getStore();
      if (tenant === undefined) return connect();
      let share = shares.get(tenant);
      if (!share) {
        share = { active: 0, waiting: [] };
        shares.set(tenant, share);
      }
      if (share.active < options.perTenant) return take(tenant, share);
      if (share.waiting.length >= options.queueLimit) return Promise.reject(options.refuse('queue_full'));
      const queue = share;
      return new Promise<C>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => void take(tenant, queue).then(resolve, reject),
          timer: setTimeout(() => {
            queue.waiting.splice(queue.waiting.indexOf(waiter), 1);
            reject(options.refuse('wait_expired'));
          }, options.waitMs),
        };
        queue.waiting.push(waiter);
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
