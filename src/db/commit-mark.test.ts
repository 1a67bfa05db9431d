import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { COMMIT_MARK_BYTES, type CommitMarks, commitCount, commitMarks } from './commit-mark.js';

describe('SQLite commit marks', () => {
  let dir: string;
  let ours: SqliteDatabase.Database;
  let theirs: SqliteDatabase.Database;
  let marks: CommitMarks;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-marks-'));
    const file = path.join(dir, 'store.sqlite');
    ours = new SqliteDatabase(file);
    ours.pragma('journal_mode = WAL');
    ours.exec('CREATE TABLE t (x INTEGER)');
    // Another connection: another process's, as far as SQLite's locking is concerned.
    theirs = new SqliteDatabase(file);
    marks = commitMarks(file);
  });
  after(() => {
    marks.close();
    theirs.close();
    ours.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function mark(): string {
    const into = Buffer.alloc(COMMIT_MARK_BYTES);
    marks.read(into);
    return into.toString('hex');
  }

  it('stays as it is across reads and rolled-back transactions', () => {
    const before = mark();
    theirs.prepare('SELECT count(*) FROM t').get();
    ours.prepare('SELECT count(*) FROM t').get();
    ours.exec('BEGIN IMMEDIATE');
    ours.prepare('INSERT INTO t VALUES (1)').run();
    assert.equal(mark(), before, 'a transaction not yet committed');
    ours.exec('ROLLBACK');
    assert.equal(mark(), before);
  });

  it('moves with every commit, of this connection or another, whatever it wrote', () => {
    let last = mark();
    for (let i = 0; i < 200; i++) {
      // The same row rewritten to the same size: only the transaction counter tells them apart.
      const writer = i % 2 === 0 ? ours : theirs;
      writer.prepare('INSERT OR REPLACE INTO t (rowid, x) VALUES (1, ?)').run(i % 2);
      const now = mark();
      assert.notEqual(now, last, `commit ${i} by ${writer === ours ? 'this' : 'the other'} connection`);
      last = now;
    }
  });

  it('moves when the WAL starts over after a checkpoint', () => {
    const before = mark();
    ours.pragma('wal_checkpoint(TRUNCATE)');
    theirs.prepare('INSERT INTO t VALUES (2)').run();
    assert.notEqual(mark(), before);
  });

  it('counts commits with one read for the calls made together, each read after its call', async () => {
    let reads = 0;
    const counted = commitCount({
      read(into) {
        reads += 1;
        marks.read(into);
      },
      close() {},
    });
    const countAfter = () => new Promise<number>((resolve) => counted.after(resolve));
    const first = await countAfter();
    assert.equal(await countAfter(), first, 'nothing committed');
    // Calls made together share a read, made after the last of them.
    reads = 0;
    const together = [countAfter(), countAfter()];
    theirs.prepare('INSERT INTO t VALUES (3)').run();
    const third = countAfter();
    assert.deepEqual(await Promise.all([...together, third]), [first + 1, first + 1, first + 1]);
    assert.equal(reads, 1);
    // A commit after the read is seen by the next call.
    ours.prepare('INSERT INTO t VALUES (4)').run();
    assert.equal(await countAfter(), first + 2);
    assert.equal(await countAfter(), first + 2);
  });
});
