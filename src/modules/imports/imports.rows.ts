import secureJson from 'secure-json-parse';
import { type CellValue, splitList, unescapeFormula } from '../exports/index.js';
import { csvRecords, textLines } from './imports.source.js';

/**
 * A file as data rows of named cells, whatever its format: a CSV's header names its columns, a
 * JSON Lines object's keys do. A row keeps the file line it starts on and its number among the
 * data rows (`n`, from 1), which is what an import's progress counts. `RowReader` reads a row's
 * cells as the API's types, collecting an error in words for each cell it cannot read.
 */

/** An error of an import: the file line (the header is line 1) and the column, or null for the row. */
export interface RowError {
  line: number;
  column: string | null;
  message: string;
}

export interface FileRow {
  kind: 'row';
  n: number;
  line: number;
  /** The row's cells by column; a column the file does not have is absent. */
  cells: ReadonlyMap<string, CellValue>;
  /** What makes the row unreadable as a whole (not JSON, more values than columns). */
  problem: RowError | null;
}

export interface FileHeader {
  kind: 'header';
  columns: string[];
}

/** The rest of the file cannot be read. */
export interface FileEnd {
  kind: 'unreadable';
  error: RowError;
}

export type FileItem = FileHeader | FileRow | FileEnd;

export type FileFormat = 'csv' | 'jsonl' | 'shopify' | 'woocommerce';

/**
 * The rows of a file. A CSV yields its header first; `csv` is our own format, whose cells may carry
 * the `'` an export puts before text a spreadsheet would run as a formula (taken off here).
 */
export async function* fileRows(format: FileFormat, chunks: AsyncIterable<Buffer>): AsyncGenerator<FileItem> {
  let n = 0;
  if (format === 'jsonl') {
    for await (const { line, text } of textLines(chunks)) {
      n += 1;
      yield jsonRow(n, line, text);
    }
    return;
  }
  let header: string[] | undefined;
  for await (const record of csvRecords(chunks)) {
    if (record.kind === 'unreadable') {
      yield { kind: 'unreadable', error: { line: record.line, column: null, message: record.message } };
      return;
    }
    if (header === undefined) {
      header = record.fields.map((name) => name.trim());
      yield { kind: 'header', columns: header };
      continue;
    }
    n += 1;
    const cells = new Map<string, CellValue>();
    header.forEach((column, index) => {
      const text = record.fields[index] ?? '';
      cells.set(column, format === 'csv' ? unescapeFormula(text) : text);
    });
    let problem: RowError | null = null;
    const extra = record.fields.slice(header.length).filter((field) => field.trim() !== '');
    if (extra.length > 0) {
      problem = {
        line: record.line,
        column: null,
        message: `has ${record.fields.length} values but the header names ${header.length} columns`,
      };
    } else if (record.fields.length < header.length) {
      problem = {
        line: record.line,
        column: header[record.fields.length] ?? null,
        message: `has ${record.fields.length} values but the header names ${header.length} columns`,
      };
    }
    yield { kind: 'row', n, line: record.line, cells, problem };
  }
}

function isCellValue(value: unknown): value is CellValue {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string');
  if (typeof value === 'object') {
    // An object of texts (`attributes`), or of numbers (`stock_by_location`, units by location).
    const items = Object.values(value);
    return items.every((item) => typeof item === 'string') || items.every((item) => typeof item === 'number');
  }
  return false;
}

function jsonRow(n: number, line: number, text: string): FileRow {
  const cells = new Map<string, CellValue>();
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    return { kind: 'row', n, line, cells, problem: { line, column: null, message: 'is not valid JSON' } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'row', n, line, cells, problem: { line, column: null, message: 'is not a JSON object' } };
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isCellValue(item)) {
      return {
        kind: 'row',
        n,
        line,
        cells,
        problem: {
          line,
          column: key,
          message:
            'must be text, a number, true or false, a list of texts, an object of texts or of numbers, or null',
        },
      };
    }
    cells.set(key, item);
  }
  return { kind: 'row', n, line, cells, problem: null };
}

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/**
 * Reads the cells of one row as typed values. Each reader answers `undefined` for a column the
 * file does not have, `null` for an empty cell, or the value. A cell it cannot read adds an error
 * naming the column as the file does (`columnOf`), and is answered as absent.
 */
export class RowReader {
  readonly errors: RowError[] = [];

  constructor(
    private readonly row: FileRow,
    private readonly columnOf: (field: string) => string = (field) => field,
  ) {}

  get line(): number {
    return this.row.line;
  }

  /** Whether the file has this column (for this row: a JSON object may leave a key out). */
  has(field: string): boolean {
    return this.row.cells.has(this.columnOf(field));
  }

  raw(field: string): CellValue | undefined {
    return this.row.cells.get(this.columnOf(field));
  }

  fail(field: string | null, message: string): undefined {
    this.errors.push({ line: this.row.line, column: field === null ? null : this.columnOf(field), message });
    return undefined;
  }

  /** Text as it is; an empty cell is null. */
  text(field: string): string | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null || value === '') return value === undefined ? undefined : null;
    if (typeof value !== 'string') return this.fail(field, 'must be text');
    return value;
  }

  /** Text without the space around it (codes, SKUs, emails). */
  trimmed(field: string): string | null | undefined {
    const value = this.text(field);
    if (typeof value !== 'string') return value;
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }

  /** A whole number, written with digits only (an optional sign). */
  integer(field: string): number | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null) return value;
    if (typeof value === 'number') {
      return Number.isSafeInteger(value) ? value : this.fail(field, `must be a whole number, not ${value}`);
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a whole number');
    const text = value.trim();
    if (text === '') return null;
    if (!/^[+-]?\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
      return this.fail(field, `must be a whole number, not "${shown(text)}"`);
    }
    return Number(text);
  }

  /** A list (`a, b, "c, d"` in a CSV cell; a JSON array); empty: null. */
  list(field: string): string[] | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null) return value;
    if (Array.isArray(value)) return value.length === 0 ? null : [...(value as string[])];
    if (typeof value !== 'string') return this.fail(field, 'must be a list of texts');
    const items = splitList(value);
    return items.length === 0 ? null : items;
  }

  /** An object of text values: JSON in a CSV cell; empty: null. */
  object(field: string): Record<string, string> | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null) return value;
    let parsed: unknown = value;
    if (typeof value === 'string') {
      if (value.trim() === '') return null;
      try {
        parsed = secureJson.parse(value, undefined, { protoAction: 'error', constructorAction: 'error' });
      } catch {
        return this.fail(field, 'must be a JSON object of texts, such as {"color": "black"}');
      }
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      !Object.values(parsed).every((item) => typeof item === 'string')
    ) {
      return this.fail(field, 'must be a JSON object of texts, such as {"color": "black"}');
    }
    return Object.keys(parsed).length === 0 ? null : (parsed as Record<string, string>);
  }

  /** An object of whole numbers from 0 (units by name): JSON in a CSV cell; empty: null. */
  counts(field: string): Record<string, number> | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null) return value;
    const message = 'must be a JSON object of whole numbers from 0, such as {"Default location": 3}';
    let parsed: unknown = value;
    if (typeof value === 'string') {
      if (value.trim() === '') return null;
      try {
        parsed = secureJson.parse(value, undefined, { protoAction: 'error', constructorAction: 'error' });
      } catch {
        return this.fail(field, message);
      }
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      !Object.values(parsed).every((item) => Number.isSafeInteger(item) && (item as number) >= 0)
    ) {
      return this.fail(field, message);
    }
    return Object.keys(parsed).length === 0 ? null : (parsed as Record<string, number>);
  }

  /** true/false (also yes/no and 1/0, in any case); empty: null. */
  boolean(field: string): boolean | null | undefined {
    const value = this.raw(field);
    if (value === undefined || value === null || typeof value === 'boolean') return value;
    if (typeof value !== 'string') return this.fail(field, 'must be true or false');
    const word = value.trim().toLowerCase();
    if (word === '') return null;
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return this.fail(field, `must be true or false, not "${shown(value)}"`);
  }
}

/** A cell's text as an error message repeats it: at most 40 characters. */
export function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
