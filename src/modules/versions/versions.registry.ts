import { AppError } from '../../lib/errors.js';

/**
 * Dated API versions (docs/api-conventions.md). Handlers always produce the latest shape; a version's
 * `changes` say how to turn that shape into the previous version's, one resource at a time, so a
 * difference is written once here instead of as `if` statements in handlers.
 */

export type Json = unknown;

export interface VersionChange {
  /** One line for the changelog. */
  description: string;
  /** The resource (route `config.resource`, or a webhook payload's object type) it applies to. */
  resource: string;
  /** Turns a response body of this version into the previous version's shape. */
  toPrevious?: (body: Json) => Json;
  /** Turns a request body of the previous version into this version's shape. */
  fromPrevious?: (body: Json) => Json;
  /**
   * Turns an object stored in the previous version's shape (the object of an event written before
   * this version) into this version's. It must leave an object already in this shape unchanged.
   */
  storedFromPrevious?: (body: Json) => Json;
}

export interface ApiVersion {
  version: string;
  release: string;
  changelog: string[];
  /** How this version differs from the one before it. */
  changes: VersionChange[];
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

export class VersionRegistry {
  private readonly ordered: readonly ApiVersion[];

  constructor(versions: readonly ApiVersion[]) {
    if (versions.length === 0) throw new Error('at least one API version is required');
    this.ordered = [...versions].sort((a, b) => a.version.localeCompare(b.version));
  }

  get latest(): ApiVersion {
    return this.ordered[this.ordered.length - 1] as ApiVersion;
  }

  list(): readonly ApiVersion[] {
    return this.ordered;
  }

  has(version: string): boolean {
    return this.ordered.some((v) => v.version === version);
  }

  /** The newest version released on or before `date`; 400 `invalid_version` otherwise. */
  resolve(date: string): string {
    const supported = this.ordered.map((v) => v.version);
    if (!isCalendarDate(date)) {
      throw new AppError('invalid_version', `"${date}" is not a date of the form YYYY-MM-DD.`, {
        extra: { supported_versions: supported },
      });
    }
    let found: string | undefined;
    for (const v of this.ordered) if (v.version <= date) found = v.version;
    if (found === undefined) {
      throw new AppError(
        'invalid_version',
        `${date} is before the oldest supported version ${supported[0]}.`,
        {
          extra: { supported_versions: supported },
        },
      );
    }
    return found;
  }

  /** Whether a response of `resource` looks different in `version` than in the latest one. */
  differs(resource: string, version: string): boolean {
    return this.ordered.some((v) => v.version > version && v.changes.some((c) => c.resource === resource));
  }

  /** Rewrites a latest-shape body of `resource` into `version`'s shape, newest change first. */
  render(resource: string, body: Json, version: string): Json {
    let out = body;
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const v = this.ordered[i] as ApiVersion;
      if (v.version <= version) break;
      for (const change of v.changes)
        if (change.resource === resource && change.toPrevious) out = change.toPrevious(out);
    }
    return out;
  }

  /** Brings a stored object of `resource`, in whichever version's shape it was written, to the latest shape. */
  upgradeStored(resource: string, body: Json): Json {
    let out = body;
    for (const v of this.ordered) {
      for (const change of v.changes)
        if (change.resource === resource && change.storedFromPrevious) out = change.storedFromPrevious(out);
    }
    return out;
  }

  /** Rewrites a request body sent in `version`'s shape into the latest shape, oldest change first. */
  upgradeRequest(resource: string, body: Json, version: string): Json {
    let out = body;
    for (const v of this.ordered) {
      if (v.version <= version) continue;
      for (const change of v.changes)
        if (change.resource === resource && change.fromPrevious) out = change.fromPrevious(out);
    }
    return out;
  }
}

function isRecord(value: Json): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 2026-11-21 split the wallet balance into available and pending; 2026-06-01 had `balance`. */
export function walletBalanceToV20260601(body: Json): Json {
  if (!isRecord(body)) return body;
  const { available, pending: _pending, ...rest } = body;
  return { ...rest, balance: available };
}

/** Removes `keys` from an object body; anything else passes unchanged. */
function without(body: Json, keys: readonly string[]): Json {
  if (!isRecord(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)));
}

/** 2026-12-15 added options and variants to products. */
export function productToV20261121(body: Json): Json {
  return without(body, ['options', 'variant_count', 'price_max', 'variants', 'variants_has_more']);
}

/** A product's or line's one variant before 2026-12-15: migration 0019 gave it the product id's suffix. */
function defaultVariantId(productId: unknown): string {
  return `var_${String(productId).slice('prod_'.length)}`;
}

/**
 * A product stored before 2026-12-15 (in an event) had no options and one Default variant, which
 * its own fields describe entirely (migration 0019 made that variant from them).
 */
export function productFromV20261121(body: Json): Json {
  if (!isRecord(body) || 'variant_count' in body) return body;
  const { created, updated, ...rest } = body;
  const variant = {
    id: defaultVariantId(body.id),
    product_id: body.id,
    sku: body.sku ?? null,
    title: 'Default',
    options: {},
    price: body.price,
    compare_at_price: null,
    currency: body.currency,
    stock: body.stock,
    weight_grams: null,
    barcode: null,
    position: 1,
    created,
    updated,
  };
  return {
    ...rest,
    price_max: body.price,
    options: [],
    variant_count: 1,
    variants: [variant],
    variants_has_more: false,
    created,
    updated,
  };
}

/** The members 2026-12-15 added to orders (checkout pricing and refunds), and to their lines. */
const ORDER_PRICING_FIELDS = [
  'discount_total',
  'shipping_total',
  'tax_total',
  'discounts',
  'shipping',
  'taxes',
  'refunded_amount',
  'refundable_amount',
  'refunds',
];
const ITEM_FIELDS = ['variant_id', 'variant_title', 'discount', 'tax'];

/**
 * An order stored before 2026-12-15: its lines were of their product's one Default variant, and it
 * had no discount, shipping or tax (release v2.4 had none), its lines paid their totals.
 */
export function orderFromV20261121(body: Json): Json {
  if (!isRecord(body) || !Array.isArray(body.items)) return body;
  const items = body.items.map((item: Json) => {
    if (!isRecord(item)) return item;
    const variant =
      'variant_id' in item ? {} : { variant_id: defaultVariantId(item.product_id), variant_title: 'Default' };
    const priced = 'discount' in item ? {} : { discount: 0, tax: 0 };
    return { ...item, ...variant, ...priced };
  });
  if ('discount_total' in body) return { ...body, items };
  // Release v2.4 only returned whole payments: a refunded order, or one cancelled once paid, had
  // one refund of its total and all its lines, which migration 0022 keeps with this id.
  const returned = body.status === 'refunded' || (body.status === 'cancelled' && body.paid_at != null);
  const refund = {
    id: `re_${String(body.id).slice(4)}`,
    order_id: body.id,
    amount: body.total,
    currency: body.currency,
    items: items.map((item: Json) =>
      isRecord(item) ? { variant_id: item.variant_id, quantity: item.quantity, amount: item.total } : item,
    ),
    shipping: 0,
    restocked: body.restocked ?? false,
    reason: null,
    status: 'succeeded',
    created: body.refunded_at ?? body.cancelled_at ?? body.updated,
  };
  const captured = ['paid', 'shipped', 'delivered'].includes(String(body.status));
  return {
    ...body,
    items,
    discount_total: 0,
    shipping_total: 0,
    tax_total: 0,
    discounts: [],
    shipping: null,
    taxes: [],
    refunded_amount: returned ? body.total : 0,
    refundable_amount: captured ? body.total : 0,
    refunds: returned ? [refund] : [],
  } as Json;
}

/**
 * 2026-12-15 added each line's variant, discount and tax, the customer's id, and the order's
 * discounts, shipping, taxes and refunds. The `total` is the same number in every version.
 */
export function orderToV20261121(body: Json): Json {
  if (!isRecord(body) || !Array.isArray(body.items)) return body;
  return {
    ...(without(body, ORDER_PRICING_FIELDS) as Record<string, Json>),
    items: body.items.map((item: Json) => without(item, ITEM_FIELDS)),
    ...(isRecord(body.customer) ? { customer: without(body.customer, ['id']) } : {}),
  };
}

/** 2026-12-15 added `data.variant` to `product.outofstock`. */
export function eventToV20261121(body: Json): Json {
  if (!isRecord(body) || !isRecord(body.data)) return body;
  return { ...body, data: without(body.data, ['variant']) };
}

/** The fields plugins gained when they became apps (2026-12-15). */
const PLUGIN_APP_FIELDS = [
  'status',
  'homepage_url',
  'first_party',
  'owned',
  'my_rating',
  'webhook_url',
  'rejection_reason',
  'secret',
  'pending_revision',
];

/**
 * 2026-12-15 made plugins apps: new fields on plugins, an `id` and `pending_permissions` on their
 * installation.
 */
export function pluginToV20261121(body: Json): Json {
  if (!isRecord(body)) return body;
  const out = without(body, PLUGIN_APP_FIELDS) as Record<string, Json>;
  return isRecord(body.installation)
    ? { ...out, installation: without(body.installation, ['id', 'pending_permissions']) }
    : out;
}

/** 2026-12-15 added `apps` (calls made by installed plugins) to `GET /usage`. */
export function usageAppsToV20261121(body: Json): Json {
  return without(body, ['apps']);
}

/** 2026-12-15 added `days` (every day of the period) to `GET /usage`. */
export function usageToV20261121(body: Json): Json {
  return without(body, ['days']);
}

/** The figures 2026-12-15 added to analytics summaries (and so to sales report rows). */
const ANALYTICS_PRICING_FIELDS = ['discount_total', 'shipping_total', 'tax_total'];

/** 2026-12-15 added `discount_total`, `shipping_total` and `tax_total` to a summary (a sales row). */
export function analyticsSummaryToV20261121(body: Json): Json {
  return without(body, ANALYTICS_PRICING_FIELDS);
}

/** The same, on the `summary` and `previous_period` of `GET /analytics`. */
export function analyticsToV20261121(body: Json): Json {
  if (!isRecord(body)) return body;
  const { summary, previous_period: previous } = body;
  return {
    ...body,
    ...(isRecord(summary) ? { summary: analyticsSummaryToV20261121(summary) } : {}),
    ...(isRecord(previous) ? { previous_period: analyticsSummaryToV20261121(previous) } : {}),
  };
}

export const API_VERSIONS: readonly ApiVersion[] = [
  {
    version: '2026-06-01',
    release: 'v2.3',
    changelog: [
      'Products, orders, wallet, AI descriptions, analytics, webhooks, usage and plugins.',
      'GET /wallet/balance returns the available amount as `balance`.',
    ],
    changes: [],
  },
  {
    version: '2026-11-21',
    release: 'v2.4',
    changelog: ['GET /wallet/balance returns `available` and `pending` instead of `balance`.'],
    changes: [
      {
        description: 'GET /wallet/balance returns `available` and `pending` instead of `balance`.',
        resource: 'wallet_balance',
        toPrevious: walletBalanceToV20260601,
      },
    ],
  },
  {
    version: '2026-12-15',
    release: 'v2.5',
    changelog: [
      'Products have options (up to 3) and variants (up to 2,048), each with its own SKU, price, stock, weight and barcode: products gain `options`, `variant_count`, `price_max`, `variants` and `variants_has_more`; `GET /products?expand=variants`; `/products/{id}/variants`.',
      'Order items name a `variant_id` (or the `product_id` of a product with one variant) and gain `variant_id` and `variant_title`.',
      'Customers (`/customers`): profiles with addresses, tags and exact figures (`orders_count`, `total_spent`, `last_order_at`), their orders, a privacy export and erasure. Orders name a `customer_id` or a `customer` email, and `customer` gains `id`.',
      '`product.outofstock` fires per variant and carries it in `data.variant`.',
      'Checkout pricing: discounts (`/discounts`: codes and automatic, percentage, fixed amount, free shipping, usage limits), shipping rates (`/shipping-rates`) and tax rates (`/tax-rates`); orders take `discount_codes` and `shipping_rate_id` and gain `discount_total`, `shipping_total`, `tax_total`, `discounts`, `shipping`, `taxes` and per line `discount` and `tax`; `POST /orders/preview` prices an order without making it.',
      'Plugins are apps: any store can publish one (`POST /plugins`, permission `publish:plugins`; reviewed by the operator); installing mints an installation token (`sk_app_...`) holding exactly the plugin’s permissions, subscribes the plugin’s URL to its events and sends it `app.installed`; uninstalling revokes the token and sends `app.uninstalled`. Plugins gain `status`, `homepage_url`, `first_party`, `owned` and `my_rating`; `GET /usage` gains `apps`. First-party plugins: AI Autowriter and Sold-out hider.',
      'Partial refunds: `POST /orders/{id}/refunds` by amount, by items (with restock) or of shipping; orders gain `refunded_amount`, `refundable_amount` and `refunds`; event `refund.created`.',
      'Bulk import and export: `POST /imports` of products (our CSV or JSON Lines, or a Shopify product CSV export) and customers, with dry runs, progress and errors by line and column; `GET /exports/{products|customers|orders}` streams CSV or JSON Lines; event `import.completed`.',
      'Analytics summaries and sales report rows (JSON and CSV) gain `discount_total`, `shipping_total` and `tax_total`; revenue counts each refund by its amount on the day it was made.',
      '`GET /usage` gains `days`: the calls and errors of every UTC day of the period (`daily_calls` stays the last 7 days).',
    ],
    changes: [
      {
        description:
          'Products gain `options`, `variant_count`, `price_max`, `variants` and `variants_has_more`.',
        resource: 'product',
        toPrevious: productToV20261121,
        storedFromPrevious: productFromV20261121,
      },
      {
        description:
          'Order items gain `variant_id`, `variant_title`, `discount` and `tax`; `customer` gains `id`; orders gain `discount_total`, `shipping_total`, `tax_total`, `discounts`, `shipping`, `taxes`, `refunded_amount`, `refundable_amount` and `refunds`.',
        resource: 'order',
        toPrevious: orderToV20261121,
        storedFromPrevious: orderFromV20261121,
      },
      {
        description: '`product.outofstock` carries the variant in `data.variant`.',
        resource: 'event',
        toPrevious: eventToV20261121,
      },
      {
        description:
          'Plugins gain `status`, `homepage_url`, `first_party`, `owned` and `my_rating` (and, for their publisher, `webhook_url`, `rejection_reason` and `pending_revision`); their `installation` gains `id` and `pending_permissions`.',
        resource: 'plugin',
        toPrevious: pluginToV20261121,
      },
      {
        description: '`GET /usage` gains `apps`: the calls made by installed plugins, by plugin.',
        resource: 'usage',
        toPrevious: usageAppsToV20261121,
      },
      {
        description:
          'Analytics summaries (`summary`, `previous_period`, sales report rows and their CSV) gain `discount_total`, `shipping_total` and `tax_total`.',
        resource: 'analytics',
        toPrevious: analyticsToV20261121,
      },
      {
        description: 'Sales report rows gain `discount_total`, `shipping_total` and `tax_total`.',
        resource: 'analytics_summary',
        toPrevious: analyticsSummaryToV20261121,
      },
      {
        description: '`GET /usage` gains `days`, every UTC day of the period.',
        resource: 'usage',
        toPrevious: usageToV20261121,
      },
    ],
  },
];

export function defaultVersionRegistry(): VersionRegistry {
  return new VersionRegistry(API_VERSIONS);
}
