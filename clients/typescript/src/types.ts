import type { ApiOperationId, OPERATIONS } from './generated/operations.js';
import type { operations } from './generated/schema.js';

/**
 * Types of each operation's input and answer, by `operationId`, read from the generated schema
 * (so they follow the OpenAPI document whatever its layout).
 */

type Operation<K extends ApiOperationId> = operations[K];
type Responses<K extends ApiOperationId> = Operation<K>['responses'];
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206;

/** The body of a response object: its one media type's schema, or the union of several. */
export type ContentOf<R> = R extends { content: infer C }
  ? C extends object
    ? C[keyof C]
    : undefined
  : undefined;

/** The success answer's body (a string for CSV and JSON Lines; undefined for 204). */
export type Result<K extends ApiOperationId> = ContentOf<
  Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]
>;

/** The query parameters. */
export type Query<K extends ApiOperationId> = NonNullable<Operation<K>['parameters']['query']>;

/** The request body. */
export type Body<K extends ApiOperationId> =
  Operation<K> extends { requestBody?: infer B } ? ContentOf<NonNullable<B>> : never;

/** The operations that answer with a page of a list. */
export type PagedOperationId = {
  [K in ApiOperationId]: (typeof OPERATIONS)[K]['paged'] extends true ? K : never;
}[ApiOperationId];

/** A page of a list: the envelope every list answers with. */
export interface ListPage<Item> {
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The page of a paged operation (its JSON answer, not a CSV variant of it). */
export type PageOf<K extends PagedOperationId> = Extract<Result<K>, ListPage<unknown>>;

/** One item of a paged operation's list. */
export type ItemOf<K extends PagedOperationId> = PageOf<K>['data'][number];

/** Every problem document (RFC 9457) an operation of the API documents. */
export type Problem = {
  [K in ApiOperationId]: ContentOf<Responses<K>[Exclude<keyof Responses<K>, SuccessStatus>]>;
}[ApiOperationId];

/** The stable machine codes of errors. */
export type ProblemCode = Problem['code'];
