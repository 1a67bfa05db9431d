/** Table types of bulk imports (see schema.ts). */

export type ImportResource = 'products' | 'customers';
/**
 * `shopify` and `woocommerce` are CSVs whose header is Shopify's or WooCommerce's product export,
 * recognised at upload.
 */
export type ImportFormat = 'csv' | 'jsonl' | 'shopify' | 'woocommerce';
export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';
/** `validate` reads the whole file first (errors, counts); `write` then commits it in batches. */
export type ImportPhase = 'validate' | 'write' | 'done';

/**
 * A bulk import (migration 0025). Runners claim it with a lease (`claimed_by`, `lease_until`) and
 * commit each batch together with `position`, the data rows of the file the current phase has
 * finished, so a run that stops resumes after its last committed batch and writes no row twice.
 */
export interface ImportsTable {
  id: string;
  tenant_id: string;
  resource: ImportResource;
  format: ImportFormat;
  mode: 'upsert' | 'create';
  dry_run: number;
  on_error: 'abort' | 'skip';
  status: ImportStatus;
  phase: ImportPhase;
  position: number;
  rows_total: number;
  rows_processed: number;
  created_count: number;
  updated_count: number;
  unchanged_count: number;
  error_count: number;
  /** The uploaded file: its size, and how many `import_chunks` rows hold it (gone once finished). */
  byte_size: number;
  chunk_count: number;
  claimed_by: string | null;
  lease_until: number | null;
  /** Claims so far: a file that stops every runner that takes it fails after a few. */
  attempts: number;
  created: number;
  updated: number;
  started_at: number | null;
  finished_at: number | null;
  /** A JSON array of the file's columns the import does not use (migration 0046). */
  ignored_columns: string;
  /** The uploaded file's name, as its `Content-Disposition` gave it (migration 0060); null when none was. */
  filename: string | null;
}

/** One error of an import, numbered in the order found (`seq`, from 0). */
export interface ImportErrorsTable {
  import_id: string;
  seq: number;
  tenant_id: string;
  /** The file line (1-based, the CSV header is line 1). */
  line: number;
  /** The column as the file names it, or null for the whole row. */
  column_name: string | null;
  message: string;
}

/** The uploaded file, in order, in pieces of at most 1 MiB: any process can read it. */
export interface ImportChunksTable {
  import_id: string;
  seq: number;
  data: Buffer;
}
