import currencyCodes from 'currency-codes';
/** ISO 4217 codes as the runtime's ICU data knows them. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

/** The largest amount one order, payment, transfer or adjustment may move (minor units). */
export const MAX_AMOUNT = 1_000_000_000_000;

/**
 * The most a wallet may hold (minor units). Transfers and adjustments past it are refused, and a
 * payment is refused before it is charged; a payment already captured is always credited, and
 * the margin to 2^53 (about 9,000 maximal payments at once) keeps every balance exact.
 */
export const MAX_BALANCE = 1_000_000_000_000_000;

/** How many decimal digits one major unit of `currency` has in minor units (2 for USD: 1.00 = 100). */
export function minorUnitDigits(currency: string): number {
  // ISO's own list (currency-codes ships it): the runtime's ICU data disagrees for a few, formatting
  // HUF, IDR and COP without the decimals ISO gives them.
  return currencyCodes.code(currency)?.digits ?? 2;
}
