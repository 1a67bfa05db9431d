import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { principalOf } from '../../http/auth.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import type { Platform, Services } from '../../kernel/module.js';
import { ApiKeyListQuery, apiKeySchemas, KeyIdParams, RollApiKeyBody } from './api-keys.schemas.js';
import { keyMasked } from './api-keys.service.js';

export function apiKeyRoutes(
  deps: Pick<Platform, 'vocabulary'> & Pick<Services, 'apiKeys'>,
): FastifyPluginAsyncTypebox {
  const { apiKeys } = deps;
  const { ApiKeySchema, CreateApiKeyBody, NewApiKeySchema } = apiKeySchemas(deps.vocabulary);
  return async (app) => {
    app.get(
      '/api-keys',
      {
        config: { auth: 'read:keys', resource: 'api_key', list: true },
        schema: {
          tags: ['API keys'],
          summary: 'List the keys that still work (secret keys masked), newest first',
          querystring: ApiKeyListQuery,
          response: { 200: EnvelopeSchema(ApiKeySchema) },
        },
      },
      async (request) => apiKeys.list(principalOf(request), request.query),
    );

    app.get(
      '/api-keys/:id',
      {
        config: { auth: 'read:keys', resource: 'api_key' },
        schema: {
          tags: ['API keys'],
          summary: 'Get one key (a secret key masked)',
          params: KeyIdParams,
          response: { 200: ApiKeySchema, ...errorResponses(404) },
        },
      },
      async (request) => apiKeys.get(principalOf(request), request.params.id),
    );

    app.post(
      '/api-keys',
      {
        config: { auth: 'write:keys', replayed: keyMasked, resource: 'api_key' },
        schema: {
          tags: ['API keys'],
          summary: 'Create a key; a secret key is in full in this response only',
          description:
            'A secret key (`type: "secret"`, the default) holds `permissions`. A key can only grant permissions it holds itself, and a key with an expiry only keys that expire with it or earlier (403 `insufficient_permissions`; without `expires_at` the new key takes the caller\'s expiry). An idempotent replay (`Idempotent-Replayed: true`) or a retry after a 5xx answers the same key masked: the full value is shown once and never stored. A publishable key (`type: "publishable"`, `pk_live_...`) holds no permission (`permissions` is a 400) and may call only `/v1/store/*` (403 `publishable_key_not_allowed` anywhere else), from a browser at one of its `allowed_origins` (403 `origin_not_allowed` from another); it is public and shown in full by every read.',
          body: CreateApiKeyBody,
          response: { 201: NewApiKeySchema, ...errorResponses(...BODY_ERRORS, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return apiKeys.create(principalOf(request), request.body, idempotentWrite(request.idempotency));
      },
    );

    app.post(
      '/api-keys/:id/roll',
      {
        config: { auth: 'write:keys', replayed: keyMasked, resource: 'api_key' },
        schema: {
          tags: ['API keys'],
          summary: 'Replace a key with a new one; the old one works for `expires_in_seconds` more',
          description:
            'The new key keeps the name, type, permissions (or allowed origins) and expiry of the old one. A secret key is in full in this response only: an idempotent replay or a retry after a 5xx answers it masked (a publishable key is always in full). A key with an expiry cannot roll a key that expires later (403).',
          params: KeyIdParams,
          body: RollApiKeyBody,
          response: { 201: NewApiKeySchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return apiKeys.roll(
          principalOf(request),
          request.params.id,
          request.body?.expires_in_seconds ?? 0,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.delete(
      '/api-keys/:id',
      {
        config: { auth: 'write:keys' },
        schema: {
          tags: ['API keys'],
          summary: 'Revoke a key; it stops working at once',
          description:
            'A key can only revoke a key whose every permission it holds itself, and a key with an expiry only keys that expire with it or earlier (403 `insufficient_permissions`, with `required_permission` naming the first permission it lacks): it may revoke the keys it could have created or rolled, itself always included.',
          params: KeyIdParams,
          response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await apiKeys.revoke(principalOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
