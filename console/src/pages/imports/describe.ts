import type { ImportSettings } from '../../api/mutations.js';
import { formatNumber, plural } from '../../format.js';
import type { Import } from '../../types.js';

/** The Imports page's words: its settings' labels, and what an import did or is doing, in sentences. */

export type ImportResource = ImportSettings['resource'];
export type Mode = ImportSettings['mode'];
export type OnError = ImportSettings['onError'];

export const RESOURCE_LABELS: Record<ImportResource, string> = {
  products: 'Products',
  customers: 'Customers',
};
export const MODE_LABELS: Record<Mode, string> = {
  upsert: 'Create or update',
  create: 'Create only',
};
export const ON_ERROR_LABELS: Record<OnError, string> = {
  abort: 'Import nothing',
  skip: 'Skip those rows',
};
export const FORMAT_LABELS: Record<string, string> = {
  csv: 'CSV',
  jsonl: 'JSON Lines',
  shopify: 'Shopify CSV',
  woocommerce: 'WooCommerce CSV',
};

export function isFinished(job: Import): boolean {
  return job.status === 'succeeded' || job.status === 'failed';
}

/** "1.2 MB", "820 bytes". */
export function fileSize(bytes: number): string {
  if (bytes < 1000) return plural(bytes, 'byte');
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** What a match is, for the mode's explanation. */
export function matchedBy(resource: string): string {
  return resource === 'products' ? 'a product by the SKUs of its variants' : 'a customer by email';
}

/** An import's settings in a line: "Products · Create or update · rows with errors: Skip those rows". */
export function settingsLine(job: Import): string {
  return [
    RESOURCE_LABELS[job.resource] ?? job.resource,
    FORMAT_LABELS[job.format] ?? job.format,
    MODE_LABELS[job.mode] ?? job.mode,
    `rows with errors: ${(ON_ERROR_LABELS[job.on_error] ?? job.on_error).toLowerCase()}`,
  ].join(' · ');
}

/** What a finished import (or check) came to, in a sentence. */
export function outcome(job: Import): string {
  const rows = plural(job.rows_total, 'row');
  const errors = plural(job.error_count, 'error');
  if (job.dry_run) {
    if (job.status === 'succeeded' && job.error_count === 0) {
      return `The file is ready to import: ${rows} checked, no errors. Nothing was written.`;
    }
    if (job.status === 'succeeded') {
      return `${rows} checked, ${errors}. Imported with “Skip those rows”, the rows with errors would be left out and the others imported. Nothing was written.`;
    }
    if (job.on_error === 'abort' && job.rows_total > 0) {
      return `${rows} checked, ${errors}. Imported as it is, with “Import nothing”, this file would import nothing: fix the errors, or choose “Skip those rows”. Nothing was written.`;
    }
    return `This file cannot be imported: ${errors}. Nothing was written.`;
  }
  if (job.status === 'succeeded') {
    return job.error_count === 0
      ? `Imported ${rows}.`
      : `Imported ${rows}, with ${errors}: the rows with errors were skipped.`;
  }
  if (job.on_error === 'abort') return `The import failed with ${errors}: nothing was written.`;
  return `The import stopped early with ${errors}: the counts say what was written before it stopped.`;
}

/** While it runs: what the import is doing now. */
export function activity(job: Import): string {
  if (job.status === 'queued') return 'Waiting to start…';
  if (job.dry_run) return `Checking the file… ${plural(job.rows_processed, 'row')} checked`;
  if (job.rows_processed === 0)
    return `Checking the rows before writing… ${plural(job.rows_total, 'row')} read`;
  return `Importing… ${formatNumber(job.rows_processed)} of ${plural(job.rows_total, 'row')}`;
}
