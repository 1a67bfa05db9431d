/** Money as a shopper reads it: minor units of a currency, in the browser's language. */

const formats = new Map<string, Intl.NumberFormat>();

function formatFor(currency: string): Intl.NumberFormat {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    formats.set(currency, format);
  }
  return format;
}

/** `2400, 'USD'` → `$24.00`; `1500, 'JPY'` → `¥1,500`. */
export function money(minor: number, currency: string): string {
  const format = formatFor(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

/** A date as a shopper reads it: `Jan 20, 2027`. */
export function day(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}
