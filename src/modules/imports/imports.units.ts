import type { ImportResource } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { EventService } from '../events/index.js';
import type { LevelLocation, TenantRef, VariantRow } from '../products/index.js';
import {
  applyCustomer,
  type CustomerGroup,
  CustomerGrouper,
  customerHeaderErrors,
  planCustomer,
  readCustomerLine,
} from './imports.customers.js';
import { type ProductLine, productHeaderErrors, readOwnLine } from './imports.product-lines.js';
import { ProductChecker, type ProductGroup, ProductGrouper, rowsOf } from './imports.product-groups.js';
import { readShopifyLine, shopifyColumns } from './imports.shopify.js';
import { readWooLine, wooHeader } from './imports.woocommerce.js';
import { prescanWoo, WooGrouper, type WooPrescan } from './imports.woo-groups.js';
import { applyNewProducts, applyProduct } from './imports.products.apply.js';
import {
  locationsByName,
  type Outcome,
  planProduct,
  type ProductPlan,
  skuKeysOf,
} from './imports.products.js';
import { variantsBySkuKeys } from './imports.repository.js';
import type { FileFormat, FileItem, FileRow, RowError } from './imports.rows.js';

/**
 * What the runner works with, whatever the resource: a unit is one product or one customer (the
 * rows it spans, by data row number `n` and by file line), which plans against the store and then
 * writes in the caller's transaction.
 */

export interface UnitContext {
  db: Db;
  tenant: TenantRef;
  mode: 'upsert' | 'create';
  now: number;
  lock: boolean;
  known: ReadonlySet<number>;
  /** What `UnitSource.prepare` read once for the batch. */
  skus?: ReadonlyMap<string, VariantRow>;
  /** The store's locations by name (products' `stock_by_location`), read once for the batch. */
  locations?: ReadonlyMap<string, LevelLocation>;
}

export interface UnitPlan {
  /** One outcome per row that goes in. */
  outcomes: Outcome[];
  /** Every error of the unit's rows. */
  errors: RowError[];
  /** Writes the plan in `trx`: errors found then (a conflict), and nothing of the unit written. */
  apply(trx: Db, now: number): Promise<RowError[]>;
  /**
   * The write can join those of other plans in one statement (a new product): the runner gathers
   * such plans and writes them with `UnitSource.applyTogether` instead of `apply`.
   */
  together: boolean;
}

export interface Unit {
  first: number;
  last: number;
  firstLine: number;
  lastLine: number;
  /** The SKU keys the unit's rows name (read for a batch at once by `UnitSource.prepare`). */
  skuKeys: readonly string[];
  plan(ctx: UnitContext): Promise<UnitPlan>;
}

export interface UnitSource {
  /**
   * A first look at the file's rows before the pass, for a format whose products' rows need not
   * be next to each other (WooCommerce's): the runner reads the file once more for it.
   */
  prescan?(items: AsyncIterable<FileItem>): Promise<void>;
  /** The header's errors (a CSV's first line): the file cannot be imported with them. */
  header(columns: readonly string[]): RowError[];
  push(row: FileRow): Unit[];
  end(): Unit[];
  /** What the plans of a batch read from the store, read once for all of them. */
  prepare(db: Db, tenantId: string, units: readonly Unit[]): Promise<Pick<UnitContext, 'skus' | 'locations'>>;
  /** Writes plans marked `together`, at once: each one's errors (a conflict), in order. */
  applyTogether(trx: Db, plans: readonly UnitPlan[], now: number): Promise<RowError[][]>;
}

interface Spanned {
  n: number;
  line: number;
  errors: RowError[];
}

/**
 * A unit over `lines`. Planning adds errors to the lines; they are put back as the file left them
 * before each plan, so a transaction that is tried again plans the same.
 */
function unitOf<L extends Spanned>(
  lines: readonly L[],
  skuKeys: readonly string[],
  plan: (ctx: UnitContext) => Promise<UnitPlan>,
): Unit {
  const base = new Map(lines.map((line) => [line, line.errors.length]));
  return {
    first: Math.min(...lines.map((line) => line.n)),
    last: Math.max(...lines.map((line) => line.n)),
    firstLine: Math.min(...lines.map((line) => line.line)),
    lastLine: Math.max(...lines.map((line) => line.line)),
    skuKeys,
    plan: (ctx) => {
      for (const [line, count] of base) line.errors.length = count;
      return plan(ctx);
    },
  };
}

/** How a product file's rows are read and gathered into products, by its format and header. */
interface ProductReading {
  read(row: FileRow): ProductLine;
  push(line: ProductLine): ProductGroup[];
  end(): ProductGroup[];
}

function ownReading(shopify: boolean, read: (row: FileRow) => ProductLine): ProductReading {
  const grouper = new ProductGrouper(shopify);
  return { read, push: (line) => grouper.push(line), end: () => grouper.end() };
}

function productReading(
  format: FileFormat,
  columns: readonly string[],
  currency: string,
  scan: WooPrescan | undefined,
): ProductReading {
  if (format === 'shopify') {
    const found = shopifyColumns(columns);
    return ownReading(true, (row) => readShopifyLine(row, currency, found));
  }
  if (format === 'woocommerce') {
    const header = wooHeader(columns);
    const grouper = new WooGrouper(
      new ProductChecker(false),
      scan ?? { parentOf: new Map(), lastOf: new Map() },
    );
    return {
      read: (row) => readWooLine(row, currency, header),
      push: (line) => grouper.push(line as ReturnType<typeof readWooLine>),
      end: () => grouper.end(),
    };
  }
  return ownReading(false, readOwnLine);
}

function productUnits(format: FileFormat, currency: string, events: EventService): UnitSource {
  // JSON Lines has no header: our own columns.
  let reading = productReading(format, [], currency, undefined);
  let scan: WooPrescan | undefined;
  const planOf = new WeakMap<UnitPlan, ProductPlan>();
  const toUnit = (group: ProductGroup): Unit =>
    unitOf(rowsOf(group), skuKeysOf(group), async (ctx) => {
      const plan = await planProduct(ctx, group);
      const unitPlan: UnitPlan = {
        outcomes: plan.outcomes.map((entry) => entry.outcome),
        errors: plan.errors,
        apply: (trx, now) => applyProduct(trx, events, plan, now),
        together: plan.action?.kind === 'create',
      };
      planOf.set(unitPlan, plan);
      return unitPlan;
    });
  return {
    ...(format === 'woocommerce'
      ? {
          prescan: async (items: AsyncIterable<FileItem>) => {
            scan = await prescanWoo(items);
          },
        }
      : {}),
    header: (columns) => {
      reading = productReading(format, columns, currency, scan);
      return productHeaderErrors(format, columns);
    },
    push: (row) => reading.push(reading.read(row)).map(toUnit),
    end: () => reading.end().map(toUnit),
    prepare: async (db, tenantId, units) => {
      const rows = await variantsBySkuKeys(
        db,
        tenantId,
        units.flatMap((unit) => unit.skuKeys),
      );
      return {
        skus: new Map(rows.map((row) => [row.sku_key as string, row])),
        locations: await locationsByName(db, tenantId),
      };
    },
    applyTogether: (trx, plans, now) =>
      applyNewProducts(
        trx,
        events,
        plans.map((plan) => planOf.get(plan) as ProductPlan),
        now,
      ),
  };
}

function customerUnits(events: EventService): UnitSource {
  const grouper = new CustomerGrouper();
  const toUnit = (group: CustomerGroup): Unit =>
    unitOf(group.lines, [], async (ctx) => {
      const plan = await planCustomer(ctx, group);
      return {
        outcomes: plan.outcomes.map((entry) => entry.outcome),
        errors: plan.errors,
        apply: (trx, now) => applyCustomer(trx, events, plan, group.lines, now),
        together: false,
      };
    });
  return {
    header: (columns) => customerHeaderErrors(columns),
    push: (row) => grouper.push(readCustomerLine(row)).map(toUnit),
    end: () => grouper.end().map(toUnit),
    prepare: async () => ({}),
    applyTogether: async () => {
      throw new Error('customer plans are written one by one');
    },
  };
}

/** The units of a file of `resource`; Shopify prices are read in `currency`, the store's. */
export function unitSource(
  resource: ImportResource,
  format: FileFormat,
  currency: string,
  events: EventService,
): UnitSource {
  return resource === 'products' ? productUnits(format, currency, events) : customerUnits(events);
}
