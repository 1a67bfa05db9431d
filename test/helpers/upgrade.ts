import type { FastifyInstance } from 'fastify';
import { Migrator } from 'kysely';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { allMigrations, isCatalogRace } from '../../src/db/migrate.js';
import { type Db, type DialectName, openStore, type Store } from '../../src/db/store.js';
import { loadModules } from '../../src/kernel/modules.js';
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
 * Applies the migrations up to `name` only (the house's and the modules'), as a store made by an
 * earlier release has them. Another test dropping its schema meanwhile fails Kysely's catalog
 * read; it reads again, as migrateToLatest does.
 */
export async function migrateStoreTo(store: Store, name: string): Promise<void> {
  const migrations = allMigrations(await loadModules());
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  let { error, results } = await migrator.migrateTo(name);
  for (let attempt = 1; attempt < 5 && isCatalogRace(error) && results === undefined; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    ({ error, results } = await migrator.migrateTo(name));
  }
  if (error) throw error;
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
    await migrateStoreTo(old, lastMigration);
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
          permissions: [...deps.vocabulary.permissions],
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
