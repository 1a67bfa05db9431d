import { isShopifyHeader, shopifyIgnoredColumns } from './imports.shopify.js';
import { isWooCommerceHeader, wooIgnoredColumns } from './imports.woocommerce.js';

/**
 * What a products CSV is, told by its header at upload: our own columns, a Shopify export (any of
 * its layouts) or a WooCommerce export; and the columns of the file the import will not use.
 */

export type CsvFormat = 'csv' | 'shopify' | 'woocommerce';

export function productCsvFormat(columns: readonly string[]): CsvFormat {
  if (isShopifyHeader(columns)) return 'shopify';
  if (isWooCommerceHeader(columns)) return 'woocommerce';
  return 'csv';
}

/**
 * The columns of another platform's file that nothing is read from (our own files have none: a
 * column we do not know is an error there).
 */
export function ignoredColumns(format: string, columns: readonly string[]): string[] {
  if (format === 'shopify') return shopifyIgnoredColumns(columns);
  if (format === 'woocommerce') return wooIgnoredColumns(columns);
  return [];
}
