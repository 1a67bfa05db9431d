/** ISO 4217 codes as the runtime's ICU data knows them. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

/**
 * The largest amount one order, payment, transfer or adjustment may move (minor units), so every
 * balance stays far below 2^53.
 */
export const MAX_AMOUNT = 1_000_000_000_000;
