import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../lib/principal.js';
import { type Actor, type AuditContext, runWithAuditContext } from './audit.context.js';

/**
 * The audit context of each write request (audit.context.ts), set by two callback hooks of every
 * POST, PUT, PATCH and DELETE route: on arrival (its id and address; nobody yet), and again before
 * the handler, once the gate has named the principal (the actor and the tenant's mode) and the body
 * has been read (reading it runs in the socket's context, not the request's, so the context is
 * entered again). AsyncLocalStorage
 * rather than a parameter: services take plain values and know nothing of requests, and every
 * service the request reaches, however deep, writes its entries with the same actor.
 */

const CONTEXT = Symbol('auditContext');
const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
type WithContext = FastifyRequest & { [CONTEXT]?: AuditContext };

/** Who a principal is, as the log names it. */
export function actorOf(principal: Principal | null, storefront: boolean): Actor {
  if (principal === null) return { type: storefront ? 'customer' : 'user', id: null, name: null };
  if (principal.app) {
    return { type: 'app', id: principal.app.installationId, name: principal.app.pluginName };
  }
  if (principal.key.type === 'publishable') return { type: 'customer', id: null, name: null };
  // A console session acts as its user (it has no key of its own: its key id is `console`).
  if (principal.key.id === 'console') return { type: 'user', id: principal.userId, name: principal.key.name };
  return { type: 'api_key', id: principal.key.id, name: principal.key.name };
}

export function installAuditHooks(app: FastifyInstance): void {
  const enter = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const context: AuditContext = {
      actor: { type: 'user', id: null, name: null },
      requestId: request.id,
      ip: request.ip,
      livemode: undefined,
      entries: 0,
    };
    (request as WithContext)[CONTEXT] = context;
    runWithAuditContext(context, done);
  };
  const enterAgain = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const context = (request as WithContext)[CONTEXT];
    if (context === undefined) {
      done();
      return;
    }
    context.actor = actorOf(request.principal, request.url.startsWith('/v1/store/'));
    context.livemode = request.principal?.tenant.livemode;
    runWithAuditContext(context, done);
  };
  // Only on routes that can change something: reads are not audited, and a GET route carries no
  // hook of this module (nor enters the context's AsyncLocalStorage).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => WRITES.has(method))) return;
    const list = (hooks: unknown): unknown[] =>
      hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
    route.onRequest = [enter, ...list(route.onRequest)] as typeof route.onRequest;
    route.preHandler = [enterAgain, ...list(route.preHandler)] as typeof route.preHandler;
  });
}

/** How many audit entries the request wrote so far (the route walk's check). */
export function auditEntriesOf(request: FastifyRequest): number {
  return (request as WithContext)[CONTEXT]?.entries ?? 0;
}
