import { expressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { PageWindow } from '../lib/paging.js';
import type { Database } from './schema.js';

/** The columns `newestFirst` sorts and seeks on. */
interface Dated {
  created: number;
  id: string;
}

/** The tables whose rows are `Dated`. */
type DatedTable = { [T in keyof Database]: Database[T] extends Dated ? T : never }[keyof Database];

/**
 * One page of a list, newest first with ties broken by id, `limit + 1` rows (the extra row tells
 * `envelope` there is more): a keyset seek past the cursor's (created, id), else OFFSET.
 * Use as `query.$call(newestFirst(window))`.
 */
export function newestFirst(window: PageWindow) {
  return <TB extends DatedTable, O>(
    query: SelectQueryBuilder<Database, TB, O>,
  ): SelectQueryBuilder<Database, TB, O> => {
    let page = query;
    if (window.cursor) {
      const [created, id] = window.cursor.after;
      // Kysely cannot resolve a generic table's column types, so the seek is typed against the
      // `Dated` columns every such table has; it is the same SQL either way.
      const eb = expressionBuilder<{ row: Dated }, 'row'>();
      page = page.where(eb(eb.refTuple('created', 'id'), '<', eb.tuple(Number(created), id)));
    } else if (window.offset > 0) {
      page = page.offset(window.offset);
    }
    return page
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(window.limit + 1);
  };
}
