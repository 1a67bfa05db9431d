import { type Static, Type } from 'typebox';
import { LINE_PATTERN, Timestamp } from '../../http/schemas.js';
import { ApiKeySchema } from '../api-keys/api-keys.schemas.js';

/** The console backend's own bodies and responses; the resources reuse the API's schemas. */

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: LINE_PATTERN });
const Password = Type.String({ minLength: 8, maxLength: 200 });

export const SignupBody = Type.Object(
  {
    store_name: Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN }),
    owner_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN })),
    email: Email,
    password: Password,
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
  csrf_token: Type.String({ description: 'Send it as X-CSRF-Token on every state-changing call.' }),
  expires_at: Timestamp,
});

export const SignupResultSchema = Type.Object({
  ...AccountSchema.properties,
  api_key: ApiKeySchema,
});

export const ConsoleVersionsSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      version: Type.String(),
      release: Type.String(),
      latest: Type.Boolean(),
      changelog: Type.Array(Type.String()),
    }),
  ),
  latest: Type.String(),
  latest_release: Type.String(),
  pinned: Type.String(),
  pinned_release: Type.String(),
  upgrade_available: Type.Boolean(),
});

export const UpgradeBody = Type.Object(
  { version: Type.Optional(Type.String({ maxLength: 10 })) },
  { additionalProperties: false },
);

export const UpgradeResultSchema = Type.Object({
  previous_version: Type.String(),
  api_version: Type.String(),
});

export const EventParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const EventQuery = Type.Object(
  {
    api_version: Type.Optional(
      Type.String({
        maxLength: 10,
        description:
          "Render the event in this version, as `X-Service-Version` would (a webhook endpoint's `api_version` shows the payload it was sent); default the store's pinned version.",
      }),
    ),
  },
  { additionalProperties: false },
);
