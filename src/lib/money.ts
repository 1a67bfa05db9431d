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

/**
 * ISO 4217 currencies whose minor unit is not a hundredth: none (0 digits) or a thousandth (3) or
 * ten-thousandth (4). The list is ISO's own; the runtime's ICU data disagrees for a few (it
 * formats HUF, IDR and COP without decimals, which ISO gives two).
 */
const MINOR_UNIT_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** How many decimal digits one major unit of `currency` has in minor units (2 for USD: 1.00 = 100). */
export function minorUnitDigits(currency: string): number {
  return MINOR_UNIT_DIGITS[currency] ?? 2;
}
