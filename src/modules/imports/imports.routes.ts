import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { Platform, Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { validatorCompiler } from '../../http/validation.js';
import { AppError, validationError } from '../../lib/errors.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import type { Permission } from '../../kernel/vocabulary.js';
import {
  CreateImportHeaders,
  CreateImportQuery,
  IMPORT_MODES,
  IMPORT_ON_ERROR,
  IMPORT_RESOURCES,
  ImportBodySchema,
  ImportErrorListSchema,
  ImportIdParams,
  ImportListQuery,
  ImportListSchema,
  ImportSchema,
  type ImportSettings,
  MAX_IMPORT_BYTES,
  QueuedImportSchema,
} from './imports.schemas.js';
import {
  CONTENT_TYPES,
  discardUpload,
  spoolUpload,
  unsupportedMediaType,
  uploadOf,
} from './imports.upload.js';

const TAGS = ['Imports and exports'];

function oneOf<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const value = query[name];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw validationError(name, value === undefined ? 'is required' : `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * The import's settings from the query string, read before the body is: a bad query or a key
 * without the resource's write permission is refused before 50 MiB are received.
 */
function settingsOf(request: FastifyRequest): ImportSettings {
  const query = request.query as Record<string, unknown>;
  const resource = oneOf(query, 'resource', IMPORT_RESOURCES);
  const mode = oneOf(query, 'mode', IMPORT_MODES, 'upsert');
  const dryRun = oneOf(query, 'dry_run', ['true', 'false'] as const, 'false');
  const onError = oneOf(query, 'on_error', IMPORT_ON_ERROR, 'abort');
  const unknown = Object.keys(query).find(
    (name) => !['resource', 'mode', 'dry_run', 'on_error'].includes(name),
  );
  if (unknown !== undefined) throw validationError(unknown, 'is not an accepted parameter');
  return { resource, mode, dry_run: dryRun === 'true', on_error: onError };
}

/** The upload route validates its query itself (above); its body is a file, not JSON to validate. */
const uploadValidator: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

export function importRoutes(
  deps: Pick<Platform, 'config'> & Pick<Services, 'imports'>,
): FastifyPluginAsyncTypebox {
  const { imports } = deps;
  return async (app) => {
    app.get(
      '/imports',
      {
        config: { auth: 'read:imports', resource: 'import', list: true },
        schema: {
          tags: TAGS,
          summary: 'List imports, newest first',
          querystring: ImportListQuery,
          response: { 200: ImportListSchema },
        },
      },
      async (request) => imports.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/imports/:id',
      {
        config: { auth: 'read:imports', resource: 'import' },
        schema: {
          tags: TAGS,
          summary: "An import's progress and outcome",
          params: ImportIdParams,
          response: { 200: ImportSchema, ...errorResponses(404) },
        },
      },
      async (request) => imports.get(principalOf(request).tenant.id, request.params.id),
    );

    app.get(
      '/imports/:id/errors',
      {
        config: { auth: 'read:imports' },
        schema: {
          tags: TAGS,
          summary: 'Every error of an import, in the order found',
          params: ImportIdParams,
          querystring: ImportListQuery,
          response: { 200: ImportErrorListSchema, ...errorResponses(404) },
        },
      },
      async (request) => imports.errors(principalOf(request).tenant.id, request.params.id, request.query),
    );

    // The upload has a context of its own: its body is a file (CSV or JSON Lines) up to 50 MiB,
    // streamed to a spool file, instead of JSON up to 1 MiB.
    await app.register(async (upload) => {
      upload.removeAllContentTypeParsers();
      const spool = spoolUpload(
        path.join(deps.config.dataDir, 'uploads'),
        (request) => (request.query as { resource?: unknown }).resource === 'products',
      );
      upload.addContentTypeParser([CONTENT_TYPES.csv, CONTENT_TYPES.jsonl], spool);
      upload.addContentTypeParser('*', async () => {
        throw unsupportedMediaType();
      });
      upload.post(
        '/imports',
        {
          config: { auth: 'write:imports', resource: 'import' },
          bodyLimit: MAX_IMPORT_BYTES,
          validatorCompiler: uploadValidator,
          schema: {
            tags: TAGS,
            summary: 'Import products or customers from a file',
            description: `The body is the file: \`text/csv\` (the columns \`GET /exports/{resource}\` writes, or for products a Shopify or WooCommerce product export as it comes; the columns nothing is read from are listed in \`ignored_columns\`) or \`application/x-ndjson\` (JSON Lines), in UTF-8, at most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB (413 past it; 415 for another type; 422 \`invalid_import\` for a body that is no CSV or JSON Lines at all). Also needs the resource's write permission (\`write:products\` or \`write:customers\`). Answers 202 at once: the import runs in the background, in batches; follow it with \`GET /imports/{id}\`. See docs/imports-and-exports.md.`,
            querystring: CreateImportQuery,
            headers: CreateImportHeaders,
            consumes: [CONTENT_TYPES.csv, CONTENT_TYPES.jsonl],
            body: ImportBodySchema,
            response: { 202: QueuedImportSchema, ...errorResponses(413, 415, 422) },
          },
          preParsing: async (request) => {
            const settings = settingsOf(request);
            const needed: Permission = `write:${settings.resource}`;
            if (!principalOf(request).key.permissions.has(needed)) {
              throw new AppError('insufficient_permissions', `This API key lacks the ${needed} permission.`, {
                extra: { required_permission: needed },
              });
            }
          },
          onResponse: async (request) => discardUpload(request),
        },
        async (request, reply) => {
          const upload = uploadOf(request);
          if (upload === undefined) throw unsupportedMediaType();
          const query = request.query as CreateImportQuery;
          const created = await imports.create(
            principalOf(request).tenant.id,
            {
              resource: query.resource as ImportSettings['resource'],
              mode: (query.mode ?? 'upsert') as ImportSettings['mode'],
              dry_run: query.dry_run === true,
              on_error: (query.on_error ?? 'abort') as ImportSettings['on_error'],
            },
            upload,
            idempotentWrite(request.idempotency),
          );
          reply.code(202);
          return created;
        },
      );
    });
  };
}
