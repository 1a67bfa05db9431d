import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { UsageRecorder } from './usage.meter.js';

/** `GET /v1/products/:id` -> `GET /products/{id}`: the method and route template, without `/v1`. */
export function endpointName(method: string, routeUrl: string): string {
  const path = routeUrl.replace(/^\/v1(?=\/|$)/, '') || '/';
  return `${method} ${path.replace(/:(\w+)/g, '{$1}')}`;
}

/**
 * onResponse, attached to each route that takes a key (`meterRoute(route.url)` in onRoute, so the
 * route template is known without reading it per request): every authenticated response, refused
 * ones included, goes to the meter.
 */
export function meteringHook(meter: UsageRecorder, clock: Clock) {
  return function meterRoute(routeUrl: string) {
    // By method: a GET route's HEAD twin shares its URL.
    const names = new Map<string, string>();
    // A callback hook, not an async one: no promise and no extra microtask per response.
    return function meterResponse(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      const principal = request.principal;
      if (!principal) {
        done();
        return;
      }
      let endpoint = names.get(request.method);
      if (endpoint === undefined) {
        endpoint = endpointName(request.method, routeUrl);
        names.set(request.method, endpoint);
      }
      const limits = request.limits;
      // Counted against the quota only when the limiter admitted it: not when it refused the call
      // (429), nor when it could not decide (the call was answered 5xx before it was counted).
      const admitted = limits !== null && limits !== undefined && limits.refused == null;
      meter.record(
        principal.tenant.id,
        endpoint,
        reply.statusCode,
        reply.elapsedTime,
        limits?.at ?? clock.now(),
        !admitted,
        principal.app?.pluginId,
      );
      done();
    };
  };
}
