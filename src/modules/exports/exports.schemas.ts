import { type Static, Type } from 'typebox';

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.String({
        enum: ['csv', 'jsonl'],
        default: 'csv',
        description: '`csv` (default; RFC 4180, a header line) or `jsonl` (JSON Lines: one object per row).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

const FileSchema = Type.String({ description: 'Every row, streamed.' });

/** The 200 of an export: CSV or JSON Lines, as the caller asked. */
export const ExportResponse = {
  200: {
    description: 'Every row, as an attachment',
    content: {
      'text/csv': { schema: FileSchema },
      'application/x-ndjson': { schema: FileSchema },
    },
  },
};
