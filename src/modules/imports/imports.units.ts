import type { ImportResource } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { EventService } from '../events/events.service.js';
import type { TenantRef } from '../products/products.service.js';
import {
  applyCustomer,
  type CustomerGroup,
  CustomerGrouper,
  customerHeaderErrors,
  planCustomer,
  readCustomerLine,
} from './imports.customers.js';
import { productHeaderErrors, readOwnLine, readShopifyLine } from './imports.product-lines.js';
import { type ProductGroup, ProductGrouper } from './imports.product-groups.js';
import { applyProduct, type Outcome, planProduct } from './imports.products.js';
import type { FileFormat, FileRow, RowError } from './imports.rows.js';

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
}

export interface UnitPlan {
  /** One outcome per row that goes in. */
  outcomes: Outcome[];
  /** Every error of the unit's rows. */
  errors: RowError[];
  /** Writes the plan in `trx`: errors found then (a conflict), and nothing of the unit written. */
  apply(trx: Db, now: number): Promise<RowError[]>;
}

export interface Unit {
  first: number;
  last: number;
  firstLine: number;
  lastLine: number;
  plan(ctx: UnitContext): Promise<UnitPlan>;
}

export interface UnitSource {
  /** The header's errors (a CSV's first line): the file cannot be imported with them. */
  header(columns: readonly string[]): RowError[];
  push(row: FileRow): Unit[];
  end(): Unit[];
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
function unitOf<L extends Spanned>(lines: readonly L[], plan: (ctx: UnitContext) => Promise<UnitPlan>): Unit {
  const base = new Map(lines.map((line) => [line, line.errors.length]));
  return {
    first: Math.min(...lines.map((line) => line.n)),
    last: Math.max(...lines.map((line) => line.n)),
    firstLine: Math.min(...lines.map((line) => line.line)),
    lastLine: Math.max(...lines.map((line) => line.line)),
    plan: (ctx) => {
      for (const [line, count] of base) line.errors.length = count;
      return plan(ctx);
    },
  };
}

function productUnits(format: FileFormat, currency: string, events: EventService): UnitSource {
  const grouper = new ProductGrouper(format === 'shopify');
  const toUnit = (group: ProductGroup): Unit =>
    unitOf([...group.lines, ...group.passive], async (ctx) => {
      const plan = await planProduct(ctx, group);
      return {
        outcomes: plan.outcomes.map((entry) => entry.outcome),
        errors: plan.errors,
        apply: (trx, now) => applyProduct(trx, events, plan, now),
      };
    });
  return {
    header: (columns) => productHeaderErrors(format, columns),
    push: (row) =>
      grouper.push(format === 'shopify' ? readShopifyLine(row, currency) : readOwnLine(row)).map(toUnit),
    end: () => grouper.end().map(toUnit),
  };
}

function customerUnits(events: EventService): UnitSource {
  const grouper = new CustomerGrouper();
  const toUnit = (group: CustomerGroup): Unit =>
    unitOf(group.lines, async (ctx) => {
      const plan = await planCustomer(ctx, group);
      return {
        outcomes: plan.outcomes.map((entry) => entry.outcome),
        errors: plan.errors,
        apply: (trx, now) => applyCustomer(trx, events, plan, group.lines, now),
      };
    });
  return {
    header: (columns) => customerHeaderErrors(columns),
    push: (row) => grouper.push(readCustomerLine(row)).map(toUnit),
    end: () => grouper.end().map(toUnit),
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
