import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { DIALECTS, freshStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { sqliteFile } from '../db/store.js';
import { startServer } from '../server.js';

function mode(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8);
}

/** Runs `fn` with the process umask at `mask` (0: files are created with exactly the mode asked). */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

describe('files in DATA_DIR', () => {
  for (const dialect of DIALECTS) {
    it(`are created for this user only, whatever the umask (${dialect})`, async () => {
      const fresh = await freshStore(dialect);
      // A DATA_DIR that does not exist yet, under a parent that does.
      const dataDir = path.join(fresh.dataDir, 'data');
      const server = await withUmask(0, () =>
        startServer(loadConfig({ ...fresh.env, DATA_DIR: dataDir, TLS: 'on', PORT: '0' })),
      );
      try {
        assert.equal(mode(dataDir), '700');
        assert.equal(mode(path.join(dataDir, 'tls')), '700');
        assert.equal(mode(path.join(dataDir, 'tls', 'key.pem')), '600');
        if (dialect === 'sqlite') {
          // While the store is open, SQLite keeps its write-ahead log and shared memory beside it.
          const file = sqliteFile(dataDir);
          for (const part of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(part), '600', part);
        }
      } finally {
        await server.shutdown();
        await fresh.drop();
      }
    });
  }

  it('made readable by others by an earlier version are made 0600, and an open DATA_DIR is warned of', async () => {
    const fresh = await freshStore('sqlite');
    const config = loadConfig({ ...fresh.env, TLS: 'on', PORT: '0' });
    try {
      const first = await startServer(config);
      await first.shutdown();
      const file = sqliteFile(fresh.dataDir);
      const key = path.join(fresh.dataDir, 'tls', 'key.pem');
      fs.chmodSync(fresh.dataDir, 0o755);
      fs.chmodSync(file, 0o644);
      fs.chmodSync(key, 0o644);

      const lines: string[] = [];
      const logger = pino(
        { level: 'warn' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString());
            done();
          },
        }),
      );
      const second = await startServer(config, { logger });
      try {
        assert.equal(mode(file), '600');
        assert.equal(mode(`${file}-wal`), '600');
        assert.equal(mode(key), '600');
        // The operator's directory keeps the mode they gave it, with a warning.
        assert.equal(mode(fresh.dataDir), '755');
        assert.ok(
          lines.some((line) => line.includes('DATA_DIR is open to other users')),
          lines.join(''),
        );
      } finally {
        await second.shutdown();
      }
    } finally {
      await fresh.drop();
    }
  });
});
