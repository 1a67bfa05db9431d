import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import type { Platform, Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { withoutSecret } from '../webhooks/index.js';
import {
  InstallBody,
  PluginDeliverySchema,
  PluginInstallationSchema,
  PluginListQuery,
  PluginParams,
  pluginSchemas,
  PublisherListQuery,
  RatingBody,
  RatingSchema,
} from './plugins.schemas.js';

/** Version transforms of plugin objects (src/modules/versions/changes/). */
const resource = 'plugin';

export function pluginRoutes(
  deps: Pick<Platform, 'vocabulary'> & Pick<Services, 'plugins'>,
): FastifyPluginAsyncTypebox {
  const { plugins } = deps;
  const { PluginSchema, NewPluginSchema, CreatePluginBody, UpdatePluginBody } = pluginSchemas(
    deps.vocabulary,
  );
  return async (app) => {
    app.get(
      '/plugins',
      {
        config: { auth: 'read:plugins', resource, list: true },
        schema: {
          tags: ['Plugins'],
          summary: 'Browse the plugin marketplace',
          description:
            'Published plugins, and the caller’s own plugins whatever their status. `installed`, `installation` and `my_rating` describe the calling store.',
          querystring: PluginListQuery,
          response: { 200: EnvelopeSchema(PluginSchema) },
        },
      },
      async (request) => plugins.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/plugins/:id',
      {
        config: { auth: 'read:plugins', resource },
        schema: {
          tags: ['Plugins'],
          summary: 'Get one plugin by id or slug',
          description: 'A plugin that is not published is found by its publisher only (404 for anyone else).',
          params: PluginParams,
          response: { 200: PluginSchema, ...errorResponses(404) },
        },
      },
      async (request) => plugins.get(principalOf(request).tenant.id, request.params.id),
    );

    app.post(
      '/plugins',
      {
        config: { auth: 'publish:plugins', replayed: withoutSecret },
        schema: {
          tags: ['Plugins'],
          summary: 'Publish a plugin (created as a draft)',
          description:
            'The plugin belongs to the calling store, in `draft`: visible to and installable by its publisher only, until it is submitted and approved. `webhook_url` is checked as webhook URLs are (422 `invalid_webhook_url`). The signing `secret` of its deliveries is in this response only (an idempotent replay answers without it).',
          body: CreatePluginBody,
          response: {
            201: { ...NewPluginSchema, description: 'Created, with its `secret`' },
            ...errorResponses(...BODY_ERRORS, 409, 422),
          },
        },
      },
      async (request, reply) => {
        const plugin = await plugins.create(
          principalOf(request),
          request.body,
          idempotentWrite(request.idempotency),
        );
        reply.code(201);
        return plugin;
      },
    );

    app.patch(
      '/plugins/:id',
      {
        config: { auth: 'publish:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Change one of your plugins',
          description:
            'Only the publisher’s own plugins (404 otherwise). A `draft` or `rejected` plugin changes at once; nothing changes while it is `in_review` (409 `invalid_state_transition`). A `published` plugin stays as the operator approved it: the changes go into its `pending_revision` (one per plugin; a later change adds to it), which goes live in every store only once the operator approves it. The slug never changes.',
          params: PluginParams,
          body: UpdatePluginBody,
          response: { 200: PluginSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) => plugins.update(principalOf(request), request.params.id, request.body),
    );

    app.post(
      '/plugins/:id/submit',
      {
        config: { auth: 'publish:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'Submit your plugin for review',
          description:
            'A `draft` or `rejected` plugin becomes `in_review`; the operator approves (`published`) or rejects it. Any other status is 409 `invalid_state_transition`.',
          params: PluginParams,
          body: EmptyBody,
          response: { 200: PluginSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) => plugins.submit(principalOf(request), request.params.id),
    );

    app.get(
      '/plugins/:id/installations',
      {
        config: { auth: 'publish:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'The stores that have your plugin installed',
          description: 'Newest first. Only for the plugin’s publisher (404 otherwise).',
          params: PluginParams,
          querystring: PublisherListQuery,
          response: { 200: EnvelopeSchema(PluginInstallationSchema), ...errorResponses(404) },
        },
      },
      async (request) => plugins.installations(principalOf(request), request.params.id, request.query),
    );

    app.get(
      '/plugins/:id/deliveries',
      {
        config: { auth: 'publish:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: 'The delivery log of your plugin',
          description:
            'Every attempt to deliver an event to the plugin’s URL, across its installations, newest first. Only for the plugin’s publisher (404 otherwise).',
          params: PluginParams,
          querystring: PublisherListQuery,
          response: { 200: EnvelopeSchema(PluginDeliverySchema), ...errorResponses(404) },
        },
      },
      async (request) => plugins.deliveries(principalOf(request), request.params.id, request.query),
    );

    app.post(
      '/plugins/:id/install',
      {
        config: { auth: 'write:plugins', resource },
        schema: {
          tags: ['Plugins'],
          summary: 'Install a plugin, granting it its permissions and events',
          description:
            '201 when this call installed it, 200 when it was already installed (nothing changes; `installs` counts a store once). The key must hold every permission the plugin needs (403 `insufficient_permissions` names the first one missing). Installing mints the installation token, subscribes the plugin’s URL to its events for this store and sends it `app.installed` with the token; the token appears nowhere else.',
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

    app.post(
      '/plugins/:id/install/accept',
      {
        config: { auth: 'write:plugins', resource },
        schema: {
          tags: ['Plugins'],
          summary: 'Accept the permissions and events a plugin now asks for',
          description:
            'When an approved revision of the plugin asks for more than this store granted, its installation shows them in `pending_permissions` and its token keeps its `granted_permissions` until this call grants them: the token holds the new permissions and the plugin receives the new events from then on, and it is sent `app.permissions_updated`. The key must hold every permission the plugin asks for (403 `insufficient_permissions` names the first one missing). 409 `invalid_state_transition` when the plugin is not installed or nothing awaits acceptance.',
          params: PluginParams,
          body: InstallBody,
          response: { 200: PluginSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) => plugins.accept(principalOf(request), request.params.id),
    );

    app.delete(
      '/plugins/:id/install',
      {
        config: { auth: 'write:plugins', resource },
        schema: {
          tags: ['Plugins'],
          summary: 'Uninstall a plugin',
          description:
            'Its installation token stops working at once (401 `invalid_api_key`), its pending deliveries are dropped and it is sent `app.uninstalled`. Idempotent: uninstalling a plugin that is not installed changes nothing.',
          params: PluginParams,
          response: { 200: PluginSchema, ...errorResponses(404) },
        },
      },
      async (request) => plugins.uninstall(principalOf(request), request.params.id),
    );

    app.post(
      '/plugins/:id/ratings',
      {
        config: { auth: 'write:plugins' },
        schema: {
          tags: ['Plugins'],
          summary: "Rate a plugin (one rating per store; a new one replaces the store's previous one)",
          description:
            '201 for the store’s first rating of the plugin, 200 when it replaces the previous one (stars and comment both; `created` is kept). Only a store that installed the plugin may rate it (409 `invalid_state_transition` otherwise).',
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
