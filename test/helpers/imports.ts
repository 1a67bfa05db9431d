import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import type { ImportErrorObject, ImportObject } from '../../src/modules/imports/imports.schemas.js';
import type { ApiResponse, Client, TestContext } from './context.js';
import type { OrProblem, Page } from './responses.js';

/** Imports and exports as tests drive them: upload a file, run the queue, read the outcome. */

export const CSV = 'text/csv';
export const JSONL = 'application/x-ndjson';

/** Uploads `body` as the file of an import with `query` (e.g. `resource=products&on_error=skip`). */
export async function upload(
  ctx: TestContext,
  key: string,
  query: string,
  body: string | Buffer | Readable,
  contentType: string = CSV,
  headers: Record<string, string> = {},
): Promise<ApiResponse<OrProblem<ImportObject>>> {
  const raw = await ctx.app.inject({
    method: 'POST',
    url: `/v1/imports?${query}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers },
    payload: body,
  });
  const text = raw.body;
  const parsed = text === '' ? undefined : (JSON.parse(text) as OrProblem<ImportObject>);
  return { status: raw.statusCode, headers: raw.headers, body: parsed as OrProblem<ImportObject>, raw };
}

/** Uploads a file (202 expected), runs every queued import, and answers this one as it ended. */
export async function importFile(
  ctx: TestContext,
  key: string,
  query: string,
  body: string | Buffer,
  contentType: string = CSV,
): Promise<ImportObject> {
  const res = await upload(ctx, key, query, body, contentType);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  await ctx.deps.importRunner.drain();
  return importOf(ctx, key, res.body.id);
}

export async function importOf(ctx: TestContext, key: string, id: string): Promise<ImportObject> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/v1/imports/${id}`,
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<ImportObject>();
}

/** Every error of an import, through its paged list. */
export async function allErrors(api: Client, id: string): Promise<ImportErrorObject[]> {
  const out: ImportErrorObject[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse<Page<ImportErrorObject>> = await api<Page<ImportErrorObject>>(
      'GET',
      `/v1/imports/${id}/errors?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(page.status, 200);
    // Each error says the mode it was read in (a live store's here), then is compared without it.
    for (const { livemode, ...error } of page.body.data as (ImportErrorObject & { livemode?: boolean })[]) {
      assert.equal(livemode, true);
      out.push(error);
    }
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

/** The export of `resource` as its body text. */
export async function exportOf(
  ctx: TestContext,
  key: string,
  resource: string,
  format = 'csv',
): Promise<string> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/v1/exports/${resource}?format=${format}`,
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

/** Rows in `table` (all tenants). */
export async function count(
  ctx: TestContext,
  table: 'products' | 'product_variants' | 'customers' | 'events' | 'imports' | 'import_chunks',
): Promise<number> {
  const { n } = await ctx.deps.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** A CSV from rows of cells (quoted where needed), header first. */
export function csv(rows: (string | number)[][]): string {
  return rows
    .map((row) =>
      row
        .map((cell) => {
          const text = String(cell);
          return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
        })
        .join(','),
    )
    .join('\n')
    .concat('\n');
}
