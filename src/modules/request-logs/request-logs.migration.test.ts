import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { RequestLogEntry } from './request-logs.service.js';

const T0 = Date.parse('2027-01-10T00:00:00.000Z');
const FILTERS = ['key_id', 'route', 'method', 'status_class'] as const;

interface Page {
  data: RequestLogEntry[];
  total: number;
  next_cursor: string | null;
}

/**
 * A store of the release before migration 0058 holding a request log of two keys, three routes and
 * two methods, interleaved in time (and another tenant's rows at the same times); then 0058 adds
 * an index per filter (0067 the status class's) and 0065 counts the rows by each filter. Each filter's pages hold exactly its
 * rows, newest first, its total is their number, and its query seeks through its own index rather
 * than walking the tenant's time index.
 */
for (const dialect of DIALECTS) {
  describe(`migrations 0058, 0065 and 0067: request log filters and their counts on a store with data (${dialect})`, () => {
    it('pages each filter right, through an index of its own', async () => {
      const rows: {
        tenant: string;
        id: string;
        created: number;
        key: string;
        route: string;
        method: string;
      }[] = [];
      for (let i = 0; i < 60; i++) {
        for (const tenant of ['ten_a', 'ten_b']) {
          rows.push({
            tenant,
            id: `req_${tenant}_${String(i).padStart(3, '0')}`,
            created: T0 + i * 1000,
            key: i % 3 === 0 ? 'key_one' : 'key_two',
            route: ['/v1/products', '/v1/orders', '/v1/customers'][
              i % 4 === 0 ? 0 : i % 2 === 0 ? 1 : 2
            ] as string,
            method: i % 5 === 0 ? 'POST' : 'GET',
          });
        }
      }
      const store = await upgradeFrom(dialect, '0051_request_logs', async (old) => {
        for (const tenant of ['ten_a', 'ten_b']) {
          await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES (${tenant}, 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        }
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        for (const row of rows) {
          await sql`INSERT INTO request_logs (tenant_id, id, created, method, path, route, status, status_class,
                  duration_ms, key_id, key_name, key_type, app, ip, user_agent, api_version, idempotency_key,
                  error_code, request_body, response_body)
                VALUES (${row.tenant}, ${row.id}, ${row.created}, ${row.method}, ${row.route}, ${row.route}, 200,
                  '2xx', 1.5, ${row.key}, 'k', 'secret', NULL, '127.0.0.1', NULL, '2027-01-20', NULL, NULL, NULL,
                  NULL)`.execute(old);
        }
      });
      try {
        const api = await store.clientFor('ten_a', 'usr_a');
        const cases: [string, (row: (typeof rows)[number]) => boolean][] = [
          ['key_id=key_one', (row) => row.key === 'key_one'],
          ['route=/v1/orders', (row) => row.route === '/v1/orders'],
          ['method=POST', (row) => row.method === 'POST'],
          ['key_id=key_two&method=GET', (row) => row.key === 'key_two' && row.method === 'GET'],
          ['status=200', () => true],
        ];
        for (const [query, keep] of cases) {
          const expected = rows
            .filter((row) => row.tenant === 'ten_a' && keep(row))
            .map((row) => row.id)
            .reverse();
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const page: { status: number; body: Page } = await api<Page>(
              'GET',
              `/v1/request-logs?${query}&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
            );
            assert.equal(page.status, 200, JSON.stringify(page.body));
            assert.equal(page.body.total, expected.length, query);
            seen.push(...page.body.data.map((entry) => entry.id));
            cursor = page.body.next_cursor;
          } while (cursor !== null);
          assert.deepEqual(seen, expected, query);
        }

        const db = store.deps.store.db;
        // Migration 0065 counted the rows written before it, per filter: the totals above are those.
        const counted = await sql<{ list: string; key: string; n: number | string }>`
          SELECT list, key, n FROM list_counts WHERE tenant_id = 'ten_a' AND list LIKE 'request_logs:%'
          ORDER BY list, key`.execute(db);
        const expectedCounts = (column: 'key' | 'route' | 'method', list: string) =>
          [...new Set(rows.map((row) => row[column]))].sort().map((key) => ({
            list,
            key,
            n: rows.filter((row) => row.tenant === 'ten_a' && row[column] === key).length,
          }));
        assert.deepEqual(
          counted.rows.map((row) => ({ ...row, n: Number(row.n) })),
          [
            ...expectedCounts('key', 'request_logs:key'),
            ...expectedCounts('method', 'request_logs:method'),
            ...expectedCounts('route', 'request_logs:route'),
            { list: 'request_logs:status', key: '200', n: 60 },
          ],
        );
        for (const column of FILTERS) {
          const index = `request_logs_tenant_${column}_created_idx`;
          if (dialect === 'sqlite') {
            const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN
              SELECT * FROM request_logs WHERE tenant_id = 'ten_a' AND ${sql.ref(column)} = 'x'
              ORDER BY created DESC, id DESC LIMIT 20`.execute(db);
            const details = plan.rows.map((row) => row.detail).join('\n');
            assert.match(details, new RegExp(`USING INDEX ${index}`), details);
            assert.doesNotMatch(details, /TEMP B-TREE/, details);
          } else {
            const found = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes
              WHERE schemaname = current_schema() AND tablename = 'request_logs' AND indexname = ${index}`.execute(
              db,
            );
            assert.match(
              found.rows[0]?.indexdef ?? '',
              new RegExp(`\\(tenant_id, ${column}, created, id\\)`),
            );
          }
        }
      } finally {
        await store.close();
      }
    });
  });
}
