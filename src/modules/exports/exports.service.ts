import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Db, Store } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Address } from '../customers/index.js';
import { storeLocations } from '../inventory/index.js';
import { stockLevels } from '../products/index.js';
import {
  ADDRESS_FIELDS,
  type CellValue,
  CUSTOMER_COLUMNS,
  csvCell,
  ORDER_COLUMNS,
  PRODUCT_COLUMNS,
} from './exports.columns.js';
import * as repo from './exports.repository.js';

/**
 * Exports: every product (a row per variant), customer (a row per address) or order (a row per
 * line) of a tenant, as CSV or JSON Lines, streamed. Rows come from pages read a seek at a time
 * and are written as the client takes them, so memory stays flat whatever the table holds. The
 * columns are those an import reads (exports.columns.ts). CSV is RFC 4180 (CRLF), with text a
 * spreadsheet would run as a formula written with a leading `'`, as the analytics CSV is.
 */

export type ExportResource = 'products' | 'customers' | 'orders';
export type ExportFormat = 'csv' | 'jsonl';
type Row = Record<string, CellValue>;

/** Rows of a page read at once. */
const PAGE = 500;
/** Variants read at once, whole products at a time (one with more is read a page at a time). */
const VARIANTS_PER_READ = 1_000;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/** Units on hand by location id (null: the default location), per variant id. */
type OnHand = Map<string, Map<string | null, number>>;

/**
 * A variant's `stock_by_location`: units on hand by location name (names travel between stores,
 * ids do not), the default location's included, in the store's order.
 */
function byLocation(onHand: OnHand, variantId: string, locations: Locations): Record<string, number> {
  const levels = onHand.get(variantId) ?? new Map<string | null, number>();
  const out: Record<string, number> = {};
  for (const location of locations.list) {
    const units = levels.get(location.isDefault ? null : location.id);
    if (units !== undefined) out[location.name] ??= units;
  }
  return out;
}

/** The export's reads of stock per location: the store's locations, and the levels of each batch. */
interface Locations {
  tenantId: string;
  list: readonly { id: string; name: string; isDefault: boolean }[];
}

async function onHandOf(
  db: Db,
  locations: Locations,
  variants: readonly repo.ExportVariantRow[],
): Promise<OnHand> {
  return stockLevels.onHandByLocation(db, locations.tenantId, variants);
}

function variantRow(
  product: repo.ExportProductRow,
  variant: repo.ExportVariantRow,
  names: readonly string[],
  first: boolean,
  stockByLocation: Record<string, number>,
): Row {
  const values = JSON.parse(variant.options) as Record<string, string>;
  const option = (k: number) => {
    const name = names[k];
    return name === undefined ? null : (values[name] ?? null);
  };
  return {
    handle: product.handle,
    name: first ? product.name : null,
    description: first ? product.description : null,
    category: first ? product.category : null,
    status: first ? product.status : null,
    tags: first ? (JSON.parse(product.tags) as string[]) : null,
    currency: first ? product.currency : null,
    images: first ? (JSON.parse(product.images) as string[]) : null,
    image_alts: first ? (JSON.parse(product.image_alts) as Record<string, string>) : null,
    attributes: first ? (JSON.parse(product.attributes) as Record<string, string>) : null,
    seo_title: first ? product.seo_title : null,
    seo_description: first ? product.seo_description : null,
    option1_name: first ? (names[0] ?? null) : null,
    option1_value: option(0),
    option2_name: first ? (names[1] ?? null) : null,
    option2_value: option(1),
    option3_name: first ? (names[2] ?? null) : null,
    option3_value: option(2),
    sku: variant.sku,
    price: variant.price,
    compare_at_price: variant.compare_at_price,
    stock: variant.stock,
    stock_by_location: stockByLocation,
    weight_grams: variant.weight_grams,
    barcode: variant.barcode,
    image: variant.image,
    cost: variant.cost,
    requires_shipping: variant.requires_shipping === 1,
    taxable: variant.taxable === 1,
  };
}

/** The rows of a page of products: their variants read together, as many products as fit a read. */
async function* productPageRows(
  db: Db,
  products: repo.ExportProductRow[],
  locations: Locations,
): AsyncGenerator<Row> {
  let i = 0;
  while (i < products.length) {
    const head = products[i] as repo.ExportProductRow;
    const names = (JSON.parse(head.options) as { name: string }[]).map((option) => option.name);
    if (head.variant_count > VARIANTS_PER_READ) {
      let after = 0;
      for (;;) {
        const variants = await repo.variantsAfter(db, head.id, after, VARIANTS_PER_READ);
        const onHand = await onHandOf(db, locations, variants);
        for (const variant of variants)
          yield variantRow(
            head,
            variant,
            names,
            after === 0 && variant === variants[0],
            byLocation(onHand, variant.id, locations),
          );
        const last = variants[variants.length - 1];
        if (variants.length < VARIANTS_PER_READ || last === undefined) break;
        after = last.position;
      }
      i += 1;
      continue;
    }
    const batch: repo.ExportProductRow[] = [];
    let count = 0;
    while (i < products.length) {
      const next = products[i] as repo.ExportProductRow;
      if (
        next.variant_count > VARIANTS_PER_READ ||
        (batch.length > 0 && count + next.variant_count > VARIANTS_PER_READ)
      )
        break;
      batch.push(next);
      count += next.variant_count;
      i += 1;
    }
    const variants = await repo.variantsOf(
      db,
      batch.map((product) => product.id),
    );
    const onHand = await onHandOf(db, locations, variants);
    const byProduct = new Map<string, repo.ExportVariantRow[]>();
    for (const variant of variants) {
      const list = byProduct.get(variant.product_id) ?? [];
      list.push(variant);
      byProduct.set(variant.product_id, list);
    }
    for (const product of batch) {
      const own = (JSON.parse(product.options) as { name: string }[]).map((option) => option.name);
      const list = byProduct.get(product.id) ?? [];
      for (const [index, variant] of list.entries())
        yield variantRow(product, variant, own, index === 0, byLocation(onHand, variant.id, locations));
    }
  }
}

function customerRows(customer: repo.ExportCustomerRow): Row[] {
  const addresses = JSON.parse(customer.addresses) as Address[];
  const rows: Row[] = [];
  for (let index = 0; index < Math.max(1, addresses.length); index++) {
    const first = index === 0;
    const address = addresses[index] as Partial<Address> | undefined;
    const row: Row = {
      email: customer.email,
      name: first ? customer.name : null,
      phone: first ? customer.phone : null,
      tags: first ? (JSON.parse(customer.tags) as string[]) : null,
      note: first ? customer.note : null,
      marketing_consent: first ? customer.marketing_consent === 1 : null,
      metadata: first ? (JSON.parse(customer.metadata) as Record<string, string>) : null,
    };
    for (const field of ADDRESS_FIELDS) row[`address_${field}`] = address?.[field] ?? null;
    rows.push(row);
  }
  return rows;
}

function orderRows(order: repo.ExportOrderRow, items: repo.ExportItemRow[]): Row[] {
  const shipping =
    order.shipping_address === null ? {} : (JSON.parse(order.shipping_address) as Partial<Address>);
  return items.map((item) => {
    const row: Row = {
      order_id: order.id,
      created: iso(order.created),
      status: order.status,
      currency: order.currency,
      customer_id: order.customer_id,
      customer_email: order.customer_email,
      customer_name: order.customer_name,
      subtotal: order.subtotal,
      discount_total: order.discount_total,
      shipping_total: order.shipping_total,
      tax_total: order.tax_total,
      total: order.total,
      refunded_amount: order.refunded_amount,
    };
    for (const field of ADDRESS_FIELDS) row[`shipping_${field}`] = shipping[field] ?? null;
    Object.assign(row, {
      carrier: order.carrier,
      tracking_number: order.tracking_number,
      line: item.position,
      product_id: item.product_id,
      variant_id: item.variant_id,
      sku: item.sku,
      item_name: item.name,
      variant_title: item.variant_title,
      quantity: item.quantity,
      unit_price: item.unit_price,
      line_total: item.total,
      line_discount: item.discount,
      line_tax: item.tax,
    });
    return row;
  });
}

/**
 * Every row of `resource`. The first page is read before this returns, so a store that cannot
 * answer is still a clean 503 rather than a 200 cut short.
 */
async function rowsOf(db: Db, resource: ExportResource, tenantId: string): Promise<AsyncIterable<Row>> {
  if (resource === 'products') {
    const first = await repo.productsAfter(db, tenantId, -1, PAGE);
    const locations = { tenantId, list: await storeLocations(db, tenantId) };
    return (async function* rows() {
      for (let page = first; page.length > 0;) {
        yield* productPageRows(db, page, locations);
        const last = page[page.length - 1];
        if (page.length < PAGE || last === undefined) return;
        page = await repo.productsAfter(db, tenantId, last.seq, PAGE);
      }
    })();
  }
  if (resource === 'customers') {
    const first = await repo.customersAfter(db, tenantId, -1, PAGE);
    return (async function* rows() {
      for (let page = first; page.length > 0;) {
        for (const customer of page) yield* customerRows(customer);
        const last = page[page.length - 1];
        if (page.length < PAGE || last === undefined) return;
        page = await repo.customersAfter(db, tenantId, last.seq, PAGE);
      }
    })();
  }
  const first = await repo.ordersAfter(db, tenantId, undefined, PAGE);
  return (async function* rows() {
    for (let page = first; page.length > 0;) {
      const items = await repo.itemsOf(
        db,
        page.map((order) => order.id),
      );
      const byOrder = new Map<string, repo.ExportItemRow[]>();
      for (const item of items) {
        const list = byOrder.get(item.order_id) ?? [];
        list.push(item);
        byOrder.set(item.order_id, list);
      }
      for (const order of page) yield* orderRows(order, byOrder.get(order.id) ?? []);
      const last = page[page.length - 1];
      if (page.length < PAGE || last === undefined) return;
      page = await repo.ordersAfter(db, tenantId, [last.created, last.id], PAGE);
    }
  })();
}

export const COLUMNS: Record<ExportResource, readonly string[]> = {
  products: PRODUCT_COLUMNS,
  customers: CUSTOMER_COLUMNS,
  orders: ORDER_COLUMNS,
};

/**
 * A row as one JSON Lines line, its keys in the columns' order. Empty text is null there, as an
 * empty CSV cell is empty either way: both formats read back alike.
 */
function jsonLine(columns: readonly string[], row: Row): string {
  const ordered: Record<string, CellValue> = {};
  for (const column of columns) {
    const value = row[column] ?? null;
    ordered[column] = value === '' ? null : value;
  }
  return `${JSON.stringify(ordered)}\n`;
}

export type ExportService = ReturnType<typeof createExportService>;

export function createExportService(deps: { store: Store; logger: Logger }) {
  const { store, logger } = deps;
  return {
    /**
     * The export's body, streamed, with its media type and a file name; `columns`, the resource's
     * columns as the caller's version has them (by default all of them).
     */
    async stream(
      resource: ExportResource,
      tenantId: string,
      format: ExportFormat,
      now: number,
      columns: readonly string[] = COLUMNS[resource],
    ): Promise<{ filename: string; contentType: string; body: Readable }> {
      const rows = await rowsOf(store.db, resource, tenantId);
      const filename = `${resource}-${new Date(now).toISOString().slice(0, 10)}.${format}`;
      const onError = (error: unknown) => {
        if (error) logger.error({ err: error, export: resource }, 'export failed midway');
      };
      if (format === 'jsonl') {
        const lines = new Transform({
          writableObjectMode: true,
          transform(row: Row, _encoding, done) {
            done(null, jsonLine(columns, row));
          },
        });
        return {
          filename,
          contentType: EXPORT_CONTENT_TYPES.jsonl,
          body: pipeline(Readable.from(rows), lines, onError),
        };
      }
      const csv = stringify({
        header: true,
        columns: [...columns],
        escape_formulas: true,
        record_delimiter: 'windows',
      });
      const cells = new Transform({
        objectMode: true,
        transform(row: Row, _encoding, done) {
          done(
            null,
            columns.map((column) => csvCell(row[column] ?? null)),
          );
        },
      });
      return {
        filename,
        contentType: EXPORT_CONTENT_TYPES.csv,
        body: pipeline(Readable.from(rows), cells, csv, onError),
      };
    },
  };
}
