import type { FastifyInstance } from 'fastify';
import { Migrator } from 'kysely';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { migrations } from '../../src/db/migrations/index.js';
import { type Db, type DialectName, openStore } from '../../src/db/store.js';
import { PERMISSIONS } from '../../src/lib/permissions.js';
import { type Client, client, freshStore } from './context.js';

/** This release running on a store an earlier release wrote. */
export interface UpgradedStore {
  deps: Deps;
  app: FastifyInstance;
  /** A client with a full-permission key for an existing tenant and user of the old store. */
  clientFor(tenantId: string, userId: string): Promise<Client>;
  close(): Promise<void>;
}

/**
 * A store as an earlier release left it: a fresh store migrated up to `lastMigration` only, into
 * which `fill` writes rows as that release wrote them (plain SQL: today's code expects today's
 * schema). Then this release starts on it as a server does (its pending migrations run) and
 * answers through `app`.
 */
export async function upgradeFrom(
  dialect: DialectName,
  lastMigration: string,
  fill: (db: Db) => Promise<void>,
): Promise<UpgradedStore> {
  const fresh = await freshStore(dialect);
  const config = loadConfig(fresh.env);
  const old = openStore({ ...config, dataDir: config.dataDir });
  try {
    const migrator = new Migrator({
      db: old.db,
      provider: { getMigrations: async () => migrations },
      ...(old.schema ? { migrationTableSchema: old.schema } : {}),
    });
    const { error } = await migrator.migrateTo(lastMigration);
    if (error) throw error;
    await fill(old.db);
  } finally {
    await old.close();
  }
  const deps = await createDeps(config, { poolSize: 4 });
  const app = await buildApp(deps, {});
  return {
    deps,
    app,
    async clientFor(tenantId, userId) {
      const key = await deps.store.transaction((trx) =>
        deps.apiKeys.insertKey(trx, {
          tenantId,
          userId,
          name: 'test',
          permissions: [...PERMISSIONS],
          expiresAt: null,
        }),
      );
      return client(app, key.key as string);
    },
    async close() {
      await app.close();
      await deps.close();
      await fresh.drop();
    },
  };
}
