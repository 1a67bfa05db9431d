/**
 * Money as a form holds it: the API's integer minor units shown and typed as the currency's major
 * units ("25.00" for 2500 USD, "1299" for 1299 JPY), by the currency's own number of decimals.
 */

const digitsByCurrency = new Map<string, number>();

/** How many decimals `currency` has: 2 for USD, 0 for JPY, 3 for KWD. */
export function currencyDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Minor units as a field shows them, without symbol or grouping: 2500 USD -> "25.00"; null -> "". */
export function moneyInput(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '';
  const digits = currencyDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** What a typed amount must be in `currency`, for a field's error: "an amount like 12.50". */
export function moneyProblem(currency: string): string {
  const digits = currencyDigits(currency);
  const example = moneyInput(digits === 0 ? 1500 : 125 * 10 ** (digits - 1), currency);
  return digits === 0
    ? `must be a whole amount of ${currency}, like ${example}`
    : `must be an amount of ${currency} with at most ${digits} decimals, like ${example}`;
}

/**
 * A typed amount of `currency` as minor units: "25", "25.5" and "1,299.90" are money ("," groups
 * thousands), "" is none (null), anything else is `undefined` (not an amount).
 */
export function parseMoney(text: string, currency: string): number | null | undefined {
  const value = text.trim().replace(/[,\s]/g, '');
  if (value === '') return null;
  const digits = currencyDigits(currency);
  const match = /^(\d+)(?:\.(\d*))?$/.exec(value);
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  if (fraction.length > digits) return undefined;
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** A typed whole number ("12", "1,000"): null when empty, undefined when not a whole number of at least 0. */
export function parseCount(text: string): number | null | undefined {
  const value = text.trim().replace(/[,\s]/g, '');
  if (value === '') return null;
  if (!/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}
