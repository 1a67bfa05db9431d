import { Type } from 'typebox';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, OFFSET_BOUND, PAGE_BOUND } from '../lib/paging.js';

/**
 * The schemas of a list route: the paging query fields and the envelope around an item schema.
 * What they mean (windows, cursors, the envelope's values) is in src/lib/paging.ts.
 */

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `1 to ${MAX_LIMIT}.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: OFFSET_BOUND,
      description: `Rows to skip, at most ${MAX_OFFSET.toLocaleString('en')} (deeper: \`cursor\`).`,
    }),
  ),
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_BOUND,
      description: `1-based page, an alternative to \`offset\`: at most ${MAX_OFFSET.toLocaleString('en')} / limit + 1 (deeper: \`cursor\`).`,
    }),
  ),
  cursor: Type.Optional(
    // Long enough for the longest sort value a cursor carries: a 200-character name.
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Opaque; `next_cursor` of the previous page.',
    }),
  ),
};

/**
 * The envelope's schema around an item schema. Its example (for the OpenAPI document) is the first
 * page of a list of one: the item's own example.
 */
export function EnvelopeSchema<T extends Parameters<typeof Type.Array>[0]>(item: T) {
  const { examples } = item as { examples?: unknown };
  const [example] = Array.isArray(examples) ? (examples as unknown[]) : [];
  return Type.Object(
    {
      data: Type.Array(item),
      total: Type.Integer({ description: 'Exact number of matching items.' }),
      page: Type.Integer({ description: 'floor(offset / limit) + 1' }),
      limit: Type.Integer(),
      offset: Type.Integer(),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next page.',
      }),
    },
    example === undefined
      ? {}
      : {
          examples: [
            {
              data: [example],
              total: 1,
              page: 1,
              limit: DEFAULT_LIMIT,
              offset: 0,
              has_more: false,
              next_cursor: null,
            },
          ],
        },
  );
}
