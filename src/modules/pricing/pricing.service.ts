import type { Db } from '../../db/store.js';
import type { AppError } from '../../lib/errors.js';
import * as discounts from './discounts.repository.js';
import type { DiscountRow } from './discounts.repository.js';
import type { ShippingInput, TaxInput } from './pricing.calculate.js';
import { discountCodeKey, discountStatus } from './pricing.rules.js';
import { type DiscountReason, discountInvalid } from './pricing.choose.js';
import * as rates from './rates.repository.js';
import type { ShippingRateRow, TaxRateRow } from './rates.repository.js';

/**
 * What orders need of the pricing rules, inside the order's own transaction `trx`: the rows the
 * checkout's choices are made from (pricing.choose.ts), the rows as the arithmetic's inputs
 * (pricing.calculate.ts), and the discounts' uses, taken when an order is placed and given back
 * when it is cancelled.
 */

export type { DiscountRow } from './discounts.repository.js';
export type { ShippingRateRow, TaxRateRow } from './rates.repository.js';

export interface DiscountContext {
  /** The discounts whose code is one of the codes (case-insensitively). */
  found: DiscountRow[];
  /** The tenant's enabled automatic discounts. */
  automatic: DiscountRow[];
  /** The customer's uses of those discounts (empty without a customer). */
  customerUses: Map<string, number>;
}

/** The rows `chooseDiscounts` needs for `codes` as the buyer typed them. */
export async function loadDiscountContext(
  trx: Db,
  tenantId: string,
  codes: readonly string[],
  customerId: string | null,
): Promise<DiscountContext> {
  // One after the other: a transaction is one connection.
  const found = await discounts.findByCodeKeys(trx, tenantId, codes.map(discountCodeKey));
  const automatic = await discounts.findEnabledAutomatic(trx, tenantId);
  // A customer's uses matter only to discounts limited per customer: most orders read none.
  const ids = [...found, ...automatic]
    .filter((row) => row.usage_limit_per_customer !== null)
    .map((row) => row.id);
  const customerUses =
    customerId === null || ids.length === 0
      ? new Map<string, number>()
      : await discounts.customerUses(trx, tenantId, customerId, ids);
  return { found, automatic, customerUses };
}

export interface RatesContext {
  /** The tenant's shipping rates in the currency, for every country (`chooseShippingRate` matches the country). */
  shipping: ShippingRateRow[];
  /** The tenant's tax rates for the country: its own and its states' (none without a country). */
  tax: TaxRateRow[];
}

/**
 * The rows `chooseShippingRate` and `chooseTaxRate` need. Shipping rates come for every country
 * so the caller can tell "no shipping configured in this currency" (an empty list) from "no rate
 * for this country" (`chooseShippingRate` refuses).
 */
export async function loadRates(
  trx: Db,
  tenantId: string,
  country: string | null,
  currency: string,
): Promise<RatesContext> {
  const shipping = await rates.shippingRatesIn(trx, tenantId, currency);
  const tax = country === null ? [] : await rates.taxRatesFor(trx, tenantId, country);
  return { shipping, tax };
}

/** What a checkout's pricing rows are read for: its codes, customer, country and currency. */
export interface CheckoutFor {
  codes: readonly string[];
  customerId: string | null;
  country: string | undefined;
  currency: string;
}

/** The rows a checkout was priced from, with what they were read for (`loadCheckout`). */
export interface LoadedCheckout {
  for: CheckoutFor;
  discounts: DiscountContext;
  rates: RatesContext;
}

function sameCheckout(a: CheckoutFor, b: CheckoutFor): boolean {
  return (
    a.customerId === b.customerId &&
    a.country === b.country &&
    a.currency === b.currency &&
    a.codes.length === b.codes.length &&
    a.codes.every((code, i) => code === b.codes[i])
  );
}

/**
 * The rows `priceCheckout` (pricing.checkout.ts) prices a checkout from: the discounts of `codes`
 * and the automatic ones, with the customer's uses, and the rates of the address's country (none
 * without an address). `known`, rows read earlier in the same transaction (a cart priced a moment
 * before its completion prices the order), are answered again when they were read for the same
 * checkout, not read twice.
 */
export async function loadCheckout(
  trx: Db,
  tenantId: string,
  input: CheckoutFor,
  known?: LoadedCheckout,
): Promise<LoadedCheckout> {
  if (known !== undefined && sameCheckout(known.for, input)) return known;
  const discounts = await loadDiscountContext(trx, tenantId, input.codes, input.customerId);
  const rates =
    input.country === undefined
      ? { shipping: [], tax: [] }
      : await loadRates(trx, tenantId, input.country, input.currency);
  return { for: input, discounts, rates };
}

export function toShippingInput(row: ShippingRateRow): ShippingInput {
  return { rate_id: row.id, name: row.name, price: row.price, free_over: row.free_over };
}

export function toTaxInput(row: TaxRateRow): TaxInput {
  return {
    rate_id: row.id,
    name: row.name,
    rate_bps: row.rate_bps,
    inclusive: row.inclusive === 1,
    shipping_taxable: row.shipping_taxable === 1,
  };
}

/**
 * Takes one use of each discount for an order being placed, in its transaction: `times_used`
 * goes up only while the discount is still enabled, within its dates and under `usage_limit`, and
 * the customer's uses only while under `usage_limit_per_customer`. Each is one conditional
 * statement judged on the row as it is when it runs (concurrent orders wait for each other's
 * row), so with `usage_limit: 10` exactly 10 orders get the discount however many race for it.
 * One that cannot be had throws `422 discount_invalid` with its reason (`usage_limit_reached` for
 * a lost race) and members `discount_code` and `discount_id` (an automatic discount's code is
 * null: the caller may price the order again without it); the caller's transaction then rolls back
 * what was taken. Ids are taken in sorted order, one lock order for every order.
 */
export async function reserveUses(
  trx: Db,
  tenantId: string,
  discountIds: readonly string[],
  customerId: string | null,
  now: number,
): Promise<void> {
  for (const id of [...new Set(discountIds)].sort()) {
    const taken = await discounts.takeUse(trx, tenantId, id, now);
    if (taken === undefined) throw await unavailable(trx, tenantId, id, now);
    if (customerId === null) continue;
    if (!(await discounts.takeCustomerUse(trx, tenantId, id, customerId, taken.limit))) {
      const row = (await discounts.findDiscount(trx, tenantId, id)) as DiscountRow; // updated just above
      throw refused(row, 'usage_limit_reached', 'was used by this customer as many times as it may be');
    }
  }
}

/** Gives back the uses `reserveUses` took (an order cancelled), never below 0. */
export async function returnUses(
  trx: Db,
  tenantId: string,
  discountIds: readonly string[],
  customerId: string | null,
  _now: number,
): Promise<void> {
  for (const id of [...new Set(discountIds)].sort()) {
    await discounts.giveUseBack(trx, tenantId, id);
    if (customerId !== null) await discounts.giveCustomerUseBack(trx, tenantId, id, customerId);
  }
}

function refused(row: DiscountRow, reason: DiscountReason, why: string): AppError {
  const name = row.code === null ? `automatic discount ${row.id}` : `discount code ${row.code}`;
  return discountInvalid(reason, `The ${name} ${why}.`, { code: row.code, discountId: row.id });
}

/** Why `takeUse` took nothing: the discount as it is now. */
async function unavailable(trx: Db, tenantId: string, id: string, now: number): Promise<AppError> {
  const row = await discounts.findDiscount(trx, tenantId, id);
  if (row === undefined) {
    return discountInvalid('unknown', `The discount ${id} no longer exists.`, { code: null, discountId: id });
  }
  const status = discountStatus(row, now);
  if (status === 'disabled') return refused(row, 'disabled', 'is switched off');
  if (status === 'expired') return refused(row, 'expired', 'has ended');
  if (status === 'scheduled') return refused(row, 'not_started', 'has not started');
  return refused(row, 'usage_limit_reached', 'was used as many times as it may be');
}
