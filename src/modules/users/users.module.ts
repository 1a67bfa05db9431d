import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { userRoutes } from './users.routes.js';
import { createUserService, type UserService } from './users.service.js';

/** The user, store and key behind the calling credentials (`GET /users/me`). */

const PERMISSIONS = ['read:users'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    users: UserService;
  }
}

export default defineModule({
  name: 'users',
  position: 10,
  tags: [{ name: 'Users', description: 'The user, store and key behind the calling credentials' }],
  permissions: PERMISSIONS,
  operationIds: {
    'GET /v1/users/me': 'getCurrentUser',
  },
  services: (deps) => ({ users: createUserService(deps) }),
  routes: [{ plugin: userRoutes }],
});
