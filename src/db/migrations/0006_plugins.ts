import type { Kysely } from 'kysely';

/**
 * The plugin marketplace: the catalog (seeded here), each tenant's installations with the grant
 * they recorded, and each tenant's rating. `installs` and `rating_sum`/`rating_count` are counters
 * kept in the same transaction as the installation and rating rows that move them; the seeded
 * values are the catalog's starting figures.
 */

interface SeedPlugin {
  id: string;
  slug: string;
  name: string;
  category: string;
  author: string;
  description: string;
  permissions: string[];
  events: string[];
  installs: number;
  rating_sum: number;
  rating_count: number;
}

interface SeedJson {
  permissions: string;
  events: string;
}

const CATALOG: SeedPlugin[] = [
  {
    id: 'plg_JzyZ3ddSKRqbTo5vIrpPwvll',
    slug: 'slack-order-notifications',
    name: 'Slack Order Notifications',
    category: 'notifications',
    author: 'Relay Labs',
    description:
      'Posts new, paid and shipped orders to a Slack channel of your choice, with line items, totals and a link back to the order.',
    permissions: ['read:orders', 'read:products'],
    events: ['order.created', 'order.paid', 'order.shipped'],
    installs: 48210,
    rating_sum: 6045,
    rating_count: 1284,
  },
  {
    id: 'plg_MuTbLuYKjr1qSkKeKKN0C4Mm',
    slug: 'shipstation-sync',
    name: 'ShipStation Sync',
    category: 'shipping',
    author: 'Parcelwise',
    description:
      'Sends paid orders to ShipStation for label printing and writes the carrier and tracking number back to the order when it ships.',
    permissions: ['read:orders', 'write:orders', 'read:products'],
    events: ['order.paid', 'order.cancelled', 'order.refunded'],
    installs: 31875,
    rating_sum: 3982,
    rating_count: 902,
  },
  {
    id: 'plg_y3t8kpJ8TtONUtFmLDD2014y',
    slug: 'quickbooks-online-export',
    name: 'QuickBooks Online Export',
    category: 'accounting',
    author: 'Ledgerline',
    description:
      'Exports sales receipts, refunds and payouts to QuickBooks Online every night, mapped to the accounts of your chart of accounts.',
    permissions: ['read:orders', 'read:wallet'],
    events: ['payment.received', 'order.refunded', 'transfer.created'],
    installs: 22340,
    rating_sum: 2542,
    rating_count: 611,
  },
  {
    id: 'plg_21CdH0egTKOeGBTUJfMHWDyu',
    slug: 'mailchimp-audience-sync',
    name: 'Mailchimp Audience Sync',
    category: 'marketing',
    author: 'Audience Bridge',
    description:
      'Adds customers to a Mailchimp audience after their first order and tags them with the product categories they bought from.',
    permissions: ['read:orders', 'read:products'],
    events: ['order.created', 'order.delivered'],
    installs: 27905,
    rating_sum: 3424,
    rating_count: 758,
  },
  {
    id: 'plg_hKr7ilPicMvtPQIGJtd7oUjg',
    slug: 'low-stock-alerts',
    name: 'Low Stock Alerts',
    category: 'inventory',
    author: 'Stockroom Tools',
    description:
      'Emails your team when a product falls below its reorder point, and again the moment it sells out, with last week’s sell-through.',
    permissions: ['read:products'],
    events: ['product.updated', 'product.outofstock'],
    installs: 19460,
    rating_sum: 2068,
    rating_count: 433,
  },
  {
    id: 'plg_OM4RQNosNbjdenErBeyNvEJb',
    slug: 'automated-sales-tax',
    name: 'Automated Sales Tax',
    category: 'tax',
    author: 'TaxNexus',
    description:
      'Looks up US sales tax and EU VAT rates for every order from its shipping address and prepares a monthly liability report by jurisdiction.',
    permissions: ['read:orders', 'read:products', 'read:analytics'],
    events: ['order.created', 'order.refunded'],
    installs: 15120,
    rating_sum: 1544,
    rating_count: 377,
  },
  {
    id: 'plg_DxTITSk5GonqXE0FA2dWaCSl',
    slug: 'product-reviews',
    name: 'Product Reviews',
    category: 'reviews',
    author: 'Stellar Reviews',
    description:
      'Asks customers for a review a week after delivery, moderates them, and shows star ratings and review snippets on your storefront.',
    permissions: ['read:orders', 'read:products', 'write:products'],
    events: ['order.delivered', 'product.deleted'],
    installs: 36750,
    rating_sum: 6823,
    rating_count: 1490,
  },
  {
    id: 'plg_OMp3ZL8PfRvBlLzOPS59HiPz',
    slug: 'loyalty-points',
    name: 'Loyalty Points',
    category: 'loyalty',
    author: 'Rewardly',
    description:
      'Customers earn points on every paid order and redeem them as discounts; cancelled and refunded orders take their points back.',
    permissions: ['read:orders'],
    events: ['order.paid', 'order.cancelled', 'order.refunded'],
    installs: 12890,
    rating_sum: 1263,
    rating_count: 296,
  },
  {
    id: 'plg_DCfAzjtsj581lM6kI0iq1Trg',
    slug: 'ga4-ecommerce-tracking',
    name: 'GA4 Ecommerce Tracking',
    category: 'analytics',
    author: 'Metricsmith',
    description:
      'Sends server-side purchase and refund events to Google Analytics 4 with item-level revenue, for funnel and attribution reports.',
    permissions: ['read:orders', 'read:products'],
    events: ['order.paid', 'order.refunded'],
    installs: 25610,
    rating_sum: 2052,
    rating_count: 512,
  },
  {
    id: 'plg_cO69O94a2vgzfQtzDnG1xwQB',
    slug: 'zendesk-order-lookup',
    name: 'Zendesk Order Lookup',
    category: 'customer-support',
    author: 'Helpdesk Connect',
    description:
      'Shows the customer’s orders, payments and shipments beside every Zendesk ticket, and lets agents cancel or refund without leaving it.',
    permissions: ['read:orders', 'write:orders'],
    events: ['order.created', 'order.shipped', 'order.delivered'],
    installs: 8420,
    rating_sum: 840,
    rating_count: 188,
  },
  {
    id: 'plg_lX5rJDh0Pyg0hPpSfEWg9H1C',
    slug: 'back-in-stock-alerts',
    name: 'Back in Stock Alerts',
    category: 'inventory',
    author: 'Stockroom Tools',
    description:
      'Lets shoppers subscribe to sold-out products and emails them, in order of sign-up, as soon as the product is restocked.',
    permissions: ['read:products'],
    events: ['product.outofstock', 'product.updated'],
    installs: 14305,
    rating_sum: 1580,
    rating_count: 341,
  },
  {
    id: 'plg_YY1tlGRIxCeV7XKN7CqbgerV',
    slug: 'fraud-screening',
    name: 'Fraud Screening',
    category: 'payments',
    author: 'Riskline',
    description:
      'Scores every new order for fraud risk from payment, address and velocity signals, and cancels the ones above your threshold.',
    permissions: ['read:orders', 'write:orders'],
    events: ['order.created', 'payment.failed'],
    installs: 9875,
    rating_sum: 901,
    rating_count: 205,
  },
  {
    id: 'plg_9Qo6K5b2hgrfPn07KjXoTr6u',
    slug: 'xero-accounting-sync',
    name: 'Xero Accounting Sync',
    category: 'accounting',
    author: 'Ledgerline',
    description:
      'Creates Xero invoices for paid orders and credit notes for refunds, and reconciles wallet payouts against your bank feed.',
    permissions: ['read:orders', 'read:wallet'],
    events: ['payment.received', 'order.refunded', 'transfer.created'],
    installs: 11230,
    rating_sum: 1128,
    rating_count: 264,
  },
  {
    id: 'plg_wcyhDNMsrbBF60WIyzFOoa0C',
    slug: 'klaviyo-email-flows',
    name: 'Klaviyo Email Flows',
    category: 'marketing',
    author: 'Flowcraft',
    description:
      'Triggers Klaviyo flows for order confirmation, shipping and post-delivery follow-ups, with product images and recommendations.',
    permissions: ['read:orders', 'read:products'],
    events: ['order.created', 'order.shipped', 'order.delivered'],
    installs: 17640,
    rating_sum: 1849,
    rating_count: 395,
  },
  {
    id: 'plg_UQbPlAQwPGXp38lEYjTazQP7',
    slug: 'discord-sales-feed',
    name: 'Discord Sales Feed',
    category: 'notifications',
    author: 'Relay Labs',
    description:
      'Celebrates every sale in a Discord channel and warns the team there when a customer’s payment fails.',
    permissions: ['read:orders'],
    events: ['order.paid', 'payment.failed'],
    installs: 3180,
    rating_sum: 301,
    rating_count: 71,
  },
  {
    id: 'plg_GNRneiF5qxlIWXe3fFVOMtqh',
    slug: 'payout-reconciliation',
    name: 'Payout Reconciliation',
    category: 'accounting',
    author: 'Ledgerline',
    description:
      'Matches every wallet transfer to the payments and refunds it settles, and flags differences before the month is closed.',
    permissions: ['read:wallet', 'read:orders'],
    events: ['payment.received', 'transfer.created'],
    installs: 4620,
    rating_sum: 346,
    rating_count: 88,
  },
  {
    id: 'plg_hirVPq9PNlEyCZWDvbvxLw3c',
    slug: 'google-shopping-feed',
    name: 'Google Shopping Feed',
    category: 'sales-channels',
    author: 'FeedForge',
    description:
      'Keeps a Google Merchant Center feed in step with your catalog: new products, price changes, images and stock levels.',
    permissions: ['read:products'],
    events: ['product.created', 'product.updated', 'product.deleted', 'product.outofstock'],
    installs: 21480,
    rating_sum: 2427,
    rating_count: 640,
  },
  {
    id: 'plg_V5nBRqXurgPMd8ymF5kWZF7V',
    slug: 'sms-shipping-updates',
    name: 'SMS Shipping Updates',
    category: 'notifications',
    author: 'TextDrop',
    description:
      'Texts customers their tracking link when an order ships and a short thank-you when it is delivered.',
    permissions: ['read:orders'],
    events: ['order.shipped', 'order.delivered'],
    installs: 6935,
    rating_sum: 625,
    rating_count: 152,
  },
  {
    id: 'plg_PC8mtaZFdtNl1B4GuNNGNQka',
    slug: 'ai-product-copywriter',
    name: 'AI Product Copywriter',
    category: 'marketing',
    author: 'Wordsmith Studio',
    description:
      'Drafts a description in your brand voice for every new product with the built-in AI writer, ready for you to review and publish.',
    permissions: ['read:products', 'write:products', 'write:ai'],
    events: ['product.created'],
    installs: 5270,
    rating_sum: 389,
    rating_count: 97,
  },
  {
    id: 'plg_RbgLRp345yliriWoCNYsBLbW',
    slug: 'daily-sales-digest',
    name: 'Daily Sales Digest',
    category: 'analytics',
    author: 'Metricsmith',
    description:
      'Emails a one-page summary every morning: yesterday’s revenue, orders, best sellers and how they compare with last week.',
    permissions: ['read:analytics'],
    events: [],
    installs: 7810,
    rating_sum: 596,
    rating_count: 129,
  },
  {
    id: 'plg_eF2hITTiWQa8uqvFFK8O6HMw',
    slug: 'demand-forecasting',
    name: 'Demand Forecasting',
    category: 'inventory',
    author: 'Forecastly',
    description:
      'Forecasts demand per product from your order history and seasonality, and suggests reorder quantities before you run out.',
    permissions: ['read:products', 'read:orders', 'read:analytics'],
    events: ['order.paid', 'product.updated'],
    installs: 2140,
    rating_sum: 193,
    rating_count: 43,
  },
  {
    id: 'plg_6hpjSsF1eOYEo4URrx8qzMKF',
    slug: 'returns-portal',
    name: 'Returns Portal',
    category: 'shipping',
    author: 'Loopback Commerce',
    description:
      'A self-service page where customers start a return, print a prepaid label and choose a refund or an exchange.',
    permissions: ['read:orders', 'write:orders'],
    events: ['order.delivered', 'order.refunded'],
    installs: 36,
    rating_sum: 0,
    rating_count: 0,
  },
];

// Migrations receive an untyped Kysely: they describe the schema as it was at that point.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plugins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('installs', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('plugins_category_idx').on('plugins').columns(['category', 'id']).execute();

  await db.schema
    .createTable('plugin_installations')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('plugin_id', 'text', (c) => c.notNull().references('plugins.id'))
    .addColumn('granted_permissions', 'text', (c) => c.notNull())
    .addColumn('granted_events', 'text', (c) => c.notNull())
    .addColumn('installed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('plugin_installations_pk', ['tenant_id', 'plugin_id'])
    .execute();

  await db.schema
    .createTable('plugin_ratings')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('plugin_id', 'text', (c) => c.notNull().references('plugins.id'))
    .addColumn('stars', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('plugin_ratings_pk', ['tenant_id', 'plugin_id'])
    .execute();

  const seed = db as Kysely<{ plugins: Omit<SeedPlugin, 'permissions' | 'events'> & SeedJson }>;
  await seed
    .insertInto('plugins')
    .values(
      CATALOG.map((plugin) => ({
        ...plugin,
        permissions: JSON.stringify(plugin.permissions),
        events: JSON.stringify(plugin.events),
      })),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['plugin_ratings', 'plugin_installations', 'plugins']) {
    await db.schema.dropTable(table).execute();
  }
}
