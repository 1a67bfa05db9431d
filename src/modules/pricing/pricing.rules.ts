import type { DiscountsTable, ShippingRatesTable } from '../../db/schema.js';
import { matchKey } from '../../lib/text-normalise.js';

/**
 * The small pure rules the pricing objects share between their services, their repositories and
 * the checkout's choices: how codes and states are matched, what a discount's status is, which
 * countries and weights a shipping rate serves.
 */

/** A discount code: 3 to 64 of `A-Z a-z 0-9 _ -`, compared case-insensitively. */
export const CODE_PATTERN = '^[A-Za-z0-9_-]{3,64}$';

/**
 * What codes are matched on: their `matchKey` (a stored code is ASCII, so its key is the code
 * upper-cased; a typed one may hold invisible characters or full-width letters, which do not count).
 */
export function discountCodeKey(code: string): string {
  return matchKey(code);
}

/**
 * What a tax rate's state is matched on: its `matchKey` (for a country with known subdivisions
 * the state is already its ISO 3166-2 code: src/lib/addresses.ts); `''` for the whole country.
 */
export function stateKey(state: string | null | undefined): string {
  return matchKey(state ?? '');
}

export type DiscountStatus = 'active' | 'scheduled' | 'expired' | 'disabled' | 'exhausted';

type StatusFields = Pick<DiscountsTable, 'enabled' | 'starts_at' | 'ends_at' | 'usage_limit' | 'times_used'>;

/**
 * A discount's status at `now`, the first that holds of: disabled (switched off), expired (its
 * `ends_at` has come), scheduled (its `starts_at` has not), exhausted (used `usage_limit` times),
 * active. The list filter (discounts.repository.ts) asks the same questions in SQL.
 */
export function discountStatus(row: StatusFields, now: number): DiscountStatus {
  if (row.enabled !== 1) return 'disabled';
  if (row.ends_at !== null && now >= row.ends_at) return 'expired';
  if (row.starts_at !== null && now < row.starts_at) return 'scheduled';
  if (row.usage_limit !== null && row.times_used >= row.usage_limit) return 'exhausted';
  return 'active';
}

/**
 * The first instant after `now` at which a discount's standing changes by time alone (one of them
 * starts or ends), Infinity when none will: until then each one's `discountStatus`, and so a
 * checkout priced with them at `now`, holds.
 */
export function nextDiscountChange(
  rows: readonly Pick<DiscountsTable, 'starts_at' | 'ends_at'>[],
  now: number,
): number {
  let next = Infinity;
  for (const row of rows) {
    if (row.starts_at !== null && row.starts_at > now && row.starts_at < next) next = row.starts_at;
    if (row.ends_at !== null && row.ends_at > now && row.ends_at < next) next = row.ends_at;
  }
  return next;
}

/**
 * The rest of the world: a shipping rate's `countries` as `["*"]` serves every country that no
 * rate in its currency names (as a "rest of world" zone does), so a store can price a few
 * countries of its own and everything else with one rate.
 */
export const ANY_COUNTRY = '*';

type RateBand = Pick<ShippingRatesTable, 'min_weight_grams' | 'max_weight_grams'>;

/**
 * The rates, of those given (one currency), that may ship to `country`: those that name it, or,
 * when none does, the rest-of-the-world ones.
 */
export function ratesFor<R extends { countries: string }>(rates: readonly R[], country: string): R[] {
  const named = rates.filter((rate) => (JSON.parse(rate.countries) as string[]).includes(country));
  if (named.length > 0) return named;
  return rates.filter((rate) => (JSON.parse(rate.countries) as string[]).includes(ANY_COUNTRY));
}

/**
 * Whether two rates (of one currency) could both be the one for some country: they name a
 * country in common, or both are for the rest of the world.
 */
export function countriesOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((country) => b.includes(country));
}

/** Whether `grams` is within the band: both bounds inclusive, a null bound open. */
export function inBand(rate: RateBand, grams: number): boolean {
  return (
    (rate.min_weight_grams === null || grams >= rate.min_weight_grams) &&
    (rate.max_weight_grams === null || grams <= rate.max_weight_grams)
  );
}

/** Whether two bands share a weight (whole grams, bounds inclusive, null bounds open). */
export function bandsOverlap(a: RateBand, b: RateBand): boolean {
  const lowA = a.min_weight_grams ?? -Infinity;
  const lowB = b.min_weight_grams ?? -Infinity;
  const highA = a.max_weight_grams ?? Infinity;
  const highB = b.max_weight_grams ?? Infinity;
  return lowA <= highB && lowB <= highA;
}
