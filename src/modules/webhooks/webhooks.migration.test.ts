import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import * as repo from './webhooks.queue.repository.js';

/**
 * Migration 0027 indexes the delivery queue per endpoint, in place of its index in due order. A
 * store of the previous release, with deliveries waiting, is delivered as before once it upgrades:
 * what was due goes out, a retry not yet due waits, a Disabled endpoint's deliveries stay held.
 */

const T0 = Date.parse('2027-01-10T09:00:00.000Z');
const HOUR = 3600 * 1000;
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

/** Two tenants' endpoints and deliveries as release 0026 wrote them; endpoint URLs at `rx`. */
function writeOldStore(rx: Receiver, now: number) {
  return async (db: Db) => {
    for (const tenant of ['ten_a', 'ten_b']) {
      await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
        VALUES (${tenant}, ${tenant}, 'pro', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(db);
      await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
        VALUES (${`evt_${tenant}`}, ${tenant}, 'product.created', 'product', 'prod_1',
          '{"id":"prod_1","name":"Lamp"}', ${T0})`.execute(db);
    }
    for (const [id, tenant, status] of [
      ['wh_a', 'ten_a', 'Active'],
      ['wh_off', 'ten_a', 'Disabled'],
      ['wh_b', 'ten_b', 'Degraded'],
    ] as const) {
      await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secret, status,
          api_version, last_triggered, failing_since, created, updated, retired_secrets)
        VALUES (${id}, ${tenant}, ${`${rx.url}/${id}`}, '["*"]', NULL, ${SECRET}, ${status}, '2026-12-15',
          NULL, NULL, ${T0}, ${T0}, '[]')`.execute(db);
    }
    const deliveries = [
      // id, endpoint, status, held, due
      ['del_a1', 'wh_a', 'pending', 0, now - 3 * HOUR],
      ['del_a2', 'wh_a', 'pending', 0, now - 2 * HOUR],
      ['del_a3', 'wh_a', 'pending', 0, now - HOUR],
      ['del_a0', 'wh_a', 'succeeded', 0, now - 4 * HOUR],
      ['del_off', 'wh_off', 'pending', 1, now - HOUR],
      ['del_b1', 'wh_b', 'pending', 0, now - HOUR],
      ['del_b2', 'wh_b', 'pending', 0, now + HOUR],
    ] as const;
    for (const [id, endpoint, status, held, due] of deliveries) {
      const tenant = endpoint === 'wh_b' ? 'ten_b' : 'ten_a';
      await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, manual,
          status, due_at, lease_until, lease_owner, held, created)
        VALUES (${id}, ${tenant}, ${endpoint}, ${`evt_${tenant}`}, 'product.created', 1, 0, ${status}, ${due},
          NULL, NULL, ${held}, ${T0})`.execute(db);
    }
  };
}

async function indexNames(db: Db, dialect: string): Promise<string[]> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`.execute(db)
      : await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
          WHERE schemaname = current_schema()`.execute(db);
  return rows.map((row) => row.name);
}

for (const dialect of DIALECTS) {
  describe(`migration 0027: the queue per endpoint (${dialect})`, () => {
    let rx: Receiver | undefined;
    after(() => rx?.close());

    it('delivers what was due in the old queue, keeps what waits, and replaces the index', async () => {
      rx = await startReceiver();
      const now = Date.now();
      const upgraded = await upgradeFrom(dialect, '0026_imports', writeOldStore(rx, now));
      try {
        const { db } = upgraded.deps.store;
        const names = await indexNames(db, dialect);
        assert.ok(names.includes('webhook_deliveries_queue_idx'), names.join(', '));
        assert.ok(!names.includes('webhook_deliveries_due_idx'), names.join(', '));

        const waiting = await repo.waitingEndpoints(db, {
          now,
          readyCap: 8,
          skipEndpoints: [],
          skipTenants: [],
        });
        assert.deepEqual(
          waiting
            .map((w) => [w.endpoint_id, w.tenant_id, w.first_due, w.ready])
            .sort(([a], [b]) => String(a).localeCompare(String(b))),
          [
            ['wh_a', 'ten_a', now - 3 * HOUR, 3],
            ['wh_b', 'ten_b', now - HOUR, 1],
          ],
        );

        upgraded.deps.webhookWorker.start();
        await rx.waitFor(4);
        const statuses = await eventually(async () => {
          const rows = await db
            .selectFrom('webhook_deliveries')
            .select(['id', 'status', 'held'])
            .where('attempt', '=', 1)
            .orderBy('id')
            .execute();
          const sent = rows.filter((r) => ['del_a1', 'del_a2', 'del_a3', 'del_b1'].includes(r.id));
          return sent.every((r) => r.status === 'succeeded') ? rows : undefined;
        });
        assert.deepEqual(
          statuses.map((r) => [r.id, r.status, Number(r.held)]),
          [
            ['del_a0', 'succeeded', 0],
            ['del_a1', 'succeeded', 0],
            ['del_a2', 'succeeded', 0],
            ['del_a3', 'succeeded', 0],
            ['del_b1', 'succeeded', 0],
            ['del_b2', 'pending', 0],
            ['del_off', 'pending', 1],
          ],
        );
        assert.deepEqual(rx.received.map((r) => r.path).sort(), ['/wh_a', '/wh_a', '/wh_a', '/wh_b']);
        assert.equal(await repo.nextDue(db, now, []), now + HOUR, 'the retry waits for its time');
      } finally {
        await upgraded.close();
      }
    });
  });
}
