import type { ApiVersion } from '../versions.registry.js';
import type { JsonObject } from '../versions.types.js';
import { isObject, without } from './shape.js';

/** 2026-12-15 added options and variants to products. */
export function productToV20261121(product: JsonObject): JsonObject {
  return without(product, ['options', 'variant_count', 'price_max', 'variants', 'variants_has_more']);
}

/** A product's or line's one variant before 2026-12-15: migration 0019 gave it the product id's suffix. */
function defaultVariantId(productId: unknown): string {
  return `var_${String(productId).slice('prod_'.length)}`;
}

/**
 * A product stored before 2026-12-15 (in an event) had no options and one Default variant, which
 * its own fields describe entirely (migration 0019 made that variant from them).
 */
export function productFromV20261121(product: JsonObject): JsonObject {
  if ('variant_count' in product) return product;
  const { created, updated, ...rest } = product;
  const variant = {
    id: defaultVariantId(product.id),
    product_id: product.id,
    sku: product.sku ?? null,
    title: 'Default',
    options: {},
    price: product.price,
    compare_at_price: null,
    currency: product.currency,
    stock: product.stock,
    weight_grams: null,
    barcode: null,
    position: 1,
    created,
    updated,
  };
  return {
    ...rest,
    price_max: product.price,
    options: [],
    variant_count: 1,
    variants: [variant],
    variants_has_more: false,
    created,
    updated,
  };
}

/** The members 2026-12-15 added to orders (checkout pricing and refunds). */
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
/** The members 2026-12-15 added to an order's lines. */
const ITEM_FIELDS = ['variant_id', 'variant_title', 'discount', 'tax'];

/**
 * An order stored before 2026-12-15: its lines were of their product's one Default variant, and it
 * had no discount, shipping or tax (release v2.4 had none), its lines paid their totals.
 */
export function orderFromV20261121(order: JsonObject): JsonObject {
  if (!Array.isArray(order.items)) return order;
  const items = order.items.map((item: unknown) => {
    if (!isObject(item)) return item;
    const variant =
      'variant_id' in item ? {} : { variant_id: defaultVariantId(item.product_id), variant_title: 'Default' };
    const priced = 'discount' in item ? {} : { discount: 0, tax: 0 };
    return { ...item, ...variant, ...priced };
  });
  if ('discount_total' in order) return { ...order, items };
  // Release v2.4 only returned whole payments: a refunded order, or one cancelled once paid, had
  // one refund of its total and all its lines, which migration 0022 keeps with this id.
  const returned = order.status === 'refunded' || (order.status === 'cancelled' && order.paid_at != null);
  const refund = {
    id: `re_${String(order.id).slice(4)}`,
    order_id: order.id,
    amount: order.total,
    currency: order.currency,
    items: items.map((item: unknown) =>
      isObject(item) ? { variant_id: item.variant_id, quantity: item.quantity, amount: item.total } : item,
    ),
    shipping: 0,
    restocked: order.restocked ?? false,
    reason: null,
    status: 'succeeded',
    created: order.refunded_at ?? order.cancelled_at ?? order.updated,
  };
  const captured = ['paid', 'shipped', 'delivered'].includes(String(order.status));
  return {
    ...order,
    items,
    discount_total: 0,
    shipping_total: 0,
    tax_total: 0,
    discounts: [],
    shipping: null,
    taxes: [],
    refunded_amount: returned ? order.total : 0,
    refundable_amount: captured ? order.total : 0,
    refunds: returned ? [refund] : [],
  };
}

/** 2026-12-15 added `data.variant` to `product.outofstock`. */
export function eventToV20261121(event: JsonObject): JsonObject {
  return isObject(event.data) ? { ...event, data: without(event.data, ['variant']) } : event;
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

/** The figures 2026-12-15 added to analytics summaries (and so to sales report rows). */
const ANALYTICS_PRICING_FIELDS = ['discount_total', 'shipping_total', 'tax_total'];

const dropping =
  (keys: readonly string[]) =>
  (object: JsonObject): JsonObject =>
    without(object, keys);

/** Release v2.5: the back office. */
export const V2026_12_15: ApiVersion = {
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
      toPrevious: { product: productToV20261121 },
      storedFromPrevious: { product: productFromV20261121 },
    },
    {
      description:
        'Order items gain `variant_id`, `variant_title`, `discount` and `tax`; `customer` gains `id`; orders gain `discount_total`, `shipping_total`, `tax_total`, `discounts`, `shipping`, `taxes`, `refunded_amount`, `refundable_amount` and `refunds`.',
      toPrevious: {
        order: dropping(ORDER_PRICING_FIELDS),
        order_item: dropping(ITEM_FIELDS),
        order_customer: dropping(['id']),
      },
      storedFromPrevious: { order: orderFromV20261121 },
    },
    {
      description: '`product.outofstock` carries the variant in `data.variant`.',
      toPrevious: { event: eventToV20261121 },
    },
    {
      description:
        'Plugins gain `status`, `homepage_url`, `first_party`, `owned` and `my_rating` (and, for their publisher, `webhook_url`, `rejection_reason` and `pending_revision`); their `installation` gains `id` and `pending_permissions`.',
      toPrevious: {
        plugin: dropping(PLUGIN_APP_FIELDS),
        plugin_installation: dropping(['id', 'pending_permissions']),
      },
    },
    {
      description: '`GET /usage` gains `apps`: the calls made by installed plugins, by plugin.',
      toPrevious: { usage: dropping(['apps']) },
    },
    {
      description:
        'Analytics summaries (`summary`, `previous_period`, sales report rows and their CSV) gain `discount_total`, `shipping_total` and `tax_total`.',
      toPrevious: { analytics_summary: dropping(ANALYTICS_PRICING_FIELDS) },
    },
    {
      description: '`GET /usage` gains `days`, every UTC day of the period.',
      toPrevious: { usage: dropping(['days']) },
    },
  ],
};
