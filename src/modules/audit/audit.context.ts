import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is changing the store, for the audit entries written on the way: set once per request by
 * the audit module's request hooks (audit.hooks.ts), per operator command by the CLI, and absent
 * for the system's own work (sweeps, expiry, the first-party plugins' jobs). Services never pass
 * it: they call the recorder with the change, and the recorder reads who made it from here.
 */

export type ActorType = 'user' | 'api_key' | 'app' | 'customer' | 'system' | 'operator';

export interface Actor {
  type: ActorType;
  id: string | null;
  name: string | null;
}

export interface AuditContext {
  actor: Actor;
  requestId: string | null;
  ip: string | null;
  /** The tenant's mode as the request's key saw it; undefined: live unless the tenant says. */
  livemode: boolean | undefined;
  /** Entries recorded under this context so far (the route walk's check that a write wrote one). */
  entries: number;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: 'system' };

const storage = new AsyncLocalStorage<AuditContext>();

/** The context of the work running now, if a request or an operator command set one. */
export function currentAuditContext(): AuditContext | undefined {
  return storage.getStore();
}

/** Runs `fn`, and everything it starts, under `context`. */
export function runWithAuditContext<T>(context: AuditContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** Runs `fn` as `actor` outside any request (the operator CLI, a test standing in for a job). */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  return storage.run({ actor, requestId: null, ip: null, livemode: undefined, entries: 0 }, fn);
}
