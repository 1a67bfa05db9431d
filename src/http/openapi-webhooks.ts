import { type TSchema, Type } from 'typebox';
import { CustomerSchema } from '../modules/customers/customers.schemas.js';
import { APP_EVENT_TYPES, EVENT_TYPES } from '../modules/events/events.types.js';
import { ImportSchema } from '../modules/imports/imports.schemas.js';
import { OrderSchema } from '../modules/orders/orders.schemas.js';
import { DiscountSchema } from '../modules/pricing/discounts.schemas.js';
import { ProductSchema } from '../modules/products/products.schemas.js';
import { VariantSchema } from '../modules/products/variants.schemas.js';
import { RefundSchema } from '../modules/refunds/refunds.schemas.js';
import { TransferSchema } from '../modules/wallet/wallet.schemas.js';
import { WebhookSchema } from '../modules/webhooks/webhooks.schemas.js';

/**
 * The OpenAPI 3.1 `webhooks` section: every event type the API sends, as the POST an endpoint
 * receives (Standard Webhooks headers, the event with its object in the endpoint's version),
 * for generators and readers alike. Shapes are those of the latest version.
 */

/** A payment, as `payment.received` and `payment.failed` carry it. */
export const PaymentSchema = Type.Object(
  {
    id: Type.String({ examples: ['pay_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
    order_id: Type.String(),
    amount: Type.Integer({ description: 'Minor units.' }),
    currency: Type.String(),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed', 'refunded'] }),
    method: Type.String(),
    provider: Type.String(),
    failure_code: Type.Union([Type.String(), Type.Null()]),
    failure_message: Type.Union([Type.String(), Type.Null()]),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
  },
  {
    examples: [
      {
        id: 'pay_AbKpioPgdeCpGiGqNmKb9zFt',
        order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
        amount: 16408,
        currency: 'USD',
        status: 'succeeded',
        method: 'pm_card_visa',
        provider: 'sandbox',
        failure_code: null,
        failure_message: null,
        created: '2026-11-21T10:15:00.981Z',
        updated: '2026-11-21T10:15:01.372Z',
      },
    ],
  },
);

/** A plugin's installation in a store, as the `app.*` events carry it. */
export const AppInstallationSchema = Type.Object(
  {
    id: Type.String({ examples: ['ins_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
    installation_id: Type.String(),
    plugin_id: Type.String(),
    tenant_id: Type.String(),
    access_token: Type.Optional(
      Type.String({ description: 'On `app.installed` only: the installation token, `sk_app_…`; sent once.' }),
    ),
    permissions: Type.Optional(
      Type.Array(Type.String(), {
        description: 'On `app.installed` and `app.permissions_updated`: what the token may do now.',
      }),
    ),
    events: Type.Optional(
      Type.Array(Type.String(), {
        description: 'On `app.installed` and `app.permissions_updated`: the store events delivered now.',
      }),
    ),
  },
  {
    examples: [
      {
        id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
        installation_id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
        plugin_id: 'plg_FPECyw0wQoVnKyEBdlHyWdK2',
        tenant_id: 'ten_zxhCY4hnvnD7uaGOkWU8LrY1',
        access_token: 'sk_app_Qm3vX9cT2bL7wR4yN8pK1dF6hJ0sZ5aE',
        permissions: ['read:products', 'write:products'],
        events: ['product.updated', 'product.outofstock'],
      },
    ],
  },
);

/** The example of a schema (its first), for the events' examples. */
function exampleOf(schema: TSchema): unknown {
  const { examples } = schema as { examples?: unknown };
  if (!Array.isArray(examples) || examples.length === 0)
    throw new Error('a webhook object without an example');
  return examples[0];
}

/** The object each event type carries in `data.object`, by the type's resource. */
function objectOf(type: string): TSchema {
  const resource = type.split('.')[0];
  switch (resource) {
    case 'order':
      return OrderSchema;
    case 'payment':
      return PaymentSchema;
    case 'refund':
      return RefundSchema;
    case 'product':
      return ProductSchema;
    case 'customer':
      return CustomerSchema;
    case 'discount':
      return DiscountSchema;
    case 'transfer':
      return TransferSchema;
    case 'import':
      return ImportSchema;
    case 'webhook':
      return WebhookSchema;
    case 'app':
      return AppInstallationSchema;
    default:
      throw new Error(`no object schema for event type ${type}`);
  }
}

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id, the same on every attempt: deduplicate on it.'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed.'],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the endpoint secret; two during a rotation.',
  ],
] as const;

/**
 * The `data` of an event of the type, as the endpoint receives it: the object's own example (a
 * sold-out variant with its product at 0; an uninstall without the token and grants).
 */
function dataExample(type: string, object: TSchema): Record<string, unknown> {
  const example = exampleOf(object) as Record<string, unknown>;
  if (type === 'app.uninstalled') {
    const { access_token: _token, permissions: _permissions, events: _events, ...uninstalled } = example;
    return { object: uninstalled };
  }
  if (type === 'app.permissions_updated') {
    const { access_token: _token, ...granted } = example;
    return { object: granted };
  }
  if (type !== 'product.outofstock') return { object: example };
  const [variant] = (example.variants ?? []) as Record<string, unknown>[];
  const soldOut = { ...variant, stock: 0 };
  return { object: { ...example, stock: 0, variants: [soldOut] }, variant: soldOut };
}

function operation(type: string): Record<string, unknown> {
  const data: Record<string, TSchema> = { object: objectOf(type) };
  if (type === 'product.outofstock') data.variant = VariantSchema;
  const app = type.startsWith('app.');
  const example = dataExample(type, data.object as TSchema);
  const object = example.object as Record<string, unknown>;
  const event = Type.Object(
    {
      id: Type.String({ examples: ['evt_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
      type: Type.Literal(type),
      created: Type.String({ format: 'date-time' }),
      api_version: Type.String({ description: "The version the object is rendered in: the endpoint's." }),
      data: Type.Object(data),
      ...(app
        ? {
            installation_id: Type.String(),
            tenant_id: Type.String({ description: 'The store the event is about.' }),
          }
        : {}),
    },
    {
      examples: [
        {
          id: 'evt_kim5OuMK5f1DRU5lnLbbePT4',
          type,
          created: '2026-11-27T08:00:04.618Z',
          api_version: '2026-12-15',
          data: example,
          ...(app ? { installation_id: object.installation_id, tenant_id: object.tenant_id } : {}),
        },
      ],
    },
  );
  return {
    post: {
      operationId: `on${type
        .split(/[._]/)
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join('')}`,
      summary: type,
      tags: [type.startsWith('app.') ? 'Plugins' : 'Webhooks'],
      // The receiver asks for no credentials: it verifies the signature headers below.
      security: [],
      parameters: SIGNATURE_HEADERS.map(([name, description]) => ({
        in: 'header',
        name,
        required: true,
        description,
        schema: { type: 'string' },
      })),
      requestBody: { required: true, content: { 'application/json': { schema: event } } },
      responses: {
        '2XX': { description: 'Received: any 2xx ends the attempts.' },
        default: { description: 'Not received: the attempt is retried on the schedule, then given up.' },
      },
    },
  };
}

/** Every event type, as the POST its endpoints receive. */
export function webhooksSection(): Record<string, Record<string, unknown>> {
  return Object.fromEntries([...EVENT_TYPES, ...APP_EVENT_TYPES].map((type) => [type, operation(type)]));
}
