import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Db } from '../../db/store.js';
import type { ImportObject } from './imports.schemas.js';

const T0 = Date.parse('2027-01-12T08:00:00.000Z');

/** A store of the release before migration 0060: a tenant with two imports, one with an error. */
async function writeOldStore(db: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_old', 'Old Store', 'pro', 'EUR', '2027-01-20', ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_old', 'ten_old', 'owner@old.example', 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(db);
  for (const [index, [id, format, ignored, errors]] of [
    ['imp_OLDOLDOLDOLDOLDOLDOLDOLD1', 'shopify', '["Gift Card"]', 0],
    ['imp_OLDOLDOLDOLDOLDOLDOLDOLD2', 'csv', '[]', 1],
  ].entries()) {
    await sql`INSERT INTO imports (id, tenant_id, resource, format, mode, dry_run, on_error, status, phase, position,
        rows_total, rows_processed, created_count, updated_count, unchanged_count, error_count, byte_size,
        chunk_count, claimed_by, lease_until, attempts, created, updated, started_at, finished_at, ignored_columns)
      VALUES (${id}, 'ten_old', 'products', ${format}, 'upsert', 0, 'skip', 'succeeded', 'done', 0, 3, 3, 2, 0, 0,
        ${errors}, 120, 0, NULL, NULL, 1, ${T0 + index}, ${T0 + index}, ${T0 + index}, ${T0 + index + 50},
        ${ignored})`.execute(db);
  }
  await sql`INSERT INTO import_errors (import_id, seq, tenant_id, line, column_name, message)
    VALUES ('imp_OLDOLDOLDOLDOLDOLDOLDOLD2', 0, 'ten_old', 3, 'price', 'must be a whole number')`.execute(db);
}

for (const dialect of DIALECTS) {
  describe(`migration 0060: import file names on a store holding imports (${dialect})`, () => {
    it('shows the old imports as they were, named null, and keeps the names of new ones', async () => {
      const upgraded = await upgradeFrom(dialect, '0059_audit_content_digest', writeOldStore);
      try {
        const api = await upgraded.clientFor('ten_old', 'usr_old');
        const list = await api<Page<ImportObject>>('GET', '/v1/imports');
        assert.equal(list.status, 200, JSON.stringify(list.body));
        assert.deepEqual(
          list.body.data.map((row) => [
            row.id,
            row.format,
            row.ignored_columns,
            row.error_count,
            row.filename,
          ]),
          [
            ['imp_OLDOLDOLDOLDOLDOLDOLDOLD2', 'csv', [], 1, null],
            ['imp_OLDOLDOLDOLDOLDOLDOLDOLD1', 'shopify', ['Gift Card'], 0, null],
          ],
        );
        const old = await api<ImportObject>('GET', '/v1/imports/imp_OLDOLDOLDOLDOLDOLDOLDOLD2');
        assert.deepEqual(old.body.errors, [{ line: 3, column: 'price', message: 'must be a whole number' }]);
        assert.equal(old.body.filename, null);

        const sent = await api<ImportObject>('POST', '/v1/imports?resource=customers', {
          payload: 'email,name\nnew@example.com,New\n',
          headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="new.csv"' },
        });
        assert.equal(sent.status, 202, JSON.stringify(sent.body));
        await upgraded.deps.importRunner.drain();
        const done = await api<ImportObject>('GET', `/v1/imports/${sent.body.id}`);
        assert.deepEqual([done.body.status, done.body.filename], ['succeeded', 'new.csv']);
        const stored = await upgraded.deps.store.db
          .selectFrom('imports')
          .select(['id', 'filename'])
          .execute();
        assert.deepEqual(Object.fromEntries(stored.map((row) => [row.id, row.filename])), {
          imp_OLDOLDOLDOLDOLDOLDOLDOLD1: null,
          imp_OLDOLDOLDOLDOLDOLDOLDOLD2: null,
          [sent.body.id]: 'new.csv',
        });
      } finally {
        await upgraded.close();
      }
    });
  });
}
