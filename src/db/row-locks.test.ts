import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { withoutRowLocks } from './row-locks.js';
import type { Database } from './schema.js';

function compiler(dialect: 'sqlite' | 'postgres', plugins = [withoutRowLocks]) {
  const [Adapter, Introspector, QueryCompiler] =
    dialect === 'sqlite'
      ? [SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler]
      : [PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler];
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new Adapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new Introspector(db),
      createQueryCompiler: () => new QueryCompiler(),
    },
    plugins,
  });
}

describe('row locks', () => {
  const locked = (db: Kysely<Database>) =>
    db.selectFrom('orders').select('id').where('id', '=', 'ord_1').forUpdate().skipLocked().compile().sql;

  it('leaves no lock clause in a SQLite statement, and the rest of it as it was', () => {
    assert.equal(locked(compiler('sqlite')), 'select "id" from "orders" where "id" = ?');
    const distinct = compiler('sqlite')
      .selectFrom('orders')
      .select('id')
      .distinct()
      .forUpdate()
      .compile().sql;
    assert.equal(distinct, 'select distinct "id" from "orders"');
  });

  it('keeps the lock on PostgreSQL, which takes it', () => {
    assert.equal(
      locked(compiler('postgres', [])),
      'select "id" from "orders" where "id" = $1 for update skip locked',
    );
  });

  it('passes other statements through untouched', () => {
    const db = compiler('sqlite');
    const query = db.updateTable('orders').set({ status: 'paid' }).where('id', '=', 'ord_1').compile();
    assert.equal(query.sql, 'update "orders" set "status" = ? where "id" = ?');
  });
});
