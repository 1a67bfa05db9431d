/**
 * What the import routes take and answer, for the OpenAPI document: a customer file of three rows
 * imported with `on_error=skip`, one row refused by line and column.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

export const CUSTOMERS_CSV_EXAMPLE = [
  'email,name,phone,tags,address_line1,address_city,address_postal_code,address_country',
  'grace@example.com,Grace Hopper,+12025550143,vip,1 Navy Yard,Washington,20374,US',
  'alan@example.com,Alan Turing,,,"Bletchley Park, Sherwood Dr",Milton Keynes,MK3 6EB,GB',
  'katherine@example,Katherine Johnson,+17575550188,,,,,',
  '',
].join('\r\n');

export const CUSTOMERS_JSONL_EXAMPLE = [
  '{"email":"grace@example.com","name":"Grace Hopper","phone":"+12025550143","tags":["vip"]}',
  '{"email":"alan@example.com","name":"Alan Turing","address_line1":"Bletchley Park, Sherwood Dr","address_city":"Milton Keynes","address_postal_code":"MK3 6EB","address_country":"GB"}',
  '',
].join('\n');

export const IMPORT_ERROR_EXAMPLE = {
  line: 4,
  column: 'email',
  message: 'must be an email address',
};

export const IMPORT_EXAMPLE = {
  id: 'imp_hqdOTnGnpxuKKCkQFcwdGptB',
  resource: 'customers',
  format: 'csv',
  mode: 'upsert',
  dry_run: false,
  on_error: 'skip',
  status: 'succeeded',
  rows_total: 3,
  rows_processed: 3,
  created_count: 2,
  updated_count: 0,
  unchanged_count: 0,
  error_count: 1,
  errors: [IMPORT_ERROR_EXAMPLE],
  ignored_columns: [],
  filename: 'customers.csv',
  created: '2026-11-27T08:05:31.640Z',
  started_at: '2026-11-27T08:05:31.702Z',
  finished_at: '2026-11-27T08:05:31.955Z',
};

/** The answer of `POST /imports`: queued, the file not read yet. */
export const QUEUED_IMPORT_EXAMPLE = {
  ...IMPORT_EXAMPLE,
  status: 'queued',
  rows_total: 0,
  rows_processed: 0,
  created_count: 0,
  error_count: 0,
  errors: [],
  started_at: null,
  finished_at: null,
};
