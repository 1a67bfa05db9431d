import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { runAdmin } from '../../cli/admin.js';
import { foldListCounts } from '../../db/list-counts.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Problem } from '../../../test/helpers/responses.js';
import { statementsOf } from '../../../test/helpers/statements.js';
import { runAsActor } from './audit.context.js';
import { entryId } from './audit.recorder.js';
import { listEntries } from './audit.repository.js';
import type { AuditEntry } from './audit.service.js';

interface Page {
  data: AuditEntry[];
  total: number;
  has_more: boolean;
  next_cursor: string | null;
}

for (const dialect of DIALECTS) {
  describe(`audit log (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function store(): Promise<{
      api: Client;
      key: string;
      tenantId: string;
      keyId: string;
      keyName: string;
    }> {
      const created = await createTenant(ctx);
      return {
        key: created.apiKey.key as string,
        api: client(ctx.app, created.apiKey.key as string),
        tenantId: created.tenant.id,
        keyId: created.apiKey.id,
        keyName: created.apiKey.name,
      };
    }

    async function product(api: Client, body: Record<string, unknown> = { name: 'Mug', price: 1200 }) {
      const res = await api<{ id: string }>('POST', '/v1/products', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id;
    }

    it('records a change with who made it, from which request and address, and what changed', async () => {
      const { api, key, keyId, keyName, tenantId } = await store();
      const id = await product(api);
      const patch = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/products/${id}`,
        headers: { authorization: `Bearer ${key}` },
        payload: { price: 1500, name: 'Big mug' },
        remoteAddress: '203.0.113.9',
      });
      assert.equal(patch.statusCode, 200, patch.body);
      // Written with the change, unsealed: listed already, its hash (and its diff, worked out from
      // the entry before it) once the sealer has chained it.
      const unsealed = await api<Page>('GET', `/v1/audit-log?resource_id=${id}`);
      assert.deepEqual(
        unsealed.body.data.map((e) => [e.action, e.hash, e.changes === null]),
        [
          ['product.updated', null, true],
          ['product.created', null, false],
        ],
      );
      assert.equal(await ctx.deps.auditSealer.seal(tenantId), 2);
      const log = await api<Page>('GET', `/v1/audit-log?resource_id=${id}`);
      assert.equal(log.status, 200, JSON.stringify(log.body));
      assert.equal(log.body.total, 2);
      const [updated, created] = log.body.data;
      assert.equal(created?.action, 'product.created');
      assert.deepEqual(created?.changes?.price, { from: null, to: 1200 });
      assert.equal(updated?.action, 'product.updated');
      assert.deepEqual(updated?.resource, { type: 'product', id });
      assert.deepEqual(updated?.changes?.price, { from: 1200, to: 1500 });
      assert.deepEqual(updated?.changes?.name, { from: 'Mug', to: 'Big mug' });
      // Changed fields only.
      assert.equal(updated?.changes?.description, undefined);
      assert.deepEqual(updated?.actor, { type: 'api_key', id: keyId, name: keyName });
      assert.equal(updated?.request_id, patch.headers['x-request-id']);
      assert.equal(updated?.ip, '203.0.113.9');
      assert.equal(updated?.livemode, true);
      assert.match(updated?.hash ?? '', /^[0-9a-f]{64}$/);
    });

    it('lists newest first with filters and cursor pages, and needs read:audit', async () => {
      const { api, tenantId } = await store();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await product(api, { name: `P${i}`, price: 100 + i }));
      const first = await api<Page>('GET', '/v1/audit-log?limit=2&action=product.created');
      assert.equal(first.body.total, 5);
      assert.deepEqual(
        first.body.data.map((e) => e.resource.id),
        [ids[4], ids[3]],
      );
      const second = await api<Page>(
        'GET',
        `/v1/audit-log?limit=2&action=product.created&cursor=${first.body.next_cursor}`,
      );
      assert.deepEqual(
        second.body.data.map((e) => e.resource.id),
        [ids[2], ids[1]],
      );
      const all = await api<Page>('GET', '/v1/audit-log?limit=100');
      assert.equal(all.body.total, all.body.data.length);
      const future = await api<Page>('GET', '/v1/audit-log?from=2999-01-01T00:00:00Z');
      assert.deepEqual([future.body.total, future.body.data.length], [0, 0]);
      const bad = await api<Problem>(
        'GET',
        '/v1/audit-log?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      );
      assert.equal(bad.status, 400);
      assert.deepEqual(
        bad.body.errors?.map((e) => e.field),
        ['from'],
      );
      // Another tenant sees none of it.
      const other = await store();
      assert.equal((await other.api<Page>('GET', '/v1/audit-log')).body.total, 0);
      // A key without read:audit is refused.
      const narrow = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'catalog', permissions: ['read:products'] },
      });
      const refused = await client(ctx.app, narrow.body.key)<Problem>('GET', '/v1/audit-log');
      assert.equal(refused.status, 403);
      assert.ok(tenantId);
    });

    it('answers totals by action or actor alone from kept counts, exact before, during and after sealing', async () => {
      const { api, tenantId, keyId } = await store();
      const other = await store();
      const totals = async () => {
        const byAction = await api<Page>('GET', '/v1/audit-log?action=product.created&limit=1');
        const byActor = await api<Page>('GET', `/v1/audit-log?actor_id=${keyId}&limit=1`);
        return [byAction.body.total, byActor.body.total];
      };
      /** What counting the rows answers: the kept counts must agree with it. */
      const counted = async () => {
        const db = ctx.deps.store.db;
        const n = async (column: 'action' | 'actor_id', value: string) =>
          Number(
            (
              await db
                .selectFrom('audit_entries')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('tenant_id', '=', tenantId)
                .where(column, '=', value)
                .executeTakeFirstOrThrow()
            ).n,
          );
        return [await n('action', 'product.created'), await n('actor_id', keyId)];
      };
      for (let i = 0; i < 3; i++) await product(api, { name: `A${i}`, price: 100 + i });
      await product(other.api);
      assert.deepEqual(await totals(), [3, 3], 'unsealed: counted on their own index');
      await ctx.deps.auditSealer.seal(tenantId);
      assert.deepEqual(await totals(), [3, 3], 'sealed: from the kept counts');
      const id = await product(api, { name: 'B', price: 5 });
      await api('PATCH', `/v1/products/${id}`, { body: { price: 6 } });
      assert.deepEqual(await totals(), [4, 5], 'sealed and unsealed together');
      await ctx.deps.auditSealer.seal();
      while ((await foldListCounts(ctx.deps.store, 100)) > 0);
      assert.deepEqual(await totals(), [4, 5], 'folded');
      assert.deepEqual(await totals(), await counted());
      // Together with another filter, the rows are counted.
      const both = await api<Page>('GET', `/v1/audit-log?action=product.updated&actor_id=${keyId}`);
      assert.equal(both.body.total, 1);
    });

    it('reads a page in one statement, so an entry sealed while it is read is listed once', async () => {
      const { api, tenantId } = await store();
      for (let i = 0; i < 3; i++) await product(api, { name: `S${i}`, price: 100 + i });
      await ctx.deps.auditSealer.seal(tenantId);
      for (let i = 0; i < 3; i++) await product(api, { name: `U${i}`, price: 200 + i });
      const db = ctx.deps.store.db;
      const page = { limit: 4, offset: 1, before: undefined };
      // Sealed and unsealed entries in one page: one statement, one snapshot of the log. Read in
      // two, the sealer could chain an entry between them, and the page would hold it twice.
      let rows: Awaited<ReturnType<typeof listEntries>> = [];
      const sent = await statementsOf(ctx, async () => {
        rows = await listEntries(db, tenantId, {}, page);
      });
      assert.equal(sent.length, 1, sent.join('\n'));
      const names = rows.map((row) => (JSON.parse(row.snapshot ?? '{}') as { name?: string }).name);
      assert.deepEqual(names, ['U1', 'U0', 'S2', 'S1', 'S0']);
      assert.deepEqual(
        rows.map((row) => row.seq === null),
        [true, true, false, false, false],
      );
      // Sealed meanwhile: the same page.
      await ctx.deps.auditSealer.seal(tenantId);
      const again = await listEntries(db, tenantId, {}, page);
      assert.deepEqual(
        again.map((row) => row.id),
        rows.map((row) => row.id),
      );
    });

    it('shows livemode from 2027-01-20 only: an older version sees entries as it sees every object', async () => {
      const { api } = await store();
      await product(api);
      const latest = await api<Page>('GET', '/v1/audit-log', {
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.equal(latest.body.data[0]?.livemode, true);
      for (const version of ['2026-11-21', '2026-12-15']) {
        const older = await api<Page>('GET', '/v1/audit-log', { headers: { 'x-service-version': version } });
        assert.equal(older.status, 200);
        assert.ok(older.body.data.length > 0);
        for (const entry of older.body.data)
          assert.ok(!('livemode' in entry), `${version}: ${JSON.stringify(entry)}`);
        assert.equal(older.body.data[0]?.action, 'product.created');
      }
    });

    it('keeps card numbers and secrets out of changes', async () => {
      const { api, tenantId } = await store();
      const id = await product(api);
      await api('PATCH', `/v1/products/${id}`, { body: { description: 'pay with 4242 4242 4242 4242 now' } });
      await ctx.deps.auditSealer.seal(tenantId);
      const log = await api<Page>('GET', `/v1/audit-log?resource_id=${id}&action=product.updated`);
      const text = JSON.stringify(log.body.data);
      assert.doesNotMatch(text, /4242 4242 4242 4242/);
      assert.match(text, /\[redacted\]/);
    });

    it('names the operator for a CLI change and the system outside any request', async () => {
      const { api, tenantId } = await store();
      const id = await product(api);
      await runAsActor({ type: 'operator', id: 'ops', name: 'ops@host' }, () =>
        ctx.deps.products.update(tenantId, id, { price: 999 }),
      );
      await ctx.deps.products.update(tenantId, id, { price: 998 });
      await ctx.deps.auditSealer.seal(tenantId);
      const log = await api<Page>('GET', `/v1/audit-log?resource_id=${id}&action=product.updated`);
      assert.deepEqual(
        log.body.data.map((e) => [e.actor.type, e.changes?.price?.to]),
        [
          ['system', 998],
          ['operator', 999],
        ],
      );
      const byOperator = await api<Page>('GET', '/v1/audit-log?actor_id=ops');
      assert.equal(byOperator.body.total, 1);
    });

    it('chains entries under concurrent writers, and audit:verify finds a broken link', async () => {
      const { api, tenantId } = await store();
      const ids = await Promise.all(
        Array.from({ length: 4 }, (_, i) => product(api, { name: `C${i}`, price: 10 })),
      );
      await Promise.all(
        ids.flatMap((id) =>
          [1, 2, 3].map((n) => api('PATCH', `/v1/products/${id}`, { body: { price: 10 + n } })),
        ),
      );
      const ok = await runAdmin(['audit:verify', '--tenant', tenantId, '--json'], ctx.config);
      assert.equal(ok.code, 0, ok.stderr);
      const report = JSON.parse(ok.stdout) as { ok: boolean; checked: number };
      assert.deepEqual([report.ok, report.checked], [true, 16]);
      const { rows } = await sql<{
        seq: number | string;
      }>`SELECT seq FROM audit_entries WHERE tenant_id = ${tenantId} ORDER BY seq`.execute(ctx.deps.store.db);
      assert.deepEqual(
        rows.map((r) => Number(r.seq)),
        Array.from({ length: 16 }, (_, i) => i + 1),
      );
      // Someone edits an entry in the store: the chain no longer holds from it on.
      await sql`UPDATE audit_entries SET changes = '{}' WHERE tenant_id = ${tenantId} AND seq = 7`.execute(
        ctx.deps.store.db,
      );
      const broken = await runAdmin(['audit:verify', '--tenant', tenantId], ctx.config);
      assert.equal(broken.code, 1);
      assert.match(broken.stdout, /BROKEN at entry 7/);
    });

    it('writes no entry for a change that rolls back, and two changes of one object in one transaction diff in turn', async () => {
      const { api, tenantId } = await store();
      const id = await product(api);
      await assert.rejects(
        ctx.deps.store.transaction(async (trx) => {
          await ctx.deps.audit.record(trx, {
            tenantId,
            action: 'product.updated',
            resource: { type: 'product', id },
            before: { price: 1200 },
            after: { price: 1 },
          });
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await ctx.deps.store.transaction(async (trx) => {
        // No `before`: each is diffed against the state the one before it left.
        for (const price of [1300, 1400]) {
          await ctx.deps.audit.record(trx, {
            tenantId,
            action: 'product.updated',
            resource: { type: 'product', id },
            after: { id, price },
          });
        }
      });
      await ctx.deps.auditSealer.seal(tenantId);
      const log = await api<Page>('GET', `/v1/audit-log?resource_id=${id}&action=product.updated`);
      assert.deepEqual(
        log.body.data.map((e) => e.changes?.price),
        [
          { from: 1300, to: 1400 },
          { from: 1200, to: 1300 },
        ],
      );
      assert.equal((await ctx.deps.auditLog.verify(tenantId)).ok, true);
    });

    it('notices a deleted last entry through the chain head', async () => {
      const { api, tenantId } = await store();
      await product(api);
      await product(api);
      await ctx.deps.auditSealer.seal(tenantId);
      await sql`DELETE FROM audit_entries WHERE tenant_id = ${tenantId} AND seq = 2`.execute(
        ctx.deps.store.db,
      );
      const report = await ctx.deps.auditLog.verify(tenantId);
      assert.equal(report.ok, false);
      assert.equal(report.broken?.seq, 2);
    });

    it('exports the log as CSV and JSON Lines, oldest first', async () => {
      const { api, key } = await store();
      const a = await product(api, { name: '=SUM(A1)', price: 1 });
      const b = await product(api, { name: 'B', price: 2 });
      const jsonl = await ctx.app.inject({
        method: 'GET',
        url: '/v1/exports/audit-log?format=jsonl',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(jsonl.statusCode, 200);
      const lines = jsonl.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as AuditEntry);
      assert.deepEqual(
        lines.map((e) => e.resource.id),
        [a, b],
      );
      const csv = await api<string>('GET', '/v1/exports/audit-log');
      assert.equal(csv.status, 200);
      assert.match(String(csv.headers['content-type']), /text\/csv/);
      const rows = csv.raw.body.trim().split('\r\n');
      assert.equal(rows.length, 3);
      assert.match(rows[0] ?? '', /^id,time,actor_type/);
    });

    it('exports entries as the caller’s version shows them: no livemode before 2027-01-20', async () => {
      const pinned = await createTenant(ctx, { apiVersion: '2026-12-15' });
      const api = client(ctx.app, pinned.apiKey.key as string);
      await product(api, { name: 'Old', price: 1 });
      const listed = await api<Page>('GET', '/v1/audit-log');
      assert.equal(listed.headers['x-service-version'], '2026-12-15');
      const jsonl = await api<string>('GET', '/v1/exports/audit-log?format=jsonl');
      assert.equal(jsonl.status, 200);
      const [entry] = jsonl.raw.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.ok(entry && !('livemode' in entry), JSON.stringify(entry));
      // The export's entry is the list's, sealed (the export seals first).
      const [first] = (await api<Page>('GET', '/v1/audit-log')).body.data;
      assert.deepEqual(entry, first);
      const csv = await api<string>('GET', '/v1/exports/audit-log?format=csv');
      const [header, row] = csv.raw.body.trim().split('\r\n');
      assert.equal(
        header,
        'id,time,actor_type,actor_id,actor_name,action,resource_type,resource_id,changes,request_id,ip,hash',
      );
      assert.equal(row?.split(',')[0], entry.id);
      // The latest version still has it, in both formats.
      const latest = { 'x-service-version': '2027-01-20' };
      const now = await api<string>('GET', '/v1/exports/audit-log?format=jsonl', { headers: latest });
      assert.equal((JSON.parse(now.raw.body.trim()) as { livemode?: boolean }).livemode, true);
      const nowCsv = await api<string>('GET', '/v1/exports/audit-log', { headers: latest });
      assert.match(nowCsv.raw.body, /^id,time,actor_type,.*,livemode,hash\r\n/);
    });
  });
}

describe('entry ids', () => {
  it('sort in the order they were made, each with its own random tail, past the random pool', () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 600 }, () => entryId(now));
    assert.ok(ids.every((id) => /^aud_[0-9a-z]{24}$/.test(id)));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids.map((id) => id.slice(-11))).size, ids.length);
  });
});
