import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { runAdmin } from '../src/cli/admin.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrateStoreTo } from './helpers/upgrade.js';
import { rebuildRollups } from '../src/modules/analytics/analytics.rebuild.js';
import { loadVocabulary } from '../src/kernel/modules.js';
import { type DialectName, openStore, type Store } from '../src/db/store.js';
import type { CurrentUser } from '../src/modules/users/users.schemas.js';
import { startServer } from '../src/server.js';
import { client, createTestContext, DIALECTS, freshStore } from './helpers/context.js';
import { entryArgs, SKIP_IN_UNIT_RUN, spawnServer } from './helpers/process.js';
import type { Page, Problem } from './helpers/responses.js';

/** The repository root: where `src/cli/admin.ts` runs from. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function httpsGet(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = https.get(url, { ca, headers, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
    },
  );
}

describe('configuration', () => {
  it('names the variable of every bad value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ TLS: 'maybe' }, 'TLS'],
      [{ TLS_CERT: '/tmp/cert.pem' }, 'TLS_KEY'],
      [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ DEMO_DATA: 'sometimes' }, 'DEMO_DATA'],
      [{ AI_PROVIDER: 'magic' }, 'AI_PROVIDER'],
      [{ AI_BASE_URL: 'http://user:secret@127.0.0.1:11434/v1' }, 'AI_BASE_URL'],
      [{ AI_BASE_URL: 'https://:secret@api.example.com/v1' }, 'AI_BASE_URL'],
      [{ WEBHOOK_TIMEOUT_MS: '-1' }, 'WEBHOOK_TIMEOUT_MS'],
      [{ WEBHOOK_RETRY_SCHEDULE: '5,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
      [{ EVENT_RETENTION_DAYS: '0' }, 'EVENT_RETENTION_DAYS'],
      [{ DATABASE_SCHEMA: 'Robert"); DROP' }, 'DATABASE_SCHEMA'],
      [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
      [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
      [{ TRUST_PROXY: '127.0.0.1, everyone' }, 'TRUST_PROXY'],
      [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS'],
      [{ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' }, 'HEADERS_TIMEOUT_MS'],
      [{ LINGER_TIMEOUT_MS: '5s' }, 'LINGER_TIMEOUT_MS'],
      [{ LINGER_MAX_BYTES: '-1' }, 'LINGER_MAX_BYTES'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
        JSON.stringify(env),
      );
    }
    const config = loadConfig({});
    assert.equal(config.port, 8443);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.tls.enabled, true);
    assert.deepEqual(config.webhooks.retryScheduleSeconds, [5, 300, 1800, 7200, 18000, 36000, 36000]);
    assert.deepEqual(config.connections, {
      max: 1_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      lingerTimeoutMs: 5_000,
      lingerMaxBytes: 64 * 1024 * 1024,
    });
    // The headers' limit follows a shorter request limit.
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).connections.headersTimeoutMs, 5_000);
    assert.ok(Object.isFrozen(config));
  });

  it('stops the server process with a message naming the variable', { skip: SKIP_IN_UNIT_RUN }, async () => {
    await assert.rejects(spawnServer({ PORT: 'abc' }), (error: Error) => {
      assert.match(error.message, /exited with 1/);
      assert.match(error.message, /PORT must be a whole number/);
      return true;
    });
  });
});

/** Runs `fn` on a store opened on a fresh database or schema, then closes and drops it. */
async function withFreshStore(dialect: DialectName, fn: (store: Store) => Promise<void>): Promise<void> {
  const fresh = await freshStore(dialect);
  const config = loadConfig(fresh.env);
  const store = openStore({ ...config, dataDir: config.dataDir });
  try {
    await fn(store);
  } finally {
    await store.close();
    await fresh.drop();
  }
}

/**
 * The columns of `table` in the store's own schema. Not Kysely's introspection: on PostgreSQL it reads
 * every schema of the database, and fails when another test drops its schema at that moment.
 */
async function columnsOf(store: Store, table: string): Promise<string[]> {
  if (store.schema === undefined) {
    const rows = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(store.db);
    return rows.rows.map((row) => row.name);
  }
  const rows = await sql<{ name: string }>`
    SELECT column_name AS name FROM information_schema.columns
    WHERE table_schema = ${store.schema} AND table_name = ${table}`.execute(store.db);
  return rows.rows.map((row) => row.name);
}

/** Applies the migrations up to `name` only, as a store made by an earlier release has them. */
async function migrateTo(store: Store, name: string): Promise<void> {
  await migrateStoreTo(store, name);
}

describe('migrations', () => {
  for (const dialect of DIALECTS) {
    it(`are idempotent (${dialect})`, async () => {
      await withFreshStore(dialect, async (store) => {
        await migrateToLatest(store);
        await migrateToLatest(store);
        assert.ok((await columnsOf(store, 'api_keys')).includes('id'));
      });
    });
  }

  for (const dialect of DIALECTS) {
    it(`roll up the orders a store holds when 0010 runs, as the live rebuild does (${dialect})`, async () => {
      await withFreshStore(dialect, async (store) => {
        await migrateTo(store, '0009_console');
        const DAY = 86_400_000;
        const d0 = 20_000 * DAY;
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        // Shipped (paid on day 1), refunded (paid on day 1, refunded on day 2), pending (day 1).
        for (const [id, status, total, email, name, created, paidAt, refundedAt] of [
          ['ord_1', 'shipped', 500, 'a@example.com', 'Ann', d0 + 3_600_000, d0 + DAY + 3_600_000, null],
          [
            'ord_2',
            'refunded',
            300,
            'b@example.com',
            null,
            d0 + 7_200_000,
            d0 + DAY + 7_200_000,
            d0 + 2 * DAY,
          ],
          ['ord_3', 'pending', 100, 'a@example.com', 'Ann B', d0 + DAY + 10_800_000, null, null],
        ] as const) {
          // A paid order has its payment (refunded with a refunded order: 0022 carries the refund).
          const paymentId = paidAt === null ? null : `pay_${id}`;
          await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email,
                    customer_name, metadata, payment_id, restocked, created, updated, paid_at, refunded_at)
                  VALUES (${id}, 'ten_m', ${status}, 'USD', ${total}, ${total}, ${email}, ${name}, '{}',
                    ${paymentId}, 0, ${created}, ${created}, ${paidAt}, ${refundedAt})`.execute(store.db);
          if (paymentId !== null) {
            await sql`INSERT INTO payments (id, tenant_id, order_id, provider, method, amount, currency, status,
                      created, updated)
                    VALUES (${paymentId}, 'ten_m', ${id}, 'sandbox', 'pm_card_visa', ${total}, 'USD',
                      ${status === 'refunded' ? 'refunded' : 'succeeded'}, ${paidAt}, ${refundedAt ?? paidAt})`.execute(
              store.db,
            );
          }
        }
        for (const [order, position, product, category, quantity, total] of [
          ['ord_1', 0, 'prod_a', 'tools', 2, 400],
          ['ord_1', 1, 'prod_b', null, 1, 100],
          ['ord_2', 0, 'prod_a', 'tools', 1, 300],
          ['ord_3', 0, 'prod_b', null, 1, 100],
        ] as const) {
          await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, name, category, quantity,
                    unit_price, total)
                  VALUES (${order}, ${position}, 'ten_m', ${product}, ${product}, ${category}, ${quantity},
                    ${total / quantity}, ${total})`.execute(store.db);
        }

        await migrateToLatest(store);
        const daily = await store.db
          .selectFrom('analytics_daily')
          .select([
            'day',
            'orders',
            'paid_orders',
            'paid_value',
            'captured_amount',
            'refunded_amount',
            'units_sold',
          ])
          .where('tenant_id', '=', 'ten_m')
          .orderBy('day')
          .execute();
        assert.deepEqual(
          daily.map((row) => Object.values(row).map(Number)),
          [
            [d0, 2, 2, 800, 0, 0, 0],
            [d0 + DAY, 1, 0, 0, 800, 0, 4],
            [d0 + 2 * DAY, 0, 0, 0, 0, 300, -1],
          ],
        );

        // What the migration froze equals what the analytics module rebuilds today.
        const snapshot = async () => {
          const tables = [
            'analytics_currencies',
            'analytics_orders',
            'analytics_daily',
            'analytics_running',
            'analytics_members',
            'analytics_customer_days',
            'analytics_reach',
          ] as const;
          const all: Record<string, string[]> = {};
          for (const table of tables) {
            const rows = await store.db.selectFrom(table).selectAll().execute();
            all[table] = rows
              .map((row) =>
                JSON.stringify(Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)])),
              )
              .sort();
          }
          return all;
        };
        const migrated = await snapshot();
        assert.equal(migrated.analytics_orders?.length, 3);
        await store.transaction((trx) => rebuildRollups(trx));
        assert.deepEqual(await snapshot(), migrated);
      });
    });
  }

  for (const dialect of DIALECTS) {
    it(`keep a webhook secret replaced before 0013 signing until it expires (${dialect})`, async () => {
      await withFreshStore(dialect, async (store) => {
        await migrateTo(store, '0012_event_retention');
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        for (const [id, previous, until] of [
          ['wh_rotated', 'whsec_old', 1_800_000_000_000],
          ['wh_never', null, null],
        ] as const) {
          await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, status, secret, previous_secret,
                    previous_secret_expires_at, api_version, created, updated)
                  VALUES (${id}, 'ten_m', 'https://example.com/h', '["*"]', 'Active', 'whsec_new', ${previous},
                    ${until}, '2026-11-21', 1, 1)`.execute(store.db);
        }
        await migrateToLatest(store);
        const rows = await store.db
          .selectFrom('webhook_endpoints')
          .select(['id', 'secret', 'retired_secrets'])
          .orderBy('id')
          .execute();
        assert.deepEqual(rows, [
          { id: 'wh_never', secret: 'whsec_new', retired_secrets: '[]' },
          {
            id: 'wh_rotated',
            secret: 'whsec_new',
            retired_secrets: JSON.stringify([{ secret: 'whsec_old', expires_at: 1_800_000_000_000 }]),
          },
        ]);
        const columns = await columnsOf(store, 'webhook_endpoints');
        assert.ok(columns.includes('secret') && !columns.some((c) => c.startsWith('previous_secret')));
      });
    });
  }

  for (const dialect of DIALECTS) {
    it(`carry a transfer's Idempotency-Key made before 0015 into its key's record (${dialect})`, async () => {
      await withFreshStore(dialect, async (store) => {
        await migrateTo(store, '0014_refunds_due');
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        for (const [id, currency] of [
          ['wal_a', 'USD'],
          ['wal_b', 'EUR'],
        ]) {
          await sql`INSERT INTO ledger_accounts (id, type, tenant_id, currency, balance, postings, created, updated)
                  VALUES (${id}, 'wallet', 'ten_m', ${currency}, 0, 0, 1, 1)`.execute(store.db);
        }
        await sql`INSERT INTO ledger_entries (id, type, currency, created)
                VALUES ('ent_1', 'transfer', 'USD', 1)`.execute(store.db);
        await sql`INSERT INTO wallet_transfers (id, tenant_id, source_wallet_id, destination_wallet_id, amount,
                  currency, metadata, entry_id, idempotency_key, created)
                VALUES ('tr_1', 'ten_m', 'wal_a', 'wal_b', 5, 'USD', '{}', 'ent_1', 'payout-1', 1)`.execute(
          store.db,
        );
        for (const key of ['payout-1', 'other-key']) {
          await sql`INSERT INTO idempotency_keys (tenant_id, key, fingerprint, state, locked_until, created)
                  VALUES ('ten_m', ${key}, 'f', 'in_flight', 1, 1)`.execute(store.db);
        }
        await migrateToLatest(store);
        const keys = await store.db
          .selectFrom('idempotency_keys')
          .select(['key', 'resource_id'])
          .orderBy('key')
          .execute();
        assert.deepEqual(keys, [
          { key: 'other-key', resource_id: null },
          { key: 'payout-1', resource_id: 'tr_1' },
        ]);
        const columns = await columnsOf(store, 'wallet_transfers');
        assert.ok(columns.includes('amount') && !columns.includes('idempotency_key'));
      });
    });
  }

  it(
    'end a PostgreSQL session left idle in a transaction after 30 s, so a frozen process frees its locks',
    { skip: !process.env.TEST_DATABASE_URL },
    async () => {
      await withFreshStore('postgres', async (store) => {
        const shown = await sql<{
          idle_in_transaction_session_timeout: string;
        }>`SHOW idle_in_transaction_session_timeout`.execute(store.db);
        assert.equal(shown.rows[0]?.idle_in_transaction_session_timeout, '30s');
      });
    },
  );

  it(
    'are safe when several processes start at once on PostgreSQL',
    { skip: !process.env.TEST_DATABASE_URL },
    async () => {
      const fresh = await freshStore('postgres');
      const config = loadConfig(fresh.env);
      const stores = Array.from({ length: 4 }, () => openStore({ ...config, dataDir: config.dataDir }));
      try {
        await Promise.all(stores.map((store) => migrateToLatest(store)));
        const rows = await stores[0]?.db.selectFrom('tenants').selectAll().execute();
        assert.deepEqual(rows, []);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await fresh.drop();
      }
    },
  );
});

describe('operator CLI', () => {
  it('prints its usage on stdout and exits 0 for help, --help and -h', async () => {
    const fresh = await freshStore('sqlite');
    try {
      const config = loadConfig(fresh.env);
      for (const argv of [
        ['help'],
        ['--help'],
        ['-h'],
        ['tenant:create', '--help'],
        ['ledger:verify', '-h'],
      ]) {
        const result = await runAdmin(argv, config);
        assert.equal(result.code, 0, argv.join(' '));
        assert.match(result.stdout, /^Usage: npm run --silent admin -- <command>/, argv.join(' '));
        assert.match(result.stdout, /tenant:create --name N --email E/);
        assert.equal(result.stderr, '');
      }
      // An unknown command still fails, with the usage on stderr.
      const unknown = await runAdmin(['--version'], config);
      assert.equal(unknown.code, 2);
      assert.equal(unknown.stdout, '');
      assert.match(unknown.stderr, /^Unknown command "--version"\.\n\nUsage:/);
    } finally {
      await fresh.drop();
    }
  });

  it(
    'prints its usage from the process, even with a bad environment',
    { skip: SKIP_IN_UNIT_RUN },
    async () => {
      for (const flag of ['--help', '-h', 'help']) {
        const result = spawnSync(process.execPath, [...entryArgs('src/cli/admin.ts'), flag], {
          cwd: ROOT,
          env: { ...process.env, PORT: 'abc' },
          encoding: 'utf8',
        });
        assert.equal(result.status, 0, `${flag}: ${result.stderr}`);
        assert.match(result.stdout, /^Usage: npm run --silent admin -- <command>/);
      }
    },
  );

  for (const dialect of DIALECTS) {
    it(`creates tenants and keys and sets limits with JSON on stdout (${dialect})`, async () => {
      const fresh = await freshStore(dialect);
      const config = loadConfig(fresh.env);
      const ctx = await createTestContext(dialect, { env: fresh.env });
      try {
        const created = await runAdmin(
          ['tenant:create', '--name', 'Acme', '--email', 'ops@acme.test', '--plan', 'free', '--json'],
          config,
        );
        assert.equal(created.code, 0, created.stderr);
        const out = JSON.parse(created.stdout) as {
          tenant: { id: string; name: string; plan: string; api_version: string };
          user: { id: string; email: string; can_log_in: boolean };
          api_key: { id: string; key: string; permissions: string[] };
          wallet: { id: string; currency: string };
        };
        assert.deepEqual(Object.keys(out), ['tenant', 'user', 'api_key', 'wallet']);
        assert.deepEqual(Object.keys(out.tenant), ['id', 'name', 'plan', 'api_version']);
        assert.equal(out.tenant.plan, 'free');
        assert.equal(out.user.email, 'ops@acme.test');
        // Without --password the owner cannot log in, and the output says so.
        assert.equal(out.user.can_log_in, false);
        // The wallet id is the one a transfer to this tenant names.
        const balance = await ctx.deps.wallet.balance({ id: out.tenant.id, currency: 'USD' });
        assert.deepEqual(out.wallet, { id: balance.wallet_id, currency: 'USD' });
        const text = await runAdmin(
          ['tenant:create', '--name', 'Texty', '--email', 'text@acme.test', '--password', 'long enough pass'],
          config,
        );
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, /Wallet \(USD\): wal_\w+, the destination_wallet_id/);
        assert.match(text.stdout, /logs in to the console with text@acme\.test/);
        assert.equal(out.api_key.permissions.length, (await loadVocabulary()).permissions.length);

        const key = await runAdmin(
          [
            'key:create',
            '--tenant',
            out.tenant.id,
            '--name',
            'CI',
            '--permissions',
            'read:users,read:orders',
            '--json',
          ],
          config,
        );
        assert.equal(key.code, 0, key.stderr);
        const keyOut = JSON.parse(key.stdout) as { key: string; permissions: string[]; name: string };
        assert.deepEqual(keyOut.permissions, ['read:users', 'read:orders']);
        const me = await client(ctx.app, keyOut.key)<CurrentUser>('GET', '/v1/users/me');
        assert.equal(me.status, 200);
        assert.equal(me.body.tenant.id, out.tenant.id);

        const limits = await runAdmin(
          [
            'tenant:set-limits',
            '--tenant',
            out.tenant.id,
            '--hourly',
            '50',
            '--monthly',
            '500',
            '--plan',
            'pro',
            '--json',
          ],
          config,
        );
        assert.equal(limits.code, 0, limits.stderr);
        assert.deepEqual(JSON.parse(limits.stdout), {
          tenant: { id: out.tenant.id, plan: 'pro', hourly_limit: 50, monthly_limit: 500 },
        });

        const bad = await runAdmin(
          ['key:create', '--tenant', out.tenant.id, '--name', 'x', '--permissions', 'fly'],
          config,
        );
        assert.equal(bad.code, 2);
        assert.equal(bad.stdout, '');
        assert.match(bad.stderr, /unknown values: fly/);
        const unknownTenant = await runAdmin(
          ['tenant:set-limits', '--tenant', 'ten_nope', '--hourly', '5'],
          config,
        );
        assert.equal(unknownTenant.code, 1);
        assert.match(unknownTenant.stderr, /not_found/);
        const duplicate = await runAdmin(
          ['tenant:create', '--name', 'Again', '--email', 'ops@acme.test', '--json'],
          config,
        );
        assert.equal(duplicate.code, 1);
        assert.match(duplicate.stderr, /email is already registered/);
      } finally {
        await ctx.close();
        await fresh.drop();
      }
    });
  }
});

describe('server process', { skip: SKIP_IN_UNIT_RUN }, () => {
  it('serves HTTPS with a self-signed certificate, HSTS and demo data, and exits 0 on SIGTERM', async () => {
    const fresh = await freshStore('sqlite');
    const env = { ...fresh.env, TLS: 'on', DEMO_DATA: 'on' };
    const server = await spawnServer(env);
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const certPath = path.join(fresh.dataDir, 'tls', 'cert.pem');
      const ca = fs.readFileSync(certPath, 'utf8');
      assert.match(server.output(), /SHA-256:\s+([0-9A-F]{2}:){31}[0-9A-F]{2}/);
      const credentialsFile = path.join(fresh.dataDir, 'demo-credentials.json');
      assert.equal(fs.statSync(credentialsFile).mode & 0o777, 0o600);
      const credentials = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as {
        api_key: string;
        password: string;
        publishable_key: string;
      };
      assert.ok(server.output().includes(`Authorization: Bearer ${credentials.api_key}`));
      // The console's address, on the API's host and port, and the login to use there.
      const banner = server.output();
      assert.ok(banner.includes(`  Console:   ${server.url}/console\n`), banner);
      assert.ok(
        banner.includes(`Login:     demo@example.com / ${credentials.password} (at ${server.url}/console)`),
      );
      // The demo store's shop, opened with its publishable key.
      const shop = `  Shop:      ${server.url}/shop/?key=${credentials.publishable_key}\n`;
      assert.ok(banner.includes(shop), banner);
      const me = await httpsGet(`${server.url}/v1/users/me`, ca, {
        authorization: `Bearer ${credentials.api_key}`,
      });
      assert.equal(me.status, 200);
      assert.match(String(me.headers['strict-transport-security']), /max-age=\d+/);
      assert.equal((JSON.parse(me.body) as CurrentUser).email, 'demo@example.com');
      // Every answer carries HSTS: refusals, unknown paths and the router's own errors too.
      const refusals = [
        ['/v1/users/me', 401],
        ['/v1/no-such-thing', 404],
        ['/v1/products/%E0%A4%A', 400],
      ] as const;
      for (const [refusedPath, status] of refusals) {
        const refused = await httpsGet(`${server.url}${refusedPath}`, ca);
        assert.equal(refused.status, status, refusedPath);
        assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
        assert.match(String(refused.headers['strict-transport-security']), /max-age=\d+/, refusedPath);
      }
      assert.equal(await server.stop(), 0);

      // A second start reuses the certificate and does not print or replace the credentials.
      const again = await spawnServer(env);
      assert.equal(fs.readFileSync(certPath, 'utf8'), ca);
      assert.ok(!again.output().includes(credentials.api_key));
      assert.ok(again.output().includes(`  Console:   ${again.url}/console\n`), again.output());
      assert.ok(again.output().includes(`/shop/?key=${credentials.publishable_key}\n`), again.output());
      assert.equal(await again.stop(), 0);
    } finally {
      await fresh.drop();
    }
  });

  it('deletes events past EVENT_RETENTION_DAYS when it starts, not ten minutes later', async () => {
    const fresh = await freshStore('sqlite');
    const env = { ...fresh.env, TLS: 'off', DEMO_DATA: 'on' };
    try {
      // The demo store holds four weeks of events.
      const first = await spawnServer(env);
      const { api_key: key } = JSON.parse(
        fs.readFileSync(path.join(fresh.dataDir, 'demo-credentials.json'), 'utf8'),
      ) as { api_key: string };
      const olderThanTwoDays = `/v1/events?created_to=${new Date(Date.now() - 2 * 86_400_000).toISOString()}`;
      const count = async (url: string, query: string) => {
        const res = await fetch(`${url}${query}`, { headers: { authorization: `Bearer ${key}` } });
        assert.equal(res.status, 200);
        return ((await res.json()) as Page<unknown>).total;
      };
      assert.ok((await count(first.url, olderThanTwoDays)) > 0);
      assert.equal(await first.stop(), 0);

      const second = await spawnServer({ ...env, EVENT_RETENTION_DAYS: '1' });
      try {
        const deadline = Date.now() + 10_000;
        while ((await count(second.url, olderThanTwoDays)) > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(await count(second.url, olderThanTwoDays), 0);
        assert.ok((await count(second.url, '/v1/events')) > 0, 'the last day is kept');
      } finally {
        await second.stop();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('drains on shutdown: in-flight requests finish, new ones get 503, the store closes', async () => {
    const fresh = await freshStore('sqlite');
    let release: () => void = () => undefined;
    let enteredResolve: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => (enteredResolve = resolve));
    const server = await startServer(
      loadConfig({ ...fresh.env, PORT: '0' }),
      {},
      {
        extraRoutes: (app) => {
          app.get('/slow', { config: { auth: 'public' } }, async () => {
            enteredResolve();
            await new Promise<void>((resolve) => (release = resolve));
            return { finished: true };
          });
        },
      },
    );
    try {
      const inFlight = fetch(`${server.url}/slow`).then(async (res) => ({
        status: res.status,
        body: await res.json(),
      }));
      await entered;
      const closing = server.shutdown();
      const during = await server.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(during.statusCode, 503);
      assert.equal(during.json<Problem>().code, 'service_unavailable');
      assert.equal(during.headers['retry-after'], '1');
      const fresh503 = await fetch(`${server.url}/healthz`).then(
        (res) => res.status,
        () => 'refused',
      );
      assert.ok(fresh503 === 503 || fresh503 === 'refused', String(fresh503));
      release();
      assert.deepEqual(await inFlight, { status: 200, body: { finished: true } });
      await closing;
      await assert.rejects(server.deps.store.ping());
    } finally {
      release();
      await fresh.drop();
    }
  });
});
