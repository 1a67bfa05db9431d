import { AppError, type FieldError } from '../../lib/errors.js';

/**
 * A variant's codes as a scanner and a warehouse read them: a barcode is a GTIN (EAN-8, UPC-A,
 * EAN-13, GTIN-14, UPC-E) or an ISBN-10 whose check digit holds, and neither a barcode nor a SKU
 * is a number a spreadsheet rewrote in scientific notation (`3.65275E+11`, whose digits are gone).
 * Imports always check them; the API from version 2027-01-20 (`CODE_CHECKS_SINCE`), since older
 * versions accepted any printable text and an integration pinned to them keeps working.
 */

/** The version from which the API refuses such codes (422 `invalid_product_code`). */
export const CODE_CHECKS_SINCE = '2027-01-20';

/**
 * A number as a spreadsheet writes a long one: `3.65275E+11`, `1,22328E+11`, `1E+11`. The exponent's
 * sign is always written, so a code such as `12E5` is not taken for one.
 */
const SCIENTIFIC = /^[+-]?\d+(?:[.,]\d+)?[eE][+-]\d+$/;

export function isScientific(text: string): boolean {
  return SCIENTIFIC.test(text.trim());
}

const LOST_DIGITS =
  'a spreadsheet wrote a long number that way and its digits are lost: format the column as text in the original file and export it again';

/** The GS1 check digit of `body` (the digits before it). */
function gs1CheckDigit(body: string): number {
  let sum = 0;
  let weight = 3;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * weight;
    weight = 4 - weight;
  }
  return (10 - (sum % 10)) % 10;
}

/** A UPC-E code (number system 0 or 1) as the UPC-A it stands for, without its check digit. */
function upcEBody(code: string): string | undefined {
  const system = code[0];
  if (system !== '0' && system !== '1') return undefined;
  const [d1, d2, d3, d4, d5, d6] = code.slice(1, 7);
  switch (d6) {
    case '0':
    case '1':
    case '2':
      return `${system}${d1}${d2}${d6}0000${d3}${d4}${d5}`;
    case '3':
      return `${system}${d1}${d2}${d3}00000${d4}${d5}`;
    case '4':
      return `${system}${d1}${d2}${d3}${d4}00000${d5}`;
    default:
      return `${system}${d1}${d2}${d3}${d4}${d5}0000${d6}`;
  }
}

/** What is wrong with `barcode` as a barcode, in words; undefined when it is one. */
export function barcodeProblem(barcode: string): string | undefined {
  if (isScientific(barcode)) return `is a number in scientific notation (${barcode}): ${LOST_DIGITS}`;
  // Hyphens group an ISBN's parts (978-1-4028-9462-6); they are not part of the number.
  const code = barcode.replaceAll('-', '');
  if (/^\d{9}[\dXx]$/.test(code)) {
    let sum = 0;
    for (let i = 0; i < 10; i++) {
      const char = code[i] as string;
      sum += (10 - i) * (char === 'X' || char === 'x' ? 10 : Number(char));
    }
    return sum % 11 === 0 ? undefined : `is not a valid ISBN-10: its check digit does not match`;
  }
  if (!/^(\d{8}|\d{12,14})$/.test(code)) {
    return 'is not a GTIN, EAN, UPC or ISBN: those have 8, 12, 13 or 14 digits (an ISBN-10 has 10)';
  }
  const check = Number(code[code.length - 1]);
  const expected = gs1CheckDigit(code.slice(0, -1));
  if (check === expected) return undefined;
  if (code.length === 8) {
    const upcA = upcEBody(code);
    if (upcA !== undefined && gs1CheckDigit(upcA) === check) return undefined;
  }
  return `is not a valid GTIN, EAN, UPC or ISBN: its check digit is ${check}, but its other digits make it ${expected}`;
}

/** What is wrong with `sku` as a SKU, in words; undefined when nothing is. */
export function skuProblem(sku: string): string | undefined {
  return isScientific(sku) ? `is a number in scientific notation (${sku}): ${LOST_DIGITS}` : undefined;
}

/** The field errors of a variant's SKU and barcode, each named `prefix` + its field. */
export function codeErrors(
  codes: { sku?: string | null | undefined; barcode?: string | null | undefined },
  prefix = '',
): FieldError[] {
  const errors: FieldError[] = [];
  const sku = typeof codes.sku === 'string' ? skuProblem(codes.sku) : undefined;
  if (sku !== undefined) errors.push({ field: `${prefix}sku`, message: sku });
  const barcode = typeof codes.barcode === 'string' ? barcodeProblem(codes.barcode) : undefined;
  if (barcode !== undefined) errors.push({ field: `${prefix}barcode`, message: barcode });
  return errors;
}

/** 422 `invalid_product_code` listing the fields, when there are any. */
export function checkCodes(errors: readonly FieldError[]): void {
  if (errors.length === 0) return;
  const named = errors
    .slice(0, 3)
    .map((error) => `${error.field} ${error.message}`)
    .join('; ');
  throw new AppError('invalid_product_code', `${named}.`, { errors: [...errors] });
}

/** Whether requests in `version` have their codes checked. */
export function checksCodes(version: string): boolean {
  return version >= CODE_CHECKS_SINCE;
}
