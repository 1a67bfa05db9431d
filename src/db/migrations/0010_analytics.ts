import { type Kysely, sql } from 'kysely';
import { backfillRollups } from './0010_analytics.backfill.js';

/**
 * Analytics rollups, kept by the analytics module in the transaction of every order change (an
 * effect of the order events, src/effects.ts), so reading a period costs about the same at a
 * thousand orders as at a million. Days are epoch milliseconds of 00:00 UTC; analytics.rollups.ts
 * says what each table holds. Orders that exist when this migration runs are rolled up here, once,
 * by the frozen backfill beside this file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per tenant and currency: every rollup write locks it first (a per-store-currency
  // serialisation point on PostgreSQL), and it counts the orders rolled up.
  await db.schema
    .createTable('analytics_currencies')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_currencies_pk', ['tenant_id', 'currency'])
    .execute();

  // What the rollups know of each order: its created day and its current status.
  await db.schema
    .createTable('analytics_orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('customer_email', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('analytics_orders_tenant_idx')
    .on('analytics_orders')
    .column('tenant_id')
    .execute();

  await db.schema
    .createTable('analytics_daily')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    // By the day the order was created.
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addColumn('paid_orders', 'bigint', (c) => c.notNull())
    .addColumn('paid_value', 'bigint', (c) => c.notNull())
    .addColumn('status_pending', 'bigint', (c) => c.notNull())
    .addColumn('status_paid', 'bigint', (c) => c.notNull())
    .addColumn('status_shipped', 'bigint', (c) => c.notNull())
    .addColumn('status_delivered', 'bigint', (c) => c.notNull())
    .addColumn('status_cancelled', 'bigint', (c) => c.notNull())
    .addColumn('status_refunded', 'bigint', (c) => c.notNull())
    // By the day the money moved.
    .addColumn('captured_amount', 'bigint', (c) => c.notNull())
    .addColumn('refunded_amount', 'bigint', (c) => c.notNull())
    .addColumn('units_sold', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_daily_pk', ['tenant_id', 'currency', 'day'])
    .execute();

  // Running totals per product or category through the end of `day` (rows only on days with sales).
  await db.schema
    .createTable('analytics_running')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('member', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('lines', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_running_pk', ['tenant_id', 'currency', 'dimension', 'member', 'day'])
    .execute();

  await db.schema
    .createTable('analytics_members')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('member', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('name_at', 'bigint')
    .addColumn('first_day', 'bigint', (c) => c.notNull())
    .addColumn('last_day', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_members_pk', ['tenant_id', 'currency', 'dimension', 'member'])
    .execute();

  await db.schema
    .createTable('analytics_customer_days')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('customer_email', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('first_order_at', 'bigint')
    .addColumn('last_order_at', 'bigint')
    .addPrimaryKeyConstraint('analytics_customer_days_pk', ['tenant_id', 'currency', 'customer_email', 'day'])
    .execute();
  await db.schema
    .createIndex('analytics_customer_days_day_idx')
    .on('analytics_customer_days')
    .columns(['tenant_id', 'currency', 'day'])
    .execute();

  // Distinct customers over any range of at most 366 days, in one index seek per day.
  await db.schema
    .createTable('analytics_reach')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_reach_pk', ['tenant_id', 'currency', 'day', 'since'])
    .execute();

  // Only a store that already has orders needs the backfill (frozen beside this file).
  if ((await sql`SELECT id FROM orders LIMIT 1`.execute(db)).rows.length > 0) await backfillRollups(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'analytics_reach',
    'analytics_customer_days',
    'analytics_members',
    'analytics_running',
    'analytics_daily',
    'analytics_orders',
    'analytics_currencies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
