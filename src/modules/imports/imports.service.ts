import fs from 'node:fs';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { type Envelope, envelope, newestFirstEnvelope, pageWindow } from '../../lib/paging.js';
import { presentError, presentImport } from './imports.presenter.js';
import * as repo from './imports.repository.js';
import type { ImportErrorObject, ImportListQuery, ImportObject, ImportSettings } from './imports.schemas.js';
import type { Upload } from './imports.upload.js';

/**
 * Imports as the API shows them: one created from an uploaded file (queued for a runner,
 * imports.runner.ts), read with its first errors, listed, and its errors paged.
 */

/** The pieces an uploaded file is stored in. */
export const CHUNK_BYTES = 1024 * 1024;

export type ImportService = ReturnType<typeof createImportService>;

export function createImportService(deps: {
  store: Store;
  clock: Clock;
  /** Tells this process's runner that an import is waiting. */
  wake: () => void;
}) {
  const { store, clock } = deps;

  async function find(tenantId: string, id: string): Promise<repo.ImportRow> {
    const row = await repo.findImport(store.db, tenantId, id);
    if (!row) throw notFound('import');
    return row;
  }

  async function get(tenantId: string, id: string): Promise<ImportObject> {
    const row = await find(tenantId, id);
    return presentImport(row, await repo.firstErrors(store.db, [row.id]));
  }

  return {
    get,

    /**
     * Stores the uploaded file (in pieces, in the store, so that any process can run the import)
     * and queues the import, in one transaction. A retry with the Idempotency-Key of one that
     * committed answers that import.
     */
    async create(
      tenantId: string,
      settings: ImportSettings,
      upload: Upload,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ImportObject> {
      if (idempotent.committed !== null) return get(tenantId, idempotent.committed);
      const id = newId('imp');
      const now = clock.now();
      await store.transaction(async (trx) => {
        let seq = 0;
        const file = fs.createReadStream(upload.file, { highWaterMark: CHUNK_BYTES });
        for await (const chunk of file) {
          await repo.insertChunk(trx, id, seq, chunk as Buffer);
          seq += 1;
        }
        await repo.insertImport(trx, {
          id,
          tenant_id: tenantId,
          resource: settings.resource,
          format: upload.format,
          mode: settings.mode,
          dry_run: settings.dry_run ? 1 : 0,
          on_error: settings.on_error,
          status: 'queued',
          phase: 'validate',
          position: 0,
          rows_total: 0,
          rows_processed: 0,
          created_count: 0,
          updated_count: 0,
          unchanged_count: 0,
          error_count: 0,
          byte_size: upload.bytes,
          chunk_count: seq,
          claimed_by: null,
          lease_until: null,
          attempts: 0,
          created: now,
          updated: now,
          started_at: null,
          finished_at: null,
          ignored_columns: JSON.stringify(upload.ignoredColumns),
          filename: upload.filename,
        });
        await idempotent.mark(trx, id);
        // Runners in other processes hear of it at once (PostgreSQL), this process's directly.
        await store.notify(trx, 'imports', id);
        store.afterCommit(trx, deps.wake);
      });
      return get(tenantId, id);
    },

    async list(tenantId: string, query: ImportListQuery): Promise<Envelope<ImportObject>> {
      const window = pageWindow(query, 'created');
      const [rows, total] = await Promise.all([
        repo.listImports(store.db, tenantId, window),
        repo.countImports(store.db, tenantId),
      ]);
      const shown = rows.slice(0, window.limit);
      const errors = await repo.firstErrors(
        store.db,
        shown.map((row) => row.id),
      );
      return newestFirstEnvelope(rows, total, window, (row) =>
        presentImport(
          row,
          errors.filter((error) => error.import_id === row.id),
        ),
      );
    },

    /** Every error of an import in the order found; `total` is its `error_count`. */
    async errors(tenantId: string, id: string, query: ImportListQuery): Promise<Envelope<ImportErrorObject>> {
      const row = await find(tenantId, id);
      const window = pageWindow(query, 'seq');
      const rows = await repo.listErrors(store.db, row.id, window);
      return envelope(
        rows,
        row.error_count,
        window,
        'seq',
        (error) => [Number(error.seq), String(error.seq)],
        presentError,
      );
    },
  };
}
