import { canonicalState } from '../../lib/addresses.js';
import { AppError } from '../../lib/errors.js';
import type { DiscountRow } from './discounts.repository.js';
import { calculatePricing, type DiscountInput, type LineInput, shippingCost } from './pricing.calculate.js';
import { discountCodeKey, inBand, ratesFor, stateKey } from './pricing.rules.js';
import type { ShippingRateRow, TaxRateRow } from './rates.repository.js';

/**
 * The checkout's choices, pure: which discounts an order gets, which shipping rate and which tax
 * rate apply. The rows come from the store (pricing.service.ts); the arithmetic is
 * pricing.calculate.ts's. The same inputs always give the same choice, so a preview and the order
 * made from it agree.
 */

export type DiscountReason =
  | 'unknown'
  | 'expired'
  | 'not_started'
  | 'usage_limit_reached'
  | 'minimum_not_met'
  | 'not_combinable'
  | 'disabled';

export interface DiscountChoiceInput {
  /** As the buyer typed them (the order's `discount_codes`); matched case-insensitively. */
  codes: readonly string[];
  /** The tenant's discounts whose `code_key` matches one of the codes. */
  found: readonly DiscountRow[];
  /** The tenant's enabled automatic discounts. */
  automatic: readonly DiscountRow[];
  lines: readonly LineInput[];
  /** The order's currency. */
  currency: string;
  /** The buyer's earlier uses, by discount id (absent: none). */
  customerUses: ReadonlyMap<string, number>;
  now: number;
}

/**
 * `422 discount_invalid`: members `reason` and `discount_code` (as typed, or the discount's code;
 * null for an automatic discount), `errors[0].field` naming the typed code when there is one, and
 * `discount_id` when the discount exists.
 */
export function discountInvalid(
  reason: DiscountReason,
  message: string,
  about: { code: string | null; field?: string; discountId?: string },
): AppError {
  return new AppError('discount_invalid', message, {
    ...(about.field === undefined ? {} : { errors: [{ field: about.field, message }] }),
    extra: {
      reason,
      discount_code: about.code,
      ...(about.discountId === undefined ? {} : { discount_id: about.discountId }),
    },
  });
}

/** Amounts off (percentages, fixed amounts) stack apart from shipping waivers. */
type Kind = 'amount' | 'shipping';

function kindOf(row: DiscountRow): Kind {
  return row.type === 'free_shipping' ? 'shipping' : 'amount';
}

/** Two discounts stack unless they are of one kind and either of them is not combinable. */
function stack(a: DiscountRow, b: DiscountRow): boolean {
  return kindOf(a) !== kindOf(b) || (a.combinable === 1 && b.combinable === 1);
}

function targetsOf(row: DiscountRow): DiscountInput['applies_to'] {
  return row.applies_to === null ? null : (JSON.parse(row.applies_to) as DiscountInput['applies_to']);
}

export function toDiscountInput(row: DiscountRow): DiscountInput {
  return { id: row.id, code: row.code, type: row.type, value: row.value, applies_to: targetsOf(row) };
}

function targetsAnyLine(row: DiscountRow, lines: readonly LineInput[]): boolean {
  const to = targetsOf(row);
  if (to === null) return true;
  return lines.some(
    (line) =>
      (to.product_ids?.includes(line.product_id) ?? false) ||
      (line.category !== null && (to.categories?.includes(line.category) ?? false)),
  );
}

function money(amount: number, currency: string): string {
  return `${amount} ${currency} (minor units)`;
}

/**
 * Why `row` does not apply to this order, or null when it does. Checked in this order:
 * disabled, not_started, expired, usage_limit_reached (all uses, or this buyer's), then what the
 * order holds: a discount with a `currency` applies only to orders in it (reason `unknown`: for an
 * order in another currency the code does not exist, as a fixed amount cannot be converted), the
 * order's subtotal (before any discount) must reach `minimum_subtotal`, and an amount off limited
 * by `applies_to` must target one of the order's lines (reason `minimum_not_met`: the order does
 * not hold what the discount asks for).
 */
function refusal(
  row: DiscountRow,
  input: DiscountChoiceInput,
  subtotal: number,
): { reason: DiscountReason; why: string } | null {
  const { now, currency } = input;
  if (row.enabled !== 1) return { reason: 'disabled', why: 'is switched off' };
  if (row.starts_at !== null && now < row.starts_at) {
    return { reason: 'not_started', why: `starts at ${new Date(row.starts_at).toISOString()}` };
  }
  if (row.ends_at !== null && now >= row.ends_at) {
    return { reason: 'expired', why: `ended at ${new Date(row.ends_at).toISOString()}` };
  }
  if (row.usage_limit !== null && row.times_used >= row.usage_limit) {
    return { reason: 'usage_limit_reached', why: `was used ${row.usage_limit} times, its limit` };
  }
  const uses = input.customerUses.get(row.id) ?? 0;
  if (row.usage_limit_per_customer !== null && uses >= row.usage_limit_per_customer) {
    return {
      reason: 'usage_limit_reached',
      why: `was used ${uses} times by this customer, the limit per customer`,
    };
  }
  if (row.currency !== null && row.currency !== currency) {
    return { reason: 'unknown', why: `is for orders in ${row.currency}, not ${currency}` };
  }
  if (row.minimum_subtotal !== null && subtotal < row.minimum_subtotal) {
    return {
      reason: 'minimum_not_met',
      why: `needs a subtotal of at least ${money(row.minimum_subtotal, currency)}; the order's is ${subtotal}`,
    };
  }
  if (kindOf(row) === 'amount' && !targetsAnyLine(row, input.lines)) {
    return { reason: 'minimum_not_met', why: "applies to none of the order's products or categories" };
  }
  return null;
}

/** What amount-off discounts take off the lines, applied in `applicationOrder`. */
function amountOff(lines: readonly LineInput[], rows: readonly DiscountRow[]): number {
  const discounts = applicationOrder(rows.map((row, index) => ({ row, index }))).map(toDiscountInput);
  return calculatePricing({ lines, discounts, shipping: null, tax: null }).discount_total;
}

const TYPE_RANK: Record<DiscountRow['type'], number> = { percentage: 0, fixed_amount: 1, free_shipping: 2 };

/** Percentages, then fixed amounts, then free shipping; within a type, in `index` order. */
function applicationOrder(rows: readonly { row: DiscountRow; index: number }[]): DiscountRow[] {
  return [...rows]
    .sort((a, b) => TYPE_RANK[a.row.type] - TYPE_RANK[b.row.type] || a.index - b.index)
    .map(({ row }) => row);
}

function byCreated(a: DiscountRow, b: DiscountRow): number {
  return a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The discounts an order gets, in the order they apply.
 *
 * Codes: each typed code must apply, or the order is refused with `422 discount_invalid` naming
 * the first that does not (`errors[0].field` is `discount_codes[i]`; members `reason` and
 * `discount_code`, the code as typed). Reasons: `unknown` (no such code, or a discount for another
 * currency), `disabled`, `not_started`, `expired`, `usage_limit_reached`, `minimum_not_met`, and
 * `not_combinable` for a code that cannot stack with a code typed before it. The same discount
 * typed twice (in any case) counts once.
 *
 * Stacking: amounts off (percentage, fixed amount) and free shipping are two kinds; two discounts
 * of one kind stack only when both are `combinable`. Discounts of different kinds always stack.
 *
 * Automatic discounts never refuse an order: one that does not apply, or that cannot stack with
 * the typed codes, is left out. Per kind: when codes of that kind were typed, the automatic ones
 * join only if every such code and they are combinable (a second free shipping adds nothing, so
 * none joins). Without codes of that kind, the best option wins: all the combinable automatic
 * amounts off together, or any one of the others alone, whichever takes most off the lines (ties:
 * the combinable group, then the oldest); for free shipping, the oldest applicable one.
 *
 * Order of application: percentages first, then fixed amounts, then free shipping; within a type,
 * codes in the order typed, then automatic discounts oldest first (by `created`, then id).
 * Percentages first take each percentage of the lines' full price, the more generous order.
 */
export function chooseDiscounts(input: DiscountChoiceInput): DiscountInput[] {
  const { discounts, refusals } = chooseDiscountsListing(input);
  if (refusals[0] !== undefined) throw refusals[0];
  return discounts;
}

/**
 * `chooseDiscounts` for a checkout that lists what it refuses instead of stopping at it (a cart):
 * each typed code that does not apply is left out and its `422 discount_invalid` listed, in the
 * order typed, and the rest chosen as if it had not been typed. The first refusal is the one
 * `chooseDiscounts` throws, and with no refusal the discounts are the same.
 */
export function chooseDiscountsListing(input: DiscountChoiceInput): {
  discounts: DiscountInput[];
  refusals: AppError[];
} {
  const subtotal = input.lines.reduce((sum, line) => sum + line.unit_price * line.quantity, 0);
  const chosen: DiscountRow[] = [];
  const refusals: AppError[] = [];

  input.codes.forEach((typed, index) => {
    const field = `discount_codes[${index}]`;
    const row = input.found.find((candidate) => candidate.code_key === discountCodeKey(typed));
    if (row === undefined) {
      refusals.push(discountInvalid('unknown', `No discount has the code ${typed}.`, { code: typed, field }));
      return;
    }
    if (chosen.some((earlier) => earlier.id === row.id)) return;
    const refused = refusal(row, input, subtotal);
    if (refused !== null) {
      refusals.push(
        discountInvalid(refused.reason, `The discount code ${typed} ${refused.why}.`, {
          code: typed,
          field,
          discountId: row.id,
        }),
      );
      return;
    }
    const clash = chosen.find((earlier) => !stack(earlier, row));
    if (clash !== undefined) {
      refusals.push(
        discountInvalid(
          'not_combinable',
          `The discount code ${typed} cannot be combined with ${clash.code ?? clash.id}: two ${
            kindOf(row) === 'amount' ? 'amounts off' : 'free shipping discounts'
          } stack only when both are combinable.`,
          { code: typed, field, discountId: row.id },
        ),
      );
      return;
    }
    chosen.push(row);
  });

  const usable = input.automatic
    .filter(
      (row) =>
        row.automatic === 1 && !chosen.some((c) => c.id === row.id) && refusal(row, input, subtotal) === null,
    )
    .sort(byCreated);
  const automatic: DiscountRow[] = [];
  for (const kind of ['amount', 'shipping'] as const) {
    const typed = chosen.filter((row) => kindOf(row) === kind);
    const candidates = usable.filter((row) => kindOf(row) === kind);
    if (candidates.length === 0) continue;
    if (kind === 'shipping') {
      if (typed.length === 0) automatic.push(candidates[0] as DiscountRow);
      continue;
    }
    if (typed.length > 0) {
      if (typed.every((row) => row.combinable === 1)) {
        automatic.push(...candidates.filter((row) => row.combinable === 1));
      }
      continue;
    }
    const group = candidates.filter((row) => row.combinable === 1);
    const options = [
      ...(group.length > 0 ? [group] : []),
      ...candidates.filter((row) => row.combinable !== 1).map((row) => [row]),
    ];
    let best: DiscountRow[] = [];
    let bestOff = -1;
    for (const option of options) {
      const off = amountOff(input.lines, option);
      if (off > bestOff) [best, bestOff] = [option, off];
    }
    automatic.push(...best);
  }

  const sources = [...chosen, ...automatic.sort(byCreated)].map((row, index) => ({ row, index }));
  return { discounts: applicationOrder(sources).map(toDiscountInput), refusals };
}

/** `422 shipping_unavailable`, naming the field that asked for what cannot be had. */
function shippingUnavailable(message: string, field: string): AppError {
  return new AppError('shipping_unavailable', message, { errors: [{ field, message }] });
}

export interface ShippingChoiceInput {
  /** The shipping address's country, ISO 3166-1 alpha-2. */
  country: string;
  /** The parcel's weight: the items' variant weights times their quantities. */
  weight_grams: number;
  /** The order's subtotal after its amounts off: what a rate's `free_over` is compared with. */
  discounted_subtotal: number;
  /** The order's currency. */
  currency: string;
  /** The rate the buyer named (the order's `shipping_rate_id`), if any. */
  rate_id?: string | undefined;
}

/**
 * The shipping rate of an order. The rates that may ship to the country are those in the order's
 * currency that name it, or, when none does, those for the rest of the world (`["*"]`); of those,
 * the ones whose weight band takes the parcel (bounds inclusive, a null bound open). The rate
 * named by `rate_id` must be one of them; without one, the cheapest for this order: by what it
 * costs the order (`shippingCost`: nothing once the discounted subtotal reaches its `free_over`),
 * then by id. None:
 * `422 shipping_unavailable` (naming `shipping_rate_id`, or `shipping_address.country`).
 */
export function chooseShippingRate(
  rates: readonly ShippingRateRow[],
  input: ShippingChoiceInput,
): ShippingRateRow {
  const choice = shippingChoice(rates, input);
  if (choice instanceof AppError) throw choice;
  return choice;
}

/** `chooseShippingRate`'s choice, or its refusal as a value (for a checkout that lists refusals). */
export function shippingChoice(
  rates: readonly ShippingRateRow[],
  input: ShippingChoiceInput,
): ShippingRateRow | AppError {
  if (input.rate_id !== undefined) {
    const zone = ratesFor(
      rates.filter((rate) => rate.currency === input.currency),
      input.country,
    );
    const rate = rates.find((candidate) => candidate.id === input.rate_id);
    const why =
      rate === undefined
        ? 'does not exist'
        : rate.currency !== input.currency
          ? `is in ${rate.currency}, the order in ${input.currency}`
          : !zone.includes(rate)
            ? `does not ship to ${input.country}`
            : !inBand(rate, input.weight_grams)
              ? `does not take a parcel of ${input.weight_grams} g`
              : null;
    if (rate === undefined || why !== null) {
      return shippingUnavailable(`The shipping rate ${input.rate_id} ${why}.`, 'shipping_rate_id');
    }
    return rate;
  }
  const cheapest = fittingRates(rates, input)[0]?.rate;
  if (cheapest === undefined) {
    return shippingUnavailable(
      `No shipping rate in ${input.currency} ships a parcel of ${input.weight_grams} g to ${input.country}.`,
      'shipping_address.country',
    );
  }
  return cheapest;
}

/**
 * The rates that may ship this order (as `chooseShippingRate` picks among them: in its currency,
 * for its country or the rest of the world, taking its weight), cheapest first by what each costs
 * it (`shippingCost`), then by id; each with that cost. What a cart offers its shopper to choose.
 */
export function fittingRates(
  rates: readonly ShippingRateRow[],
  input: Omit<ShippingChoiceInput, 'rate_id'>,
): { rate: ShippingRateRow; cost: number }[] {
  const zone = ratesFor(
    rates.filter((rate) => rate.currency === input.currency),
    input.country,
  );
  return zone
    .filter((rate) => inBand(rate, input.weight_grams))
    .map((rate) => ({ rate, cost: shippingCost(rate, input.discounted_subtotal) }))
    .sort((a, b) => a.cost - b.cost || (a.rate.id < b.rate.id ? -1 : a.rate.id > b.rate.id ? 1 : 0));
}

/**
 * The tax rate of an address: its state's over its country's; none: null, no tax. States are
 * matched in their canonical form (src/lib/addresses.ts: a known subdivision by its ISO 3166-2
 * code, whether the address gives the code or the name) by `stateKey`, so invisible characters,
 * case, accents and how they are written do not count; a blank state is absent.
 */
export function chooseTaxRate(
  rates: readonly TaxRateRow[],
  place: { country: string; state: string | null | undefined },
): TaxRateRow | null {
  const canonical = canonicalState(place.country, place.state);
  const key = stateKey(canonical.ok ? canonical.state : place.state);
  const own = rates.filter((rate) => rate.country === place.country);
  return (
    (key === '' ? undefined : own.find((rate) => rate.state_key === key)) ??
    own.find((rate) => rate.state_key === '') ??
    null
  );
}
