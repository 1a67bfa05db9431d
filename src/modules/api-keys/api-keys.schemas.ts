import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { API_KEY_EXAMPLE, NEW_API_KEY_EXAMPLE, PUBLISHABLE_KEY_EXAMPLE } from './api-keys.examples.js';
import { MAX_ALLOWED_ORIGINS } from './api-keys.origins.js';

/** A key's kind: `secret` (server side, with permissions) or `publishable` (a browser's, public). */
export const KeyTypeSchema = Type.Union([Type.Literal('secret'), Type.Literal('publishable')], {
  description:
    '`secret` (`sk_live_`): holds permissions, for servers. `publishable` (`pk_live_`): public, holds no permission and may call only the storefront routes (`/v1/store/*`), from a browser at one of its `allowed_origins`.',
});

/** A key's mode: the store it acts on, live or its test mode. */
export const KeyModeSchema = Type.Union([Type.Literal('live'), Type.Literal('test')], {
  description:
    '`live` (`sk_live_`, `pk_live_`): the store. `test` (`sk_test_`, `pk_test_`): its test mode, a store of its own whose data never mixes with live.',
});

/**
 * A permission, as one of the vocabulary's: the modules declare the permissions, so the list is
 * known once they are found, not when this file is imported.
 */
export function permissionSchema(vocabulary: Vocabulary) {
  return Type.Unsafe<Permission>({
    type: 'string',
    enum: [...vocabulary.permissions],
    description: 'A permission; each operation in this document says which one it requires.',
  });
}

/** The schemas that hold the list of permissions, built once by the routes and the manifest. */
export function apiKeySchemas(vocabulary: Vocabulary) {
  const PermissionSchema = permissionSchema(vocabulary);

  const ApiKeySchema = Type.Object(
    {
      id: Type.String({ examples: ['key_4fGz0aQm1bX9sT2uV7wY3cE5'] }),
      name: Type.String(),
      type: KeyTypeSchema,
      mode: KeyModeSchema,
      key: Type.String({
        description:
          'A secret key: in full in the response that creates or rolls it, masked everywhere else. A publishable key: in full always (it is public).',
        examples: ['sk_live_****_****_****_a1B2'],
      }),
      permissions: Type.Array(PermissionSchema, { description: 'Empty for a publishable key.' }),
      allowed_origins: Type.Array(Type.String({ examples: ['https://shop.example.com'] }), {
        description:
          'The browser origins a publishable key answers (CORS on `/v1/store/*`), normalised; `[]` for a secret key.',
      }),
      status: Type.Union([Type.Literal('Active'), Type.Literal('Expiring')], {
        description: '`Expiring` when `expires_at` is within 7 days.',
      }),
      created: Timestamp,
      last_used: Nullable(Timestamp),
      expires_at: Nullable(Timestamp),
      livemode: Type.Boolean({ description: 'false for a key of the store’s test mode (`mode: "test"`).' }),
    },
    { examples: [API_KEY_EXAMPLE, PUBLISHABLE_KEY_EXAMPLE] },
  );

  /** The answer that creates or rolls a key: its example shows the key in full, as that answer does once. */
  const NewApiKeySchema = { ...ApiKeySchema, examples: [NEW_API_KEY_EXAMPLE] };

  const CreateApiKeyBody = Type.Object(
    {
      name: Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: LINE_PATTERN,
        description: 'One line, not blank.',
      }),
      type: Type.Optional({ ...KeyTypeSchema, default: 'secret' }),
      mode: Type.Optional({
        ...KeyModeSchema,
        description:
          'The store the key acts on: `live`, or `test` for its test mode (`sk_test_`, `pk_test_`). Default: the calling key’s mode.',
      }),
      permissions: Type.Optional(
        Type.Array(PermissionSchema, {
          minItems: 1,
          uniqueItems: true,
          description: 'Required for a secret key; absent for a publishable key, which holds none.',
        }),
      ),
      allowed_origins: Type.Optional(
        Type.Array(
          Type.String({
            minLength: 1,
            maxLength: 255,
            description:
              'An `https://` origin (scheme, host and optional port, no path), or `http://localhost:PORT` / `http://127.0.0.1:PORT` for development.',
          }),
          {
            maxItems: MAX_ALLOWED_ORIGINS,
            description:
              'Required for a publishable key (`[]`: no browser may use it), absent for a secret key. Normalised: lowercase host, no default port, no trailing slash.',
          },
        ),
      ),
      expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'Must be in the future.' })),
    },
    {
      additionalProperties: false,
      examples: [
        {
          name: 'Warehouse sync',
          permissions: ['read:products', 'write:products'],
          expires_at: '2027-06-30T00:00:00.000Z',
        },
        { name: 'Web shop', type: 'publishable', allowed_origins: ['https://shop.example.com'] },
      ],
    },
  );

  return { PermissionSchema, ApiKeySchema, NewApiKeySchema, CreateApiKeyBody };
}

type ApiKeySchemas = ReturnType<typeof apiKeySchemas>;
export type ApiKey = Static<ApiKeySchemas['ApiKeySchema']>;
export type CreateApiKeyBody = Static<ApiKeySchemas['CreateApiKeyBody']>;

export const ApiKeyListQuery = Type.Object(PageQuery, { additionalProperties: false });

export const RollApiKeyBody = Type.Object(
  {
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 24 * 3600,
        description: 'How long the old key keeps working: 0 (default) stops it now; at most 7 days.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ expires_in_seconds: 3600 }] },
);

export const KeyIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
