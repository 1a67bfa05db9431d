import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { versionRoutes } from './versions.routes.js';

/**
 * The dated API versions (the registry itself is the platform's `versions`): listing them, and
 * pinning a store to one.
 */

// `POST /versions/upgrade` changes the store's settings: its pinned version.
const PERMISSIONS = ['write:settings'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}

export default defineModule({
  name: 'versions',
  position: 30,
  tags: [
    { name: 'Versions', description: 'Dated API versions, their changelogs, and pinning a store to one' },
  ],
  permissions: PERMISSIONS,
  operationIds: {
    'GET /v1/versions': 'listVersions',
    'POST /v1/versions/upgrade': 'upgradeVersion',
  },
  needs: ['tenants'],
  routes: [{ plugin: versionRoutes }],
});
