import type { Kysely } from 'kysely';

/**
 * Shopper accounts (the storefront's `/v1/store/customers` and `/v1/store/sessions`):
 *
 * - `customer_logins (tenant_id, customer_id)`: a customer's password, as a scrypt hash (the
 *   console's format); a customer without a row has no login;
 * - `customer_sessions`: a shopper's sessions, keyed by the SHA-256 of the `cst_` token, which only
 *   the shopper holds;
 * - `customer_password_resets`: pending password resets, keyed by the SHA-256 of the single-use
 *   `reset_token` the store's webhook mails.
 *
 * Each row names its customer by a foreign key: a customer is deleted or erased only with them.
 * Existing customers get no login: one of them gets one through a password reset. Nothing else
 * changes, so a store of any size migrates at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_logins')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_logins_pk', ['tenant_id', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('customer_logins_customer_idx')
    .on('customer_logins')
    .column('customer_id')
    .execute();
  for (const table of ['customer_sessions', 'customer_password_resets']) {
    await db.schema
      .createTable(table)
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    // A customer's rows (ids are unique across tenants), and what a customer's deletion checks.
    await db.schema.createIndex(`${table}_customer_idx`).on(table).column('customer_id').execute();
    // The purge of expired rows seeks on it.
    await db.schema.createIndex(`${table}_expires_idx`).on(table).column('expires_at').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['customer_password_resets', 'customer_sessions', 'customer_logins']) {
    await db.schema.dropTable(table).execute();
  }
}
