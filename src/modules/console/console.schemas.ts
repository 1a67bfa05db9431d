import { type Static, Type } from 'typebox';
import { Currency, LINE_PATTERN, Timestamp } from '../../http/schemas.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import { apiKeySchemas } from '../api-keys/index.js';

/** The console's account routes: their bodies and responses. */

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: LINE_PATTERN });
const Password = Type.String({ minLength: 8, maxLength: 200 });

export const SignupBody = Type.Object(
  {
    store_name: Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN }),
    owner_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN })),
    email: Email,
    password: Password,
    currency: Type.Optional(
      Type.String({
        ...Currency,
        description: 'The store’s currency (ISO 4217, upper case); USD when left out.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SignupBody = Static<typeof SignupBody>;

export const LoginBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

const PlanName = Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('enterprise')]);

export const AccountSchema = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), role: Type.String() }),
  tenant: Type.Object({
    id: Type.String(),
    name: Type.String(),
    plan: PlanName,
    currency: Type.String(),
    api_version: Type.String(),
  }),
  plans: Type.Array(
    Type.Object({
      name: PlanName,
      hourly: Type.Integer(),
      monthly: Type.Integer(),
      current: Type.Boolean(),
    }),
  ),
  limits: Type.Object(
    {
      hourly: Type.Integer(),
      monthly: Type.Integer(),
      custom: Type.Boolean({
        description: "True when the operator set the store's own limits instead of its plan's.",
      }),
    },
    { description: "The limits the store's API keys get now." },
  ),
  csrf_token: Type.String({
    description:
      'Send it as X-CSRF-Token on every state-changing call here, and on every `/v1` call made with the session.',
  }),
  expires_at: Timestamp,
});

/** The account and the owner's first key: its permissions are the vocabulary's, known at start. */
export function signupResultSchema(vocabulary: Vocabulary) {
  return Type.Object({
    ...AccountSchema.properties,
    api_key: apiKeySchemas(vocabulary).ApiKeySchema,
  });
}
export type SignupResultObject = Static<ReturnType<typeof signupResultSchema>>;
