import { type Static, Type } from 'typebox';
import { Currency, LINE_PATTERN, Nullable } from '../../http/schemas.js';

/** The bounds of each setting (docs/settings.md); the schemas below and the service use them. */
export const LIMITS = {
  /** 30 days. */
  unpaidOrderExpiryMinutes: { min: 1, max: 43_200 },
  holdMinutes: { min: 1, max: 60 },
  /** 7 days. */
  abandonedAfterMinutes: { min: 1, max: 10_080 },
  requestsPerMinute: { min: 10, max: 10_000 },
  recoveryUrlLength: 2048,
} as const;

/** The placeholder a recovery URL template must hold: the abandoned cart's id goes there. */
export const CART_ID_PLACEHOLDER = '{cart_id}';

export const SETTINGS_EXAMPLE = {
  name: 'Northwind Outfitters',
  currency: 'USD',
  unpaid_order_expiry_minutes: 1440,
  storefront: {
    hold_minutes: 15,
    abandoned_after_minutes: 60,
    recovery_url_template: 'https://shop.example.com/cart/{cart_id}',
    requests_per_minute: 120,
  },
};

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: LINE_PATTERN,
  description: 'The store’s name, as the console, `GET /users/me` and the API keys’ tenant show it.',
  examples: ['Northwind Outfitters'],
});

const StoreCurrency = Type.String({
  ...Currency,
  description:
    'ISO 4217, upper case: the currency new products are priced in when they name none, and the wallet’s. Changes only while the store has no orders (409 `invalid_state_transition` after).',
});

const ExpiryMinutes = Type.Integer({
  minimum: 0,
  maximum: LIMITS.unpaidOrderExpiryMinutes.max,
  description: `A \`pending\` order older than this is cancelled by the system (\`cancel_reason: "expired"\`), its stock and discount uses given back and \`order.cancelled\` emitted; an order whose payment is in progress waits for its outcome. 0: never; otherwise 1 to ${LIMITS.unpaidOrderExpiryMinutes.max.toLocaleString('en-US')} (30 days). Default 1440 (a day).`,
  examples: [1440],
});

const HoldMinutes = Nullable(
  Type.Integer({
    minimum: LIMITS.holdMinutes.min,
    maximum: LIMITS.holdMinutes.max,
    description: `How long \`POST /store/carts/{id}/hold\` reserves a cart’s units (${LIMITS.holdMinutes.min}-${LIMITS.holdMinutes.max}); null (the default): stock holds are off.`,
    examples: [15],
  }),
);

const AbandonedAfterMinutes = Type.Integer({
  minimum: LIMITS.abandonedAfterMinutes.min,
  maximum: LIMITS.abandonedAfterMinutes.max,
  description: `An open cart with an email and a line, unchanged this long, emits \`cart.abandoned\` once (${LIMITS.abandonedAfterMinutes.min}-${LIMITS.abandonedAfterMinutes.max.toLocaleString('en-US')}; default 60).`,
  examples: [60],
});

const RecoveryUrlTemplate = Nullable(
  Type.String({
    minLength: 1,
    maxLength: LIMITS.recoveryUrlLength,
    pattern: '^https://\\S*\\{cart_id\\}\\S*$',
    description:
      'An https URL holding `{cart_id}`: `cart.abandoned` carries it as `recovery_url` with the cart’s id in its place. Null (the default): no `recovery_url`.',
    examples: ['https://shop.example.com/cart/{cart_id}'],
  }),
);

const RequestsPerMinute = Type.Integer({
  minimum: LIMITS.requestsPerMinute.min,
  maximum: LIMITS.requestsPerMinute.max,
  description: `Storefront requests a minute per buyer IP (${LIMITS.requestsPerMinute.min}-${LIMITS.requestsPerMinute.max.toLocaleString('en-US')}; default 120).`,
  examples: [120],
});

export const StorefrontSettingsSchema = Type.Object(
  {
    hold_minutes: HoldMinutes,
    abandoned_after_minutes: AbandonedAfterMinutes,
    recovery_url_template: RecoveryUrlTemplate,
    requests_per_minute: RequestsPerMinute,
  },
  { description: 'How the storefront API (`/v1/store/*`) behaves.', examples: [SETTINGS_EXAMPLE.storefront] },
);

export const SettingsSchema = Type.Object(
  {
    name: Name,
    currency: StoreCurrency,
    unpaid_order_expiry_minutes: ExpiryMinutes,
    storefront: StorefrontSettingsSchema,
  },
  { examples: [SETTINGS_EXAMPLE] },
);
export type SettingsObject = Static<typeof SettingsSchema>;

export const UpdateSettingsBody = Type.Object(
  {
    name: Type.Optional(Name),
    currency: Type.Optional(StoreCurrency),
    unpaid_order_expiry_minutes: Type.Optional(ExpiryMinutes),
    storefront: Type.Optional(
      Type.Object(
        {
          hold_minutes: Type.Optional(HoldMinutes),
          abandoned_after_minutes: Type.Optional(AbandonedAfterMinutes),
          recovery_url_template: Type.Optional(RecoveryUrlTemplate),
          requests_per_minute: Type.Optional(RequestsPerMinute),
        },
        { additionalProperties: false, description: 'Only the members given change.' },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { storefront: { hold_minutes: 15 } },
      { name: 'Northwind Outfitters', unpaid_order_expiry_minutes: 0 },
    ],
  },
);
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>;
