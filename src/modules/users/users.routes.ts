import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import type { Platform, Services } from '../../kernel/module.js';
import { currentUserSchema } from './users.schemas.js';

export function userRoutes(
  deps: Pick<Platform, 'clock' | 'vocabulary'> & Pick<Services, 'users'>,
): FastifyPluginAsyncTypebox {
  const { users, clock } = deps;
  const CurrentUserSchema = currentUserSchema(deps.vocabulary);
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
        // The service builds exactly `CurrentUserSchema` (typed, field by field, in the schema's
        // order), and problems are built in their schema's order with extra fields allowed, so this
        // hot route is written with the native JSON.stringify: fast-json-stringify's per-string
        // escaping (25 strings) cost more than the rest of the handler, and its rope output was
        // flattened again to measure Content-Length. The schemas still document the responses.
        serializerCompiler: () => JSON.stringify,
      },
      (request) => users.me(principalOf(request), clock.now()),
    );
  };
}
