import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/auth.js';
import { CurrentUserSchema } from './users.schemas.js';

export function userRoutes(deps: Deps): FastifyPluginAsyncTypebox {
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
      (request) => deps.users.me(principalOf(request), deps.clock.now()),
    );
  };
}
