import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import type { Platform, Services } from '../../kernel/module.js';
import { UpgradeBody, UpgradeResult, VersionListSchema } from './versions.schemas.js';

export function versionRoutes(
  deps: Pick<Platform, 'versions'> & Pick<Services, 'tenants'>,
): FastifyPluginAsyncTypebox {
  const { versions, tenants } = deps;
  return async (app) => {
    app.get(
      '/versions',
      {
        config: { auth: 'any_key' },
        schema: {
          tags: ['Versions'],
          summary: 'The dated API versions, their releases and changelogs',
          response: { 200: VersionListSchema },
        },
      },
      async (request) => ({
        data: versions.list().map((v) => ({
          version: v.version,
          release: v.release,
          latest: v.version === versions.latest.version,
          changelog: v.changelog,
        })),
        latest: versions.latest.version,
        pinned: principalOf(request).tenant.api_version,
        used: request.apiVersion,
      }),
    );

    app.post(
      '/versions/upgrade',
      {
        config: { auth: 'write:settings' },
        schema: {
          tags: ['Versions'],
          summary: 'Pin the tenant to a newer version (default: the latest)',
          description: 'Requests without `X-Service-Version` use the pinned version. Downgrades are refused.',
          body: UpgradeBody,
          response: { 200: UpgradeResult, ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request) => tenants.upgradeApiVersion(principalOf(request).tenant.id, request.body.version),
    );
  };
}
