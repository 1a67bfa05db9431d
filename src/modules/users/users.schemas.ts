import { type Static, Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import type { Plan } from '../../lib/principal.js';
import { permissionSchema } from '../api-keys/index.js';

// Enums as `{type: 'string', enum}`, not unions of literals: fast-json-stringify compiles a union
// to `anyOf` and validates every value against each branch while serializing this hot response.
const RoleSchema = Type.Unsafe<'owner' | 'admin' | 'developer'>({
  type: 'string',
  enum: ['owner', 'admin', 'developer'],
});
const PlanSchema = Type.Unsafe<Plan>({ type: 'string', enum: ['free', 'pro', 'enterprise'] });

/** `GET /users/me`: the key's permissions are the vocabulary's, so the schema is built from it. */
export function currentUserSchema(vocabulary: Vocabulary) {
  return Type.Object(
    {
      id: Type.String(),
      email: Type.String(),
      name: Type.String(),
      role: RoleSchema,
      created: Timestamp,
      tenant: Type.Object({
        id: Type.String(),
        name: Type.String(),
        plan: PlanSchema,
        api_version: Type.String(),
        currency: Type.String(),
      }),
      api_key: Type.Object({
        id: Type.String(),
        name: Type.String(),
        permissions: Type.Array(permissionSchema(vocabulary)),
      }),
    },
    {
      examples: [
        {
          id: 'usr_Uqd1pG2dIIrupk5AiYjhHTKG',
          email: 'maya.chen@example.com',
          name: 'Maya Chen',
          role: 'owner',
          created: '2026-10-05T08:30:12.604Z',
          tenant: {
            id: 'ten_zxhCY4hnvnD7uaGOkWU8LrY1',
            name: 'Northwind Outfitters',
            plan: 'pro',
            api_version: '2026-12-15',
            currency: 'USD',
          },
          api_key: {
            id: 'key_cLYNj84z8GoLCUctMVQV21Uw',
            name: 'Warehouse sync',
            permissions: ['read:products', 'write:products'],
          },
        },
      ],
    },
  );
}

export type CurrentUser = Static<ReturnType<typeof currentUserSchema>>;
