import { validationError } from './errors.js';

/**
 * Paging: `limit` 1..100 (default 20), `offset` or `page`, and an opaque `cursor` for deep paging.
 * The envelope is `{data, total, page, limit, offset, has_more, next_cursor}`. A cursor carries the
 * sort it was made for, the last row's sort key and id, and the offset it stands for, so the next
 * page is a keyset seek, never an OFFSET scan. The query and envelope schemas that route files
 * declare are in src/http/pagination.ts.
 */

/**
 * The deepest `offset` (and `page`, at most `MAX_OFFSET / limit + 1`): an OFFSET walks every row it
 * skips, so deeper pages are reached by cursor, whose seek costs the same at any depth.
 */
export const MAX_OFFSET = 10_000;
/** The largest number `offset` and `page` accept at all, and the deepest position a cursor holds. */
export const OFFSET_BOUND = 1_000_000_000;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
export const PAGE_BOUND = OFFSET_BOUND / MAX_LIMIT;

/** A list request's paging fields, as the query schema in src/http/pagination.ts validates them. */
export interface PageQuery {
  limit?: number;
  offset?: number;
  page?: number;
  cursor?: string;
}

export type CursorValue = string | number;

export interface Cursor {
  /** The sort the cursor belongs to. */
  sort: string;
  /** The last row's sort value and id. */
  after: [CursorValue, string];
  /** How many rows come before the next page. */
  offset: number;
}

export interface PageWindow {
  limit: number;
  offset: number;
  cursor: Cursor | undefined;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.after[0], cursor.after[1], cursor.offset])).toString(
    'base64url',
  );
}

/** What a sort seeks on: a number (timestamps, prices, counts) or text (names). */
export type SortValueType = 'number' | 'string';

/** Control characters never occur in a value a cursor carries; PostgreSQL refuses NUL in text. */
const CONTROL = /[\u0000-\u001f\u007f]/;

function decodeCursor(raw: string, sort: string, seeksOn: SortValueType): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw validationError('cursor', 'is not a cursor this API issued');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== 'string' ||
    !(typeof parsed[1] === 'string' || Number.isSafeInteger(parsed[1])) ||
    typeof parsed[2] !== 'string' ||
    CONTROL.test(parsed[2]) ||
    !Number.isSafeInteger(parsed[3]) ||
    (parsed[3] as number) < 0 ||
    // Positions this API hands out stay within what a list can hold.
    (parsed[3] as number) > OFFSET_BOUND + MAX_LIMIT
  ) {
    throw validationError('cursor', 'is not a cursor this API issued');
  }
  if (parsed[0] !== sort)
    throw validationError('cursor', `was issued for sort "${parsed[0]}", not "${sort}"`);
  // A sort value of the other type (or text with control characters) would reach the query as a
  // comparison the database refuses or answers with a meaningless page.
  if (typeof parsed[1] !== seeksOn || (typeof parsed[1] === 'string' && CONTROL.test(parsed[1]))) {
    throw validationError('cursor', 'is not a cursor this API issued');
  }
  return { sort, after: [parsed[1] as CursorValue, parsed[2] as string], offset: parsed[3] as number };
}

/**
 * Resolves `limit`, `offset`/`page` and `cursor` into one window; 400 names a bad field. `seeksOn`
 * is the type of the sort's values (creation time, price and counts are numbers; names are text).
 */
export function pageWindow(query: PageQuery, sort: string, seeksOn: SortValueType = 'number'): PageWindow {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (query.cursor !== undefined) {
    if (query.offset !== undefined || query.page !== undefined) {
      throw validationError('cursor', 'cannot be combined with offset or page');
    }
    const cursor = decodeCursor(query.cursor, sort, seeksOn);
    return { limit, offset: cursor.offset, cursor };
  }
  if (query.offset !== undefined && query.page !== undefined && query.offset !== (query.page - 1) * limit) {
    throw validationError('page', 'disagrees with offset; send one of them');
  }
  const offset = query.offset ?? ((query.page ?? 1) - 1) * limit;
  if (offset > MAX_OFFSET) {
    throw query.offset !== undefined
      ? validationError(
          'offset',
          `must be at most ${MAX_OFFSET.toLocaleString('en')}: page deeper with cursor (each page's next_cursor)`,
        )
      : validationError(
          'page',
          `must be at most ${MAX_OFFSET.toLocaleString('en')} / limit + 1 (${Math.floor(MAX_OFFSET / limit) + 1} at limit ${limit}): page deeper with cursor (each page's next_cursor)`,
        );
  }
  return { limit, offset, cursor: undefined };
}

export interface Envelope<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  offset: number;
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Builds the envelope from `limit + 1` fetched rows. `keyOf` gives a row's sort value and id for
 * the next cursor.
 */
export function envelope<Row, T>(
  rows: Row[],
  total: number,
  window: PageWindow,
  sort: string,
  keyOf: (row: Row) => [CursorValue, string],
  present: (row: Row) => T,
): Envelope<T> {
  const hasMore = rows.length > window.limit;
  const pageRows = hasMore ? rows.slice(0, window.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(present),
    total,
    page: Math.floor(window.offset / window.limit) + 1,
    limit: window.limit,
    offset: window.offset,
    has_more: hasMore,
    next_cursor:
      hasMore && last !== undefined
        ? encodeCursor({ sort, after: keyOf(last), offset: window.offset + pageRows.length })
        : null,
  };
}

/**
 * The envelope of a newest-first page (`newestFirst` in src/db/pagination.ts: by `created`, ties
 * broken by id), for a window from `pageWindow(query, 'created')`.
 */
export function newestFirstEnvelope<Row extends { created: number; id: string }, T>(
  rows: Row[],
  total: number,
  window: PageWindow,
  present: (row: Row) => T,
): Envelope<T> {
  return envelope(rows, total, window, 'created', (row) => [row.created, row.id], present);
}
