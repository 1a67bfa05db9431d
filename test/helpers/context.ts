import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { type AppOptions, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.js';
import type { Db, DialectName } from '../../src/db/store.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { CreateTenantInput, CreatedTenant } from '../../src/modules/tenants/tenants.service.js';
import { copySqliteTemplate, postgresFromTemplate, testDatabaseUrl, withAdmin } from './templates.js';

/**
 * The stores a suite runs on whose outcome can depend on the store: SQLite, and PostgreSQL too
 * when TEST_DATABASE_URL is set. Each test context gets a fresh SQLite file or a fresh PostgreSQL
 * database. Use it for repositories and SQL, transactions, concurrency and locks, migrations,
 * crashes and restarts, the webhook queue and worker, the ledger and wallet, idempotency, imports
 * and exports, limits and throttles kept in the store or Redis, analytics rollups and counts, and
 * text the store must keep as sent.
 */
export const DIALECTS: DialectName[] = [
  'sqlite',
  ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : []),
];

/**
 * The store a suite runs on whose subject sits above the store, where PostgreSQL would repeat
 * SQLite's run: HTTP conventions, validation and problem shapes, authentication and permission
 * checks, presenters and version transforms, the OpenAPI document, the console's pages and the
 * clients that call the API, outbound HTTP (a provider, a receiver's TLS), pure logic. The
 * fuzzer stays on both: a value only PostgreSQL refuses must not become a 5xx there. A suite that mixes both kinds splits its tests between two describes.
 */
export const LOGIC_ONLY: DialectName[] = ['sqlite'];
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

export interface TestStore {
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

/** The settings every test store starts from. */
function baseEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    TLS: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_INSECURE: 'true',
    // Password hashes at a test cost (2^12): the production default (2^17) is slow on purpose.
    PASSWORD_SCRYPT_LOG2N: '12',
  };
}

/** A fresh, empty store: a temp dir (SQLite) or a new schema (PostgreSQL). Its first start migrates it. */
export async function freshStore(dialect: DialectName): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-test-'));
  const base = baseEnv(dataDir);
  if (dialect === 'sqlite') {
    return { env: base, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const url = testDatabaseUrl();
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  await withAdmin(url, (admin) => admin.query(`CREATE SCHEMA ${schema}`));
  return {
    env: { ...base, DATABASE_URL: url, DATABASE_SCHEMA: schema },
    dataDir,
    drop: async () => {
      await withAdmin(url, (admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh store with every migration applied, copied from a template that is migrated once per
 * set of migrations (see `templates.ts`): a copy of a SQLite file, or a PostgreSQL database
 * created from a template database. Same schema as `freshStore` after its first start, without
 * running the migrations again for every test context.
 */
export async function migratedStore(dialect: DialectName): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-test-'));
  const base = baseEnv(dataDir);
  if (dialect === 'sqlite') {
    await copySqliteTemplate(dataDir);
    return { env: base, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const { url, schema, drop } = await postgresFromTemplate(testDatabaseUrl());
  return {
    env: { ...base, DATABASE_URL: url, DATABASE_SCHEMA: schema },
    dataDir,
    drop: async () => {
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestContext {
  dialect: DialectName;
  config: Config;
  deps: Deps;
  app: FastifyInstance;
  store: TestStore;
  close(): Promise<void>;
}

export interface TestContextOptions extends DepsOverrides {
  env?: Record<string, string>;
  extraRoutes?: AppOptions['extraRoutes'];
}

/** An in-process app on a fresh store; drive it with `app.inject` (see `client`). */
export async function createTestContext(
  dialect: DialectName,
  options: TestContextOptions = {},
): Promise<TestContext> {
  const store = await migratedStore(dialect);
  const config = loadConfig({ ...store.env, ...options.env });
  const { env: _env, extraRoutes, ...overrides } = options;
  const deps = await createDeps(config, { poolSize: 4, ...overrides });
  const app = await buildApp(deps, { extraRoutes });
  return {
    dialect,
    config,
    deps,
    app,
    store,
    async close() {
      await app.close();
      await deps.close();
      await store.drop();
    },
  };
}

let tenantCounter = 0;

/** A tenant with its owner and a full-permission key, made through the real service. */
export async function createTenant(
  ctx: TestContext,
  input: Partial<CreateTenantInput> = {},
): Promise<CreatedTenant> {
  tenantCounter += 1;
  return ctx.deps.tenants.create({
    name: `Tenant ${tenantCounter}`,
    email: `owner${tenantCounter}-${randomBase62(6).toLowerCase()}@example.com`,
    ...input,
  });
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: T;
  raw: LightMyRequestResponse;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw payload instead of JSON (sent as given). */
  payload?: string | Buffer;
  /** The caller's address (default 127.0.0.1): a shopper of its own, as the storefront limits count. */
  remoteAddress?: string;
}

/** A small client over `app.inject` that authenticates with `key` and parses JSON bodies. */
export function client(app: FastifyInstance, key?: string) {
  return async function request<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}) };
    let payload: string | Buffer | undefined = options.payload;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    const raw = await app.inject({
      method,
      url,
      headers: { ...headers, ...options.headers },
      payload,
      ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    });
    const text = raw.body;
    let body: unknown = text;
    if (text !== '' && /json/.test(String(raw.headers['content-type'] ?? ''))) body = JSON.parse(text);
    return { status: raw.statusCode, headers: raw.headers, body: body as T, raw };
  };
}

export type Client = ReturnType<typeof client>;

/**
 * Runs `fn` while storing an idempotent response fails (a trigger refuses the update): the failure
 * that can strike after a use case committed and before its answer is recorded.
 */
export async function whileResponsesAreRefused<T>(
  db: Db,
  dialect: DialectName,
  fn: () => Promise<T>,
): Promise<T> {
  const [install, remove] =
    dialect === 'postgres'
      ? [
          [
            `CREATE FUNCTION refuse_response() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$ LANGUAGE plpgsql`,
            `CREATE TRIGGER refuse_response BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION refuse_response()`,
          ],
          ['DROP TRIGGER refuse_response ON idempotency_keys', 'DROP FUNCTION refuse_response()'],
        ]
      : [
          [
            `CREATE TRIGGER refuse_response BEFORE UPDATE OF state ON idempotency_keys WHEN NEW.state = 'completed' BEGIN SELECT RAISE(ABORT, 'injected'); END`,
          ],
          ['DROP TRIGGER refuse_response'],
        ];
  for (const statement of install) await sql.raw(statement).execute(db);
  try {
    return await fn();
  } finally {
    for (const statement of remove) await sql.raw(statement).execute(db);
  }
}
