import { sql } from 'kysely';
import type { Db, Store } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Principal } from '../../lib/principal.js';
import type { AuditRecorder } from '../audit/index.js';
import type { SettingsService } from '../settings/index.js';
import type { TenantService } from '../tenants/index.js';
import type { WalletService } from '../wallet/index.js';
import { copyRows, deleteRows } from './test-mode.copy.js';
import { resetCondition, resetOrder, schemaTables } from './test-mode.tables.js';

/** What `POST /test-mode/copy` may copy from live. */
export const COPYABLE = ['products', 'pricing', 'settings'] as const;
export type Copyable = (typeof COPYABLE)[number];

/** The tables of each part a copy replaces, parents first. */
const COPIED_TABLES: Readonly<Record<Exclude<Copyable, 'settings'>, readonly string[]>> = {
  products: ['products', 'product_variants', 'product_counts', 'stock_levels'],
  pricing: ['discounts', 'shipping_rates', 'tax_rates'],
};
/** Rows of the test store that refer to a part's rows and go with them. */
const DEPENDENT_TABLES: Readonly<Record<Exclude<Copyable, 'settings'>, readonly string[]>> = {
  products: [],
  pricing: ['discount_customer_uses'],
};

/** A live-only or test-only route called in the other mode: 403 `wrong_mode`. */
export function requireMode(principal: Principal, mode: 'live' | 'test', what: string): void {
  if (principal.tenant.livemode === (mode === 'live')) return;
  const key = mode === 'test' ? 'a test key (sk_test_...)' : 'a live key (sk_live_...)';
  throw new AppError('wrong_mode', `${what} works in ${mode} mode only: call it with ${key}.`, {
    extra: { required_mode: mode },
  });
}

export type TestModeService = ReturnType<typeof createTestModeService>;

export function createTestModeService(deps: {
  store: Store;
  clock: Clock;
  tenants: TenantService;
  wallet: WalletService;
  settings: SettingsService;
  audit: AuditRecorder;
}) {
  const { store, tenants, wallet, settings, audit } = deps;

  /** The audit entry of a reset or a copy: the test store is its resource. */
  function record(trx: Db, tenantId: string, action: string, after: object) {
    return audit.record(trx, {
      tenantId,
      action,
      resource: { type: 'test_mode', id: tenantId },
      before: {},
      after,
    });
  }

  return {
    /** Test money into the test store's wallet (`POST /wallet/fund`). */
    async fund(principal: Principal, input: { amount: number; currency: string }) {
      requireMode(principal, 'test', 'POST /v1/wallet/fund');
      return wallet.credit(principal.tenant.id, { ...input, description: 'Test funds' });
    },

    /**
     * Deletes every row of the test store's data (every table with `tenant_id` but the few
     * test-mode.tables.ts keeps), in one transaction, and brings its wallets back to zero.
     */
    async reset(principal: Principal): Promise<{ deleted: Record<string, number> }> {
      requireMode(principal, 'test', 'POST /v1/test-mode/reset');
      const tenantId = principal.tenant.id;
      const deleted: Record<string, number> = {};
      await store.transaction(async (trx) => {
        const schema = await schemaTables(store, trx);
        // Rows without `tenant_id`, reached through the store's imports and events.
        if (schema.all.includes('import_chunks')) {
          await sql`DELETE FROM import_chunks WHERE import_id IN (SELECT id FROM imports WHERE tenant_id = ${tenantId})`.execute(
            trx,
          );
        }
        if (schema.all.includes('analytics_queue')) {
          await sql`DELETE FROM analytics_queue WHERE event_id IN (SELECT id FROM events WHERE tenant_id = ${tenantId})`.execute(
            trx,
          );
        }
        for (const table of resetOrder(schema)) {
          const result =
            await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}${resetCondition(table)}`.execute(
              trx,
            );
          const n = Number(result.numAffectedRows ?? 0);
          if (n > 0) deleted[table] = n;
        }
        await wallet.zero(trx, tenantId, 'Test mode reset');
        await record(trx, tenantId, 'test_mode.reset', { deleted });
      });
      return { deleted };
    },

    /** Replaces test mode's parts named in `what` with copies of live's (`POST /test-mode/copy`). */
    async copy(principal: Principal, what: readonly Copyable[]): Promise<{ copied: Record<string, number> }> {
      requireMode(principal, 'test', 'POST /v1/test-mode/copy');
      const testId = principal.tenant.id;
      const live = await tenants.pairedStoreOf(testId, 'live');
      const copied: Record<string, number> = {};
      const parts = [...new Set(what)];
      // Live's settings, read before the transaction: live is only read.
      const from = parts.includes('settings') ? await settings.get(live.id) : undefined;
      await store.transaction(async (trx) => {
        const schema = await schemaTables(store, trx);
        const ids = new Map<string, string>();
        if (schema.all.includes('locations')) {
          // Live's locations stand for the test store's of the same name (stock copied to them).
          const named = async (tenantId: string) =>
            (
              await sql<{
                id: string;
                name: string;
              }>`SELECT id, name FROM locations WHERE tenant_id = ${tenantId}`.execute(trx)
            ).rows;
          const own = new Map((await named(testId)).map((l) => [l.name, l.id]));
          for (const location of await named(live.id)) {
            const match = own.get(location.name);
            if (match !== undefined) ids.set(location.id, match);
          }
        }
        for (const part of parts) {
          if (part === 'settings') continue;
          const tables = COPIED_TABLES[part].filter((t) => schema.all.includes(t));
          const dependents = DEPENDENT_TABLES[part].filter((t) => schema.all.includes(t));
          await deleteRows(trx, [...dependents, ...[...tables].reverse()], testId);
          copied[part] = await copyRows(trx, tables, live.id, testId, ids, (table, row) =>
            // Stock at a location of live's goes to the test store's of the same name, if it has one.
            table === 'stock_levels' && typeof row.location_id === 'string' && !ids.has(row.location_id)
              ? undefined
              : row,
          );
        }
        if (from !== undefined) {
          // The same currency is no change (one refused while test mode has orders is).
          await settings.updateIn(trx, testId, {
            name: from.name,
            currency: from.currency,
            unpaid_order_expiry_minutes: from.unpaid_order_expiry_minutes,
            storefront: from.storefront,
          });
          copied.settings = 1;
        }
        await record(trx, testId, 'test_mode.copied', { copied, from: live.id });
      });
      return { copied };
    },
  };
}
