import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/auth.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import {
  InstallBody,
  PluginListQuery,
  PluginParams,
  PluginSchema,
  RatingBody,
  RatingSchema,
} from './plugins.schemas.js';

export function pluginRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const { plugins } = deps;
  return async (app) => {
    app.get(
      '/plugins',
      {
        config: { auth: 'read:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Browse the plugin marketplace',
          description: '`installed` and `installation` describe the calling tenant.',
          querystring: PluginListQuery,
          response: { 200: EnvelopeSchema(PluginSchema) },
        },
      },
      async (request) => plugins.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/plugins/:id',
      {
        config: { auth: 'read:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Get one plugin by id or slug',
          params: PluginParams,
          response: { 200: PluginSchema, ...errorResponses(404) },
        },
      },
      async (request) => plugins.get(principalOf(request).tenant.id, request.params.id),
    );

    app.post(
      '/plugins/:id/install',
      {
        config: { auth: 'write:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Install a plugin, granting it its permissions and events',
          description:
            '201 when this call installed it, 200 when it was already installed (nothing changes; ' +
            '`installs` counts a tenant once). The key must hold every permission the plugin needs ' +
            '(403 `insufficient_permissions` names the first one missing).',
          params: PluginParams,
          body: InstallBody,
          response: {
            200: { ...PluginSchema, description: 'Already installed' },
            201: { ...PluginSchema, description: 'Installed now' },
            ...errorResponses(...BODY_ERRORS, 404, 409, 422),
          },
        },
      },
      async (request, reply) => {
        const { plugin, created } = await plugins.install(principalOf(request), request.params.id);
        reply.code(created ? 201 : 200);
        return plugin;
      },
    );

    app.delete(
      '/plugins/:id/install',
      {
        config: { auth: 'write:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Uninstall a plugin, removing its grant',
          description: 'Idempotent: uninstalling a plugin that is not installed changes nothing.',
          params: PluginParams,
          response: { 200: PluginSchema, ...errorResponses(404) },
        },
      },
      async (request) => plugins.uninstall(principalOf(request).tenant.id, request.params.id),
    );

    app.post(
      '/plugins/:id/ratings',
      {
        config: { auth: 'write:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: "Rate a plugin (one rating per tenant; a new one replaces the tenant's previous one)",
          description:
            '201 for the tenant’s first rating of the plugin, 200 when it replaces the previous one ' +
            '(stars and comment both; `created` is kept).',
          params: PluginParams,
          body: RatingBody,
          response: {
            200: { ...RatingSchema, description: 'Rating replaced' },
            201: { ...RatingSchema, description: 'Rating created' },
            ...errorResponses(...BODY_ERRORS, 404, 409, 422),
          },
        },
      },
      async (request, reply) => {
        const { rating, created } = await plugins.rate(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
        );
        reply.code(created ? 201 : 200);
        return rating;
      },
    );
  };
}
