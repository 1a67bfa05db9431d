import type { Db } from '../../db/store.js';
import { normaliseAddress } from '../../lib/addresses.js';
import type { TenantRef } from '../products/index.js';
import type { EventService } from '../events/index.js';
import {
  type CustomerRow,
  CreateCustomerBody,
  type UpdateCustomerBody,
  changedColumns,
  customerChanges,
  insertCustomer,
  newCustomerRow,
  updateCustomerIn,
} from '../customers/index.js';
import type { Address } from '../customers/index.js';
import { ADDRESS_FIELDS, CUSTOMER_COLUMNS, CUSTOMER_OWN_COLUMNS } from '../exports/index.js';
import type { Outcome } from './imports.products.js';
import * as repo from './imports.repository.js';
import { type FileRow, type RowError, RowReader } from './imports.rows.js';
import { compileCheck, isConflict } from './imports.validate.js';

/**
 * Customers from a file, a customer at a time: its rows (one per address, sharing an email) are
 * checked as `POST /customers` checks a body, matched by email (case-insensitively), then created
 * (`insertCustomer`) or changed (`updateCustomerIn`), with their usual events, in the caller's
 * transaction. A customer is imported whole or not at all: an error on any of its rows keeps it out.
 */

export interface CustomerOwn {
  name?: string | null;
  phone?: string | null;
  tags?: string[] | null;
  note?: string | null;
  marketing_consent?: boolean | null;
  metadata?: Record<string, string> | null;
}

export interface CustomerLine {
  n: number;
  line: number;
  email: string | null;
  own: CustomerOwn;
  ownText: Map<string, string>;
  /** The row's address: undefined without address columns, null when its address cells are empty. */
  address: Partial<Address> | null | undefined;
  errors: RowError[];
}

export interface CustomerGroup {
  lines: CustomerLine[];
  input: CreateCustomerBody | undefined;
  /** Whether the file has address columns (the customer's addresses are then the file's). */
  addressesStated: boolean;
}

const COLUMN_SET: ReadonlySet<string> = new Set(CUSTOMER_COLUMNS);
const checkCustomer = compileCheck(CreateCustomerBody);

export function customerHeaderErrors(columns: readonly string[]): RowError[] {
  const errors: RowError[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column)) errors.push({ line: 1, column, message: 'appears twice in the header' });
    seen.add(column);
    if (!COLUMN_SET.has(column)) {
      errors.push({
        line: 1,
        column,
        message:
          column === 'Handle'
            ? 'is a column of a Shopify product export: import it with resource=products'
            : `is not a column of a customers file (the columns are ${CUSTOMER_COLUMNS.join(', ')})`,
      });
    }
  }
  if (!seen.has('email')) {
    errors.push({
      line: 1,
      column: 'email',
      message:
        'is missing from the header: every customers file has an email column, which identifies the customer',
    });
  }
  return errors;
}

export function readCustomerLine(row: FileRow): CustomerLine {
  const reader = new RowReader(row);
  let address: Partial<Address> | null | undefined;
  if (ADDRESS_FIELDS.some((field) => reader.has(`address_${field}`))) {
    const fields: Record<string, string> = {};
    for (const field of ADDRESS_FIELDS) {
      const value =
        field === 'country' || field === 'postal_code'
          ? reader.trimmed(`address_${field}`)
          : reader.text(`address_${field}`);
      if (typeof value === 'string') fields[field] = value;
    }
    address = Object.keys(fields).length === 0 ? null : (fields as Partial<Address>);
  }
  const ownText = new Map<string, string>();
  for (const column of CUSTOMER_OWN_COLUMNS) {
    const value = row.cells.get(column);
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.trim() !== '' && text !== '{}') ownText.set(column, text);
  }
  const line: CustomerLine = {
    n: row.n,
    line: row.line,
    email: reader.trimmed('email') ?? null,
    own: {
      name: reader.text('name'),
      phone: reader.trimmed('phone'),
      tags: reader.list('tags'),
      note: reader.text('note'),
      marketing_consent: reader.boolean('marketing_consent'),
      metadata: reader.object('metadata'),
    },
    ownText,
    address,
    errors: reader.errors,
  };
  if (row.problem) line.errors.unshift(row.problem);
  for (const key of row.cells.keys()) {
    if (!COLUMN_SET.has(key))
      line.errors.push({ line: row.line, column: key, message: 'is not a column of a customers file' });
  }
  return line;
}

function fail(line: CustomerLine, column: string | null, message: string): void {
  line.errors.push({ line: line.line, column, message });
}

/** The request `POST /customers` would get for these rows (the fields the file states). */
function inputOf(lines: CustomerLine[], addressesStated: boolean): Record<string, unknown> {
  const first = lines[0] as CustomerLine;
  const own = first.own;
  const input: Record<string, unknown> = { email: first.email };
  if (own.name !== undefined) input.name = own.name;
  if (own.phone !== undefined) input.phone = own.phone;
  if (own.tags !== undefined) input.tags = own.tags ?? [];
  if (own.note !== undefined) input.note = own.note;
  if (typeof own.marketing_consent === 'boolean') input.marketing_consent = own.marketing_consent;
  if (own.metadata !== undefined) input.metadata = own.metadata ?? {};
  if (addressesStated) {
    input.addresses = lines.flatMap((line) => (line.address ? [line.address] : []));
  }
  return input;
}

/** Rows gathered into customers by email (a customer's rows next to each other), checked as a body is. */
export class CustomerGrouper {
  private open: CustomerLine[] = [];
  private readonly closed = new Map<string, number>();

  push(line: CustomerLine): CustomerGroup[] {
    const done: CustomerGroup[] = [];
    const key = line.email?.toLowerCase();
    const current = this.open[0]?.email?.toLowerCase();
    if (key === undefined || key !== current) {
      if (this.open.length > 0) done.push(this.close());
    }
    if (key === undefined) {
      if (line.errors.length === 0) fail(line, 'email', 'is required: it identifies the customer');
      done.push({ lines: [line], input: undefined, addressesStated: false });
      return done;
    }
    if (this.open.length === 0) {
      const earlier = this.closed.get(key);
      if (earlier !== undefined) {
        fail(
          line,
          'email',
          `repeats the email of line ${earlier}: the rows of one customer must be next to each other`,
        );
        done.push({ lines: [line], input: undefined, addressesStated: false });
        return done;
      }
    }
    this.open.push(line);
    return done;
  }

  end(): CustomerGroup[] {
    return this.open.length > 0 ? [this.close()] : [];
  }

  private close(): CustomerGroup {
    const lines = this.open;
    this.open = [];
    const [first, ...rest] = lines as [CustomerLine, ...CustomerLine[]];
    this.closed.set((first.email as string).toLowerCase(), first.line);
    for (const line of rest) {
      for (const [column, text] of line.ownText) {
        if (first.ownText.get(column) !== text) {
          fail(
            line,
            column,
            `differs from the customer's first row (line ${first.line}): leave the customer's columns empty on its other rows`,
          );
        }
      }
    }
    const addressesStated = lines.some((line) => line.address !== undefined);
    const withAddress = lines.filter((line) => line.address);
    const input = inputOf(lines, addressesStated);
    for (const { field, message } of checkCustomer(input)) {
      const at = /^addresses\[(\d+)\]\.?([a-z0-9_]*)/.exec(field);
      if (at) {
        const line = withAddress[Number(at[1])] ?? first;
        fail(line, `address_${at[2] || 'line1'}`, message);
      } else if (field === 'addresses') {
        fail(withAddress[withAddress.length - 1] ?? first, 'address_line1', message);
      } else {
        fail(first, /^[^.[]*/.exec(field)?.[0] ?? field, message);
      }
    }
    // The addresses as `POST /customers` stores them (src/lib/addresses.ts): a country that is no
    // ISO 3166-1 code or a state its country does not have is the line's error.
    const stored = withAddress.map((line) => {
      const address = line.address as Partial<Address>;
      const country = address.country;
      if (line.errors.length > 0 || typeof country !== 'string') return address;
      const result = normaliseAddress({ ...address, country });
      if (result.ok) return result.address;
      fail(line, `address_${result.field}`, result.message);
      return address;
    });
    if (addressesStated) input.addresses = stored;
    const bad = lines.find((line) => line.errors.length > 0);
    if (bad !== undefined) {
      for (const line of lines) {
        if (line.errors.length === 0)
          fail(line, null, `not imported: line ${bad.line} of this customer has errors`);
      }
      return { lines, input: undefined, addressesStated };
    }
    return { lines, input: input as CreateCustomerBody, addressesStated };
  }
}

type Action =
  | { kind: 'create'; row: CustomerRow }
  | { kind: 'update'; before: CustomerRow; changes: Partial<CustomerRow> };

export interface CustomerPlan {
  outcomes: { line: CustomerLine; outcome: Outcome }[];
  errors: RowError[];
  action: Action | undefined;
}

export interface CustomerPlanContext {
  db: Db;
  tenant: TenantRef;
  mode: 'upsert' | 'create';
  now: number;
  lock: boolean;
  known: ReadonlySet<number>;
}

export async function planCustomer(ctx: CustomerPlanContext, group: CustomerGroup): Promise<CustomerPlan> {
  const errors = () => group.lines.flatMap((line) => line.errors);
  const input = group.input;
  const first = group.lines[0] as CustomerLine;
  if (input === undefined || group.lines.some((line) => ctx.known.has(line.line))) {
    return { outcomes: [], errors: errors(), action: undefined };
  }
  const skip = (message: string): CustomerPlan => {
    fail(first, 'email', message);
    for (const line of group.lines.slice(1))
      fail(line, null, `not imported: line ${first.line} of this customer has errors`);
    return { outcomes: [], errors: errors(), action: undefined };
  };
  const [before] = await repo.customersByEmailKeys(
    ctx.db,
    ctx.tenant.id,
    [input.email.toLowerCase()],
    ctx.lock,
  );
  const all = (outcome: Outcome) => group.lines.map((line) => ({ line, outcome }));
  if (before === undefined) {
    return {
      outcomes: all('created'),
      errors: [],
      action: { kind: 'create', row: newCustomerRow(ctx.tenant.id, input, ctx.now) },
    };
  }
  if (ctx.mode === 'create') {
    return skip(
      `is the email of customer ${before.id} (compared case-insensitively): mode=create adds new customers only (mode=upsert changes existing ones)`,
    );
  }
  if (before.redacted === 1)
    return skip(`is the email of customer ${before.id}, which was redacted and cannot be changed`);
  const update: UpdateCustomerBody = { ...input };
  // Consent stays as it is unless the file says; a new customer's default is no consent.
  if (first.own.marketing_consent === undefined || first.own.marketing_consent === null) {
    delete update.marketing_consent;
  }
  const changes = changedColumns(before, customerChanges(update));
  // An empty cell is an empty note, whether the store holds it as null or as "".
  if (changes.note === null && before.note === '') delete changes.note;
  if (Object.keys(changes).length === 0) return { outcomes: all('unchanged'), errors: [], action: undefined };
  return { outcomes: all('updated'), errors: [], action: { kind: 'update', before, changes } };
}

/** Writes a plan in `trx`; an email taken meanwhile becomes an error of the customer's first row. */
export async function applyCustomer(
  trx: Db,
  events: EventService,
  plan: CustomerPlan,
  lines: readonly CustomerLine[],
  now: number,
): Promise<RowError[]> {
  const action = plan.action;
  if (action === undefined) return [];
  try {
    if (action.kind === 'create') await insertCustomer(trx, events, action.row);
    else await updateCustomerIn(trx, events, action.before, action.changes, now);
    return [];
  } catch (error) {
    if (!isConflict(error)) throw error;
    const first = lines[0];
    return first ? [{ line: first.line, column: 'email', message: error.detail }] : [];
  }
}
