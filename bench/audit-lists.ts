import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import { encodeCursor } from '../src/lib/paging.js';
import { benchEnv, machine, tempDataDir, unlimitedTenant } from './lib.js';

/**
 * `GET /v1/audit-log` and `GET /v1/request-logs` at 1,000 rows and at 1,000,000 rows of one tenant,
 * on SQLite and on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL; skipped when none answers):
 * the first page, a cursor page half way down, and each filter's first page. The rows are written
 * by one INSERT ... SELECT (a recursive CTE on SQLite, generate_series on PostgreSQL), not through
 * the API; the request log's kept count is set to match. Each figure is the median latency of
 * requests made one after another through `app.inject` for BENCH_SECONDS (default 1) seconds.
 *
 *   npx tsx bench/audit-lists.ts
 *   BENCH_AUDIT_ROWS=1000000  the large size (the small one is 1,000)
 */

const SMALL = 1_000;
const LARGE = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
/** Rows one INSERT ... SELECT writes. */
const FILL_ROWS = 100_000;
/** The first row's time: the rows are a millisecond apart, the newest last. */
const START = Date.UTC(2026, 10, 1);

interface Figure {
  p50: number;
  p99: number;
  perSecond: number;
}

interface Store {
  name: string;
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Rows `from`..`to` (1-based) of the tenant: as a recursive CTE (SQLite) or generate_series. */
function series(deps: Deps, from: number, to: number) {
  return deps.store.dialect === 'postgres'
    ? sql`SELECT generate_series(${from}::bigint, ${to}::bigint) AS i`
    : sql`WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to}) SELECT i FROM s`;
}

/** Zero-padded `i`: ids that sort as their numbers do. */
const padded = (deps: Deps) =>
  deps.store.dialect === 'postgres' ? sql`lpad(i::text, 9, '0')` : sql`printf('%09d', i)`;

async function fill(deps: Deps, tenantId: string, from: number, to: number): Promise<void> {
  if (to < from) return;
  const n = padded(deps);
  const mod = (m: number) => sql`(i % ${sql.lit(m)})`;
  await sql`INSERT INTO audit_entries
      (id, tenant_id, seq, created, actor_type, actor_id, actor_name, action, resource_type, resource_id,
       changes, snapshot, request_id, ip, livemode, content_digest, redacted, hash)
    SELECT 'aud_' || ${n}, ${tenantId}, i, ${START} + i, 'api_key', 'key_' || ${mod(10)}, 'Bench key',
      CASE ${mod(4)} WHEN 0 THEN 'product.created' WHEN 1 THEN 'product.updated'
        WHEN 2 THEN 'order.paid' ELSE 'customer.updated' END,
      'product', 'prod_' || ${mod(1000)}, '{"price":{"from":1000,"to":1100}}', NULL,
      'req_' || ${n}, '203.0.113.7', 1, 'digest', 0, 'hash'
    FROM (${series(deps, from, to)}) AS s`.execute(deps.store.db);
  await sql`INSERT INTO request_logs
      (tenant_id, id, created, method, path, route, status, status_class, duration_ms, key_id, key_name,
       key_type, app, ip, user_agent, api_version, idempotency_key, error_code, request_body, response_body)
    SELECT ${tenantId}, 'req_' || ${n}, ${START} + i, 'GET', '/v1/products',
      CASE ${mod(5)} WHEN 0 THEN '/v1/orders' WHEN 1 THEN '/v1/customers' ELSE '/v1/products' END,
      CASE WHEN ${mod(20)} = 0 THEN 404 ELSE 200 END, CASE WHEN ${mod(20)} = 0 THEN '4xx' ELSE '2xx' END,
      3, 'key_' || ${mod(10)}, 'Bench key', 'secret', NULL, '203.0.113.7', 'bench', '2027-01-20', NULL,
      NULL, NULL, '{"data":[]}'
    FROM (${series(deps, from, to)}) AS s`.execute(deps.store.db);
  // The chain's head, as the sealer leaves it (its place is the count of sealed entries).
  await deps.store.db
    .insertInto('audit_chains')
    .values({ tenant_id: tenantId, seq: to, last_hash: 'hash' })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ seq: to }))
    .execute();
  // The request log's kept counts, as its writer keeps them.
  const fourXx = Math.floor(to / 20) - Math.floor((from - 1) / 20);
  for (const [key, added] of [
    ['2xx', to - from + 1 - fourXx],
    ['4xx', fourXx],
  ] as const) {
    await deps.store.db
      .insertInto('list_counts')
      .values({ tenant_id: tenantId, list: 'request_logs', key, n: added })
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'list', 'key'])
          .doUpdateSet((eb) => ({ n: eb('list_counts.n', '+', added) })),
      )
      .execute();
  }
}

/**
 * The kept counts by filter, as the log's writer and the sealer keep them (and migrations 0065 and
 * 0066 count rows written before them): counted again from the rows after each fill.
 */
async function recountFilters(deps: Deps, tenantId: string): Promise<void> {
  const db = deps.store.db;
  await sql`DELETE FROM list_counts WHERE tenant_id = ${tenantId}
    AND (list LIKE 'request_logs:%' OR list LIKE 'audit:%')`.execute(db);
  const lists = [
    ['request_logs', 'request_logs:status', sql`CAST(status AS TEXT)`],
    ['request_logs', 'request_logs:method', sql`method`],
    ['request_logs', 'request_logs:route', sql`route`],
    ['request_logs', 'request_logs:key', sql`key_id`],
    ['audit_entries', 'audit:action', sql`action`],
    ['audit_entries', 'audit:actor', sql`actor_id`],
  ] as const;
  for (const [table, list, value] of lists) {
    await sql`INSERT INTO list_counts (tenant_id, list, key, n)
      SELECT tenant_id, ${list}, ${value}, COUNT(*) FROM ${sql.table(table)}
      WHERE tenant_id = ${tenantId} AND ${value} IS NOT NULL GROUP BY tenant_id, ${value}`.execute(db);
  }
}

/** The rows' cursor half way down the list (newest first), as a page would hand it out. */
function cursorAt(rows: number, prefix: 'aud' | 'req'): string {
  const position = Math.floor(rows / 2);
  const i = rows - position;
  return encodeCursor({
    sort: 'created',
    after: [START + i, `${prefix}_${String(i).padStart(9, '0')}`],
    offset: position,
  });
}

async function measure(app: Awaited<ReturnType<typeof buildApp>>, key: string, url: string): Promise<Figure> {
  const headers = { authorization: `Bearer ${key}` };
  for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url, headers });
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until || times.length < 5) {
    const start = performance.now();
    const res = await app.inject({ method: 'GET', url, headers });
    times.push(performance.now() - start);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), perSecond: times.length / SECONDS };
}

function scenarios(rows: number): [string, string][] {
  const auditCursor = cursorAt(rows, 'aud');
  const requestCursor = cursorAt(rows, 'req');
  const from = new Date(START + rows - 5_000).toISOString();
  const to = new Date(START + rows).toISOString();
  return [
    ['GET /v1/audit-log first page', '/v1/audit-log'],
    ['GET /v1/audit-log cursor half way', `/v1/audit-log?cursor=${encodeURIComponent(auditCursor)}`],
    ['GET /v1/audit-log?resource_id=', '/v1/audit-log?resource_id=prod_7'],
    ['GET /v1/audit-log?actor_id=', '/v1/audit-log?actor_id=key_3'],
    ['GET /v1/audit-log?action=', '/v1/audit-log?action=order.paid'],
    ['GET /v1/audit-log?from=&to= (last 5 s)', `/v1/audit-log?from=${from}&to=${to}`],
    ['GET /v1/request-logs first page', '/v1/request-logs'],
    ['GET /v1/request-logs cursor half way', `/v1/request-logs?cursor=${encodeURIComponent(requestCursor)}`],
    ['GET /v1/request-logs?status=4xx', '/v1/request-logs?status=4xx'],
    ['GET /v1/request-logs?route=', '/v1/request-logs?route=/v1/orders'],
    ['GET /v1/request-logs?key_id=', '/v1/request-logs?key_id=key_3'],
  ];
}

async function sqliteStore(): Promise<Store> {
  const dataDir = tempDataDir();
  return {
    name: 'SQLite',
    env: benchEnv(dataDir),
    drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresStore(): Promise<Store | undefined> {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) return undefined;
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const schema = `bench_audit_${randomBase62(10).toLowerCase()}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const dataDir = tempDataDir();
  return {
    name: 'PostgreSQL',
    // The fill's statements write 100,000 rows each: more than the default 30 s may take.
    env: benchEnv(dataDir, {
      DATABASE_URL: url,
      DATABASE_SCHEMA: schema,
      DATABASE_STATEMENT_TIMEOUT_MS: '600000',
    }),
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface AuditListRow {
  store: string;
  scenario: string;
  small: Figure;
  large: Figure;
}

export async function run(): Promise<AuditListRow[]> {
  const stores = [await sqliteStore()];
  const postgres = await postgresStore();
  if (postgres) stores.push(postgres);
  else process.stderr.write('No PostgreSQL answered (BENCH_DATABASE_URL / TEST_DATABASE_URL): skipped.\n');
  const out: AuditListRow[] = [];
  for (const store of stores) {
    const deps = await createDeps(loadConfig(store.env));
    try {
      const app = await buildApp(deps);
      const tenant = await unlimitedTenant(deps);
      const tenantId = tenant.tenant.id;
      const key = tenant.apiKey.key as string;
      await deps.store.db.deleteFrom('audit_entries').where('tenant_id', '=', tenantId).execute();
      await fill(deps, tenantId, 1, SMALL);
      await recountFilters(deps, tenantId);
      if (deps.store.dialect === 'postgres') await sql`ANALYZE`.execute(deps.store.db);
      const small = new Map<string, Figure>();
      for (const [name, url] of scenarios(SMALL)) small.set(name, await measure(app, key, url));
      const filled = performance.now();
      for (let from = SMALL + 1; from <= LARGE; from += FILL_ROWS)
        await fill(deps, tenantId, from, Math.min(LARGE, from + FILL_ROWS - 1));
      await recountFilters(deps, tenantId);
      if (deps.store.dialect === 'postgres') await sql`ANALYZE`.execute(deps.store.db);
      process.stderr.write(
        `${store.name}: ${LARGE.toLocaleString('en')} rows of each log in ${((performance.now() - filled) / 1000).toFixed(0)} s\n`,
      );
      for (const [index, [name, url]] of scenarios(LARGE).entries()) {
        const before = small.get(scenarios(SMALL)[index]?.[0] ?? name);
        if (before)
          out.push({ store: store.name, scenario: name, small: before, large: await measure(app, key, url) });
      }
      await app.close();
    } finally {
      await deps.close();
      await store.drop();
    }
  }
  return out;
}

export function formatRows(rows: AuditListRow[]): string {
  const large = LARGE.toLocaleString('en');
  const lines = [
    `| store | scenario | p50 ms @ 1,000 | p50 ms @ ${large} | ratio (${large} / 1,000) | p99 ms @ 1,000 | p99 ms @ ${large} |`,
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.store} | ${r.scenario} | ${r.small.p50.toFixed(2)} | ${r.large.p50.toFixed(2)} | ${(r.large.p50 / r.small.p50).toFixed(2)} | ${r.small.p99.toFixed(2)} | ${r.large.p99.toFixed(2)} |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${machine()}\n\n${formatRows(rows)}\n`);
}
