import type { Db } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError } from '../../lib/errors.js';
import * as repo from './products.repository.js';

/**
 * A product's handle: the name a storefront's URL uses (`/products/classic-tee`), lowercase
 * `a-z 0-9 -`, 1 to 255 characters, unique per tenant (migration 0038's index). Given on create or
 * change, it must be free (`409 handle_taken`); not given, it is made from the name (`slugify`) and
 * numbered when taken: `classic-tee`, then `classic-tee-2`, `classic-tee-3`...
 */

export const HANDLE_PATTERN = '^[a-z0-9-]{1,255}$';
const HANDLE = /^[a-z0-9-]{1,255}$/;
/** The longest base a made handle starts with: room for a `-N` suffix within 255. */
const MAX_BASE = 240;
/** The index that keeps handles unique per tenant (migration 0038). */
const HANDLE_INDEX = 'products_tenant_handle_idx';

export function isHandle(value: string): boolean {
  return HANDLE.test(value);
}

/** Letters NFKD does not take apart into a base letter and marks. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŋ: 'n',
  ſ: 's',
};

/**
 * The handle a name makes: accents dropped (NFKD, then the marks removed; `ß` is `ss`, `æ` `ae`,
 * `ø` `o`...), apostrophes dropped (`Men's` is `mens`), every other run of characters outside
 * `a-z 0-9` one hyphen, none at either end, at most 240 characters. A name with nothing Latin in
 * it makes `product`.
 */
export function slugify(name: string): string {
  const latin = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæøœđðłþıħŋſ]/g, (letter) => LETTERS[letter] ?? letter)
    .replace(/['’‘`]/g, '');
  const slug = latin
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE)
    .replace(/-+$/, '');
  return slug === '' ? 'product' : slug;
}

export function handleTaken(handle: string): AppError {
  const message = `is the handle of another product: "${handle}"`;
  return new AppError('handle_taken', `Another product already has the handle "${handle}".`, {
    errors: [{ field: 'handle', message }],
    extra: { handle },
  });
}

/** Whether a database error is the handle index refusing a row (a concurrent twin took it first). */
export function isHandleViolation(error: unknown): boolean {
  if (!isUniqueViolation(error)) return false;
  const { constraint, message } = error as { constraint?: unknown; message?: unknown };
  return constraint === HANDLE_INDEX || (typeof message === 'string' && message.includes('products.handle'));
}

/** How a new product's handle is decided: `exact` (given: free or 409) or made unique from `base`. */
export interface HandleRequest {
  base: string;
  exact: boolean;
}

/** The smallest free `base`, `base-2`, `base-3`... of those `taken`. */
function firstFree(base: string, taken: ReadonlySet<string>): string {
  let handle = base;
  for (let n = 2; taken.has(handle); n++) handle = `${base}-${n}`;
  return handle;
}

/**
 * Decides the handles of new products of one tenant, in `trx`, before they are written: exact
 * ones must be free (and distinct), `409 handle_taken` naming the first that is not; the others
 * take the first free of their base and its numbered forms, in the order given, none the same.
 * Two reads for the whole batch. Returns the handle of each, in order.
 */
export async function decideHandles(
  trx: Db,
  tenantId: string,
  requests: readonly HandleRequest[],
): Promise<string[]> {
  const exact = requests.filter((request) => request.exact).map((request) => request.base);
  const seen = new Set<string>();
  for (const handle of exact) {
    if (seen.has(handle)) throw handleTaken(handle);
    seen.add(handle);
  }
  const [clash] = await repo.takenHandles(trx, tenantId, exact);
  if (clash !== undefined) throw handleTaken(clash);
  const bases = [...new Set(requests.filter((request) => !request.exact).map((request) => request.base))];
  const taken = new Set([...exact, ...(await repo.numberedHandles(trx, tenantId, bases))]);
  return requests.map((request) => {
    if (request.exact) return request.base;
    const handle = firstFree(request.base, taken);
    taken.add(handle);
    return handle;
  });
}
