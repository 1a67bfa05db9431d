/** What the client knows of one operation at run time (the generated OPERATIONS table holds one per id). */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path, with `{name}` parameters. */
  path: string;
  tag: string;
  /** The client's namespace and method for it (`products`, `list`). */
  namespace: string;
  name: string;
  /** A list answered with `{data, has_more, next_cursor, ...}`, which the client pages through. */
  paged: boolean;
  /** Media types of the request body, the default first; empty when the operation takes none. */
  requestTypes: readonly string[];
}
