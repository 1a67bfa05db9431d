import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import type { Permission, Vocabulary } from '../../kernel/vocabulary.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { API_KEY_EXAMPLE, NEW_API_KEY_EXAMPLE } from './api-keys.examples.js';

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
      key: Type.String({
        description: 'The full key in the response that creates or rolls it; masked everywhere else.',
        examples: ['sk_live_****_****_****_a1B2'],
      }),
      permissions: Type.Array(PermissionSchema),
      status: Type.Union([Type.Literal('Active'), Type.Literal('Expiring')], {
        description: '`Expiring` when `expires_at` is within 7 days.',
      }),
      created: Timestamp,
      last_used: Nullable(Timestamp),
      expires_at: Nullable(Timestamp),
    },
    { examples: [API_KEY_EXAMPLE] },
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
      permissions: Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true }),
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
