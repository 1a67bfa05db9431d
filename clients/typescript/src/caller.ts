import type { Client } from 'openapi-fetch';
import { CommerceApiError } from './errors.js';
import { type ApiOperationId, OPERATIONS } from './generated/operations.js';
import type { paths } from './generated/schema.js';
import { PagedList } from './pagination.js';
import type { RequestOptions } from './request-options.js';
import type { PagedOperationId, PageOf, Result } from './types.js';

/** What a generated namespace method passes: the operation's parameters and body. */
export interface OperationInput {
  path?: Record<string, string>;
  query?: object;
  body?: unknown;
}

/** Performs operations by `operationId` (the generated namespaces call it). */
export interface Caller {
  one<K extends ApiOperationId>(id: K, input: OperationInput, options?: RequestOptions): Promise<Result<K>>;
  list<K extends PagedOperationId>(
    id: K,
    input: OperationInput,
    options?: RequestOptions,
  ): PagedList<PageOf<K>>;
}

interface UntypedInit {
  params: { path?: Record<string, string>; query?: object };
  body?: unknown;
  headers: Record<string, string>;
  bodySerializer?: (body: unknown) => unknown;
  parseAs: 'text';
  signal?: AbortSignal;
}

type UntypedRequest = (
  method: string,
  path: string,
  init: UntypedInit,
) => Promise<{ data?: string; error?: unknown; response: Response }>;

function isJson(type: string | undefined): boolean {
  return type !== undefined && /[/+]json\b/.test(type);
}

/** The answer's body: parsed JSON, text for other types (CSV, JSON Lines), undefined when empty. */
function decode(response: Response, text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  return isJson(response.headers.get('content-type') ?? undefined) ? JSON.parse(text) : text;
}

function isPage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as { data?: unknown }).data);
}

/**
 * The caller over the openapi-fetch client (so `client.api`'s middleware and retries apply): one
 * call per operation, its error thrown as a CommerceApiError; a list's pages followed by cursor.
 */
export function createCaller(api: Client<paths>): Caller {
  // The generated table names exactly the methods and paths of `paths` (both come from the same
  // document), which the per-operation types of the namespaces already check.
  const request = api.request as unknown as UntypedRequest;

  async function one(
    id: ApiOperationId,
    input: OperationInput,
    options: RequestOptions = {},
  ): Promise<unknown> {
    const spec = OPERATIONS[id];
    const headers: Record<string, string> = { ...options.headers };
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    const init: UntypedInit = {
      params: { path: input.path, query: input.query },
      headers,
      parseAs: 'text',
      ...(options.signal ? { signal: options.signal } : {}),
    };
    if (spec.requestTypes.length > 0) {
      const type = options.contentType ?? spec.requestTypes[0];
      if (isJson(type)) {
        init.body = input.body ?? {};
      } else {
        // A file (CSV, JSON Lines): sent as given, with its media type.
        init.body = input.body;
        init.bodySerializer = (body) => body;
        headers['Content-Type'] = type ?? 'application/octet-stream';
      }
    }
    const { data, error, response } = await request(spec.method, spec.path, init);
    if (!response.ok) throw new CommerceApiError(response, error);
    return decode(response, data);
  }

  function list(id: PagedOperationId, input: OperationInput, options?: RequestOptions) {
    const query = { ...input.query } as Record<string, unknown>;
    return new PagedList(async (cursor: string | undefined) => {
      const pageQuery =
        cursor === undefined ? query : { ...query, offset: undefined, page: undefined, cursor };
      const page = await one(id, { ...input, query: pageQuery }, options);
      if (!isPage(page)) {
        throw new TypeError(`${id} did not answer with a page of a list (use client.api for other formats)`);
      }
      return page as { data: unknown[]; has_more: boolean; next_cursor: string | null };
    });
  }

  // `one` and `list` are the typed methods of Caller, written over the untyped request above.
  return { one, list } as unknown as Caller;
}
