import { iso } from '../../lib/clock.js';
import type { ImportErrorRow, ImportRow } from './imports.repository.js';
import type { ImportErrorObject, ImportObject } from './imports.schemas.js';

/** Rows to API shapes: an import with its first errors, and one error. */

export function presentError(row: ImportErrorRow): ImportErrorObject {
  return { line: Number(row.line), column: row.column_name, message: row.message };
}

export function presentImport(row: ImportRow, errors: readonly ImportErrorRow[]): ImportObject {
  return {
    id: row.id,
    resource: row.resource,
    format: row.format,
    mode: row.mode,
    dry_run: row.dry_run === 1,
    on_error: row.on_error,
    status: row.status,
    rows_total: row.rows_total,
    rows_processed: row.rows_processed,
    created_count: row.created_count,
    updated_count: row.updated_count,
    unchanged_count: row.unchanged_count,
    error_count: row.error_count,
    errors: errors.map(presentError),
    ignored_columns: JSON.parse(row.ignored_columns) as string[],
    filename: row.filename,
    created: iso(row.created),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}
