import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/auth.js';
import { type CurrentUser, CurrentUserSchema } from './users.schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The service builds exactly `CurrentUserSchema` (typed, field by field, in the schema's order), so
 * the 200 is written with the native JSON.stringify: on this hot route fast-json-stringify's
 * per-string escaping (25 strings) cost more than the rest of the handler, and its rope output was
 * flattened again to measure Content-Length. The schema still documents the response, and an
 * error keeps the problem serializer (the reply's serializer is set only on success).
 */
function written(reply: FastifyReply, user: CurrentUser): CurrentUser {
  reply.type(JSON_TYPE).serializer(JSON.stringify);
  return user;
}

export function userRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const { users, clock } = deps;
  return async (app) => {
    app.get(
      '/users/me',
      {
        config: { auth: 'read:users' },
        schema: {
          tags: ['Users'],
          summary: 'The user who owns the calling key, with its tenant and key',
          response: { 200: CurrentUserSchema },
        },
      },
      (request, reply) => {
        const user = users.me(principalOf(request), clock.now());
        return user instanceof Promise ? user.then((loaded) => written(reply, loaded)) : written(reply, user);
      },
    );
  };
}
