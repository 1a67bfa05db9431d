import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';

const VersionSchema = Type.Object({
  version: Type.String({ examples: ['2026-11-21'] }),
  release: Type.String({ examples: ['v2.4'] }),
  latest: Type.Boolean(),
  changelog: Type.Array(Type.String()),
});

const VersionListSchema = Type.Object({
  data: Type.Array(VersionSchema, { description: 'Oldest first.' }),
  latest: Type.String(),
  pinned: Type.String({ description: 'The version the calling tenant is pinned to.' }),
  used: Type.String({ description: 'The version this request was served in (X-Service-Version).' }),
});

const UpgradeBody = Type.Object(
  { version: Type.Optional(Type.String({ description: 'Defaults to the latest version.' })) },
  { additionalProperties: false },
);

const UpgradeResult = Type.Object({ previous_version: Type.String(), api_version: Type.String() });

export function versionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
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
