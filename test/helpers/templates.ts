import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openStore, sqliteFile } from '../../src/db/store.js';
import { randomBase62 } from '../../src/lib/ids.js';

/**
 * Stores migrated once, copied for every test context: running the migrations costs more than
 * anything else a context does. A template is named after a hash of the migration files, so a
 * changed or added migration makes a new one, and a template is never changed once made.
 *
 * - SQLite: a migrated file in the temp folder, copied into each context's data folder.
 * - PostgreSQL: a migrated database, `CREATE DATABASE ... TEMPLATE` for each context (PostgreSQL
 *   copies its files; a tenth of a second against more than one for the migrations).
 */

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');
/** Where modules keep the migrations their manifests declare: `src/modules/<m>/migrations/`. */
const modulesDir = path.resolve(migrationsDir, '../../modules');

/** The migration files modules keep (their manifests declare them). */
function moduleMigrationFiles(): string[] {
  return fs
    .readdirSync(modulesDir)
    .sort()
    .map((module) => path.join(modulesDir, module, 'migrations'))
    .filter((dir) => fs.existsSync(dir))
    .flatMap((dir) =>
      fs
        .readdirSync(dir)
        .sort()
        .map((name) => path.join(dir, name)),
    );
}

/** The schema a context's PostgreSQL database holds its tables in, as `DATABASE_SCHEMA`. */
export const TEMPLATE_SCHEMA = 'app';

let hash: string | undefined;

/**
 * A hash of every migration file (the house's and the modules') and of the code that runs them: the
 * name of the templates that hold them.
 */
function migrationsHash(): string {
  if (hash === undefined) {
    const digest = crypto.createHash('sha256');
    const files = [
      ...fs
        .readdirSync(migrationsDir)
        .sort()
        .map((name) => path.join(migrationsDir, name)),
      ...moduleMigrationFiles(),
      path.join(migrationsDir, '../migrate.ts'),
    ];
    for (const file of files) {
      digest.update(path.basename(file)).update('\0').update(fs.readFileSync(file)).update('\0');
    }
    hash = digest.digest('hex').slice(0, 16);
  }
  return hash;
}

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

/** Runs `fn` with a connection to `url`, closed afterwards. */
export async function withAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let sqliteTemplate: Promise<string> | undefined;

/** The migrated SQLite template file, made by the first test process that needs it. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = path.join(os.tmpdir(), `cp-test-template-${migrationsHash()}.sqlite`);
    if (fs.existsSync(file)) return file;
    const building = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-test-template-'));
    try {
      const store = openStore({ dataDir: building });
      try {
        await migrateToLatest(store);
      } finally {
        // The last connection to close checkpoints the WAL into the file and removes it.
        await store.close();
      }
      // Another test process may be making the same template: each renames a whole file into place.
      fs.renameSync(sqliteFile(building), file);
    } finally {
      fs.rmSync(building, { recursive: true, force: true });
    }
    return file;
  })();
  return sqliteTemplate;
}

/** Puts a migrated SQLite store into `dataDir`. */
export async function copySqliteTemplate(dataDir: string): Promise<void> {
  const template = await sqliteTemplateFile();
  fs.copyFileSync(template, sqliteFile(dataDir));
  fs.chmodSync(sqliteFile(dataDir), 0o600);
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

let postgresTemplate: Promise<string> | undefined;

/**
 * The migrated PostgreSQL template database. Test processes that start at once take turns on an
 * advisory lock; the first one makes it, the others find it. Templates of other migrations are
 * left alone: another checkout's run may be creating databases from them at that moment.
 */
function postgresTemplateName(url: string): Promise<string> {
  postgresTemplate ??= withAdmin(withDatabase(url, 'postgres'), async (admin) => {
    const name = `cp_template_${migrationsHash()}`;
    await admin.query(`SELECT pg_advisory_lock(hashtext('cp test templates'))`);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 1) return name;
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const buildingUrl = withDatabase(url, building);
      await withAdmin(buildingUrl, (client) => client.query(`CREATE SCHEMA ${TEMPLATE_SCHEMA}`));
      const store = openStore({
        databaseUrl: buildingUrl,
        databaseSchema: TEMPLATE_SCHEMA,
        dataDir: os.tmpdir(),
        poolSize: 1,
      });
      try {
        await migrateToLatest(store);
      } finally {
        await store.close();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      return name;
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtext('cp test templates'))`);
    }
  });
  return postgresTemplate;
}

/** A new PostgreSQL database copied from the migrated template, and how to drop it. */
export async function postgresFromTemplate(
  url: string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const template = await postgresTemplateName(url);
  const database = `t_${randomBase62(12).toLowerCase()}`;
  const admin = withDatabase(url, 'postgres');
  await withAdmin(admin, (client) =>
    client.query(`CREATE DATABASE ${database} TEMPLATE ${template} STRATEGY WAL_LOG`),
  );
  return {
    url: withDatabase(url, database),
    schema: TEMPLATE_SCHEMA,
    drop: async () => {
      await withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}
