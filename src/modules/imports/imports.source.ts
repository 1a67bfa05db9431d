import { type CsvError, type Info, parse, type Parser } from 'csv-parse';

/**
 * Reading an uploaded file as records with their line numbers, from its bytes as they come (the
 * file is read a chunk at a time, never whole). CSV goes through csv-parse's streaming parser;
 * JSON Lines is split at line ends here. Both skip blank lines. The bytes are UTF-8: the upload
 * refused anything else.
 */

/** A record of the file: its fields (CSV) or its text (JSON Lines), and the line it starts on. */
export interface CsvRecord {
  kind: 'record';
  line: number;
  fields: string[];
}

export interface TextLine {
  kind: 'record';
  line: number;
  text: string;
}

/** The file cannot be read past this line (an unclosed quote, say): what came before stands. */
export interface Unreadable {
  kind: 'unreadable';
  line: number;
  message: string;
}

/** csv-parse's options for every CSV we read: a BOM dropped, rows of any length (checked later). */
export const CSV_OPTIONS = {
  bom: true,
  relax_column_count: true,
  // A quote inside an unquoted field (`12" vinyl`) is kept as a character, as spreadsheets write it.
  relax_quotes: true,
  skip_empty_lines: true,
} as const;

/** csv-parse's errors in words, with the line the broken record starts on. */
function describe(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'has a quoted value that is never closed, so the file cannot be read from here on';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'has a closing quote followed by more text in the same value, so the file cannot be read from here on';
    default:
      return `cannot be read as CSV from here on (${error.message})`;
  }
}

function isCsvError(error: unknown): error is CsvError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The CSV records of `chunks`, the header included, each with the line it starts on. Records are
 * taken from the parser as it finds them (`on_record`), so a broken record late in a file still
 * leaves every record before it; the broken one ends the reading with `Unreadable`.
 */
export async function* csvRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<CsvRecord | Unreadable> {
  const found: CsvRecord[] = [];
  // The line a record starts on: the line after the previous record ends, past the empty lines
  // skipped since (csv-parse counts both in its `info`).
  let lastEnd = 0;
  let emptyBefore = 0;
  const startOf = (info: Pick<Info, 'lines' | 'empty_lines'>) =>
    lastEnd + 1 + (info.empty_lines - emptyBefore);
  const parser: Parser = parse({
    ...CSV_OPTIONS,
    on_record: (record: string[], info: Info) => {
      found.push({ kind: 'record', line: startOf(info), fields: record });
      lastEnd = info.lines;
      emptyBefore = info.empty_lines;
      return null;
    },
  });
  // Errors also come as an event; the write and end callbacks below carry them.
  parser.on('error', () => undefined);
  const unreadable = (error: unknown): Unreadable => {
    if (!isCsvError(error)) throw error;
    const info = error as unknown as Partial<Info>;
    return {
      kind: 'unreadable',
      line: info.empty_lines === undefined ? lastEnd + 1 : startOf(info as Info),
      message: describe(error),
    };
  };
  for await (const chunk of chunks) {
    const failed = await new Promise<Error | null | undefined>((resolve) => parser.write(chunk, resolve));
    yield* found.splice(0);
    if (failed) {
      yield unreadable(failed);
      return;
    }
  }
  const failed = await new Promise<unknown>((resolve) => {
    parser.once('error', resolve);
    parser.end(() => resolve(undefined));
  });
  yield* found.splice(0);
  if (failed) yield unreadable(failed);
}

/** The first record of a CSV (its header) from the start of the file; null when there is none. */
export async function csvHeader(prefix: Buffer, whole: boolean): Promise<string[] | null | Unreadable> {
  // Up to the last line end of the prefix: a record cut in the middle is not a record.
  const end = whole ? prefix.length : prefix.lastIndexOf(0x0a) + 1;
  async function* only() {
    yield prefix.subarray(0, end);
  }
  for await (const item of csvRecords(only())) return item.kind === 'record' ? item.fields : item;
  return null;
}

/**
 * The lines of a JSON Lines file with their numbers, blank ones skipped, a CR before the LF
 * dropped. Lines are cut from the bytes before decoding, so a character split across two chunks
 * is whole again.
 */
export async function* textLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine> {
  const decoder = new TextDecoder('utf-8');
  let pending: Buffer[] = [];
  let line = 0;
  let first = true;
  const emit = (bytes: Buffer): TextLine | undefined => {
    line += 1;
    let text = decoder.decode(bytes);
    if (first) {
      // A byte order mark some editors write.
      if (text.startsWith('\ufeff')) text = text.slice(1);
      first = false;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text.trim() === '' ? undefined : { kind: 'record', line, text };
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, at);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      const item = emit(bytes);
      if (item) yield item;
      from = at + 1;
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (pending.length > 0) {
    const item = emit(Buffer.concat(pending));
    if (item) yield item;
  }
}
