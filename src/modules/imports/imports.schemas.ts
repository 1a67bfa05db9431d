import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Nullable, Timestamp } from '../../http/schemas.js';
import {
  CUSTOMERS_CSV_EXAMPLE,
  CUSTOMERS_JSONL_EXAMPLE,
  IMPORT_ERROR_EXAMPLE,
  IMPORT_EXAMPLE,
  QUEUED_IMPORT_EXAMPLE,
} from './imports.examples.js';

export const IMPORT_RESOURCES = ['products', 'customers'] as const;
export const IMPORT_MODES = ['upsert', 'create'] as const;
export const IMPORT_ON_ERROR = ['abort', 'skip'] as const;

/** The most an uploaded file may hold. */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

export const ImportErrorSchema = Type.Object(
  {
    line: Type.Integer({ description: 'The file line, from 1 (a CSV header is line 1).', examples: [3] }),
    column: Nullable(
      Type.String({
        description: 'The column as the file names it; null for the whole row.',
        examples: ['price'],
      }),
    ),
    message: Type.String({ examples: ['must be a whole number, not "12.50"'] }),
  },
  { examples: [IMPORT_ERROR_EXAMPLE] },
);
export type ImportErrorObject = Static<typeof ImportErrorSchema>;

export const ImportSchema = Type.Object(
  {
    id: Type.String({ examples: ['imp_5jVs1bRY4dZ1uV4wX9yA5eG7'] }),
    resource: Type.String({ enum: [...IMPORT_RESOURCES] }),
    format: Type.String({
      enum: ['csv', 'jsonl', 'shopify', 'woocommerce'],
      description:
        '`csv` (our columns), `shopify` (a Shopify product export, in any of its layouts), `woocommerce` (a WooCommerce product export), both told by their header, or `jsonl`. `woocommerce` from version 2027-01-20 (`csv` before).',
    }),
    mode: Type.String({ enum: [...IMPORT_MODES] }),
    dry_run: Type.Boolean(),
    on_error: Type.String({ enum: [...IMPORT_ON_ERROR] }),
    status: Type.String({ enum: ['queued', 'running', 'succeeded', 'failed'] }),
    rows_total: Type.Integer({
      description: 'Data rows in the file (the header not counted), counted as the file is read.',
    }),
    rows_processed: Type.Integer({
      description: 'Rows done: written or refused (a dry run: validated).',
    }),
    created_count: Type.Integer({ description: 'Rows that created a variant or customer.' }),
    updated_count: Type.Integer({ description: 'Rows that changed an existing one.' }),
    unchanged_count: Type.Integer({ description: 'Rows that changed nothing.' }),
    error_count: Type.Integer({ description: 'Errors found; a row may have several.' }),
    errors: Type.Array(ImportErrorSchema, {
      description: 'The first 100 errors, in the order found; `GET /imports/{id}/errors` pages them all.',
    }),
    ignored_columns: Type.Array(Type.String(), {
      description:
        'The columns of another platform’s file (Shopify, WooCommerce) that nothing was read from, as the file names them; empty for our own files, where an unknown column is an error. From version 2027-01-20.',
      examples: [['Image Alt Text', 'Gift Card', 'Google Shopping / Gender']],
    }),
    filename: Nullable(
      Type.String({
        description:
          'The name of the file sent, from the upload’s `Content-Disposition` header (its last path segment); null when the upload named none. From version 2027-01-20.',
        examples: ['products_export_1.csv'],
      }),
    ),
    created: Timestamp,
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
  },
  { examples: [IMPORT_EXAMPLE] },
);

/** The answer of an upload: its example is queued, the file not read yet. */
export const QueuedImportSchema = { ...ImportSchema, examples: [QUEUED_IMPORT_EXAMPLE] };
export type ImportObject = Static<typeof ImportSchema>;

export const CreateImportQuery = Type.Object(
  {
    resource: Type.String({ enum: [...IMPORT_RESOURCES], description: 'What the file holds.' }),
    mode: Type.Optional(
      Type.String({
        enum: [...IMPORT_MODES],
        default: 'upsert',
        description:
          '`upsert` (default): products are matched by variant SKU, customers by email (both case-insensitively), and changed; the others are created. `create`: a row naming an existing one is an error.',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        default: false,
        description: '`true`: validate and count as the import would, and write nothing.',
      }),
    ),
    on_error: Type.Optional(
      Type.String({
        enum: [...IMPORT_ON_ERROR],
        default: 'abort',
        description:
          '`abort` (default): any error and nothing is written (every row is checked before the first is written). `skip`: the good rows are written, the bad ones reported.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateImportQuery = Static<typeof CreateImportQuery>;

/** The upload's name for its file (imports.filename.ts reads it; the schema documents it). */
export const CreateImportHeaders = Type.Object({
  'Content-Disposition': Type.Optional(
    Type.String({
      description:
        'The file’s name, kept as the import’s `filename`: `attachment; filename="products.csv"`, or `attachment; filename*=UTF-8\'\'na%C3%AFve.csv` for a name beyond ASCII (it wins over `filename`). Only the last segment of a path is kept; at most 255 characters, none a control character (400 naming `Content-Disposition` otherwise).',
      examples: ['attachment; filename="products_export_1.csv"'],
    }),
  ),
});

/** The query after its defaults, as the service takes it. */
export interface ImportSettings {
  resource: (typeof IMPORT_RESOURCES)[number];
  mode: (typeof IMPORT_MODES)[number];
  dry_run: boolean;
  on_error: (typeof IMPORT_ON_ERROR)[number];
}

export const ImportListSchema = EnvelopeSchema(ImportSchema);
export const ImportErrorListSchema = EnvelopeSchema(ImportErrorSchema);
export const ImportListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type ImportListQuery = Static<typeof ImportListQuery>;
export const ImportIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const FILE = `The file, at most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB, in UTF-8`;

/**
 * How an upload is sent: its request body, by media type (the route takes the file as it comes;
 * these say what it holds, with an example of each).
 */
export const ImportBodySchema = {
  content: {
    'text/csv': {
      schema: Type.String({
        description: `${FILE}: our columns (those \`GET /exports/{resource}\` writes), or a Shopify product export.`,
        examples: [CUSTOMERS_CSV_EXAMPLE],
      }),
    },
    'application/x-ndjson': {
      schema: Type.String({
        description: `${FILE}: JSON Lines, one object per row with the CSV's columns as fields.`,
        examples: [CUSTOMERS_JSONL_EXAMPLE],
      }),
    },
  },
};
