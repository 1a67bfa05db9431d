import { type Static, Type } from 'typebox';
import { EXPORT_EXAMPLES } from './exports.examples.js';

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

/** The 200 of an export: CSV or JSON Lines, as the caller asked (with an example of each). */
export function exportResponse(resource: keyof typeof EXPORT_EXAMPLES) {
  const { csv, jsonl } = EXPORT_EXAMPLES[resource];
  return {
    200: {
      description: 'Every row, as an attachment',
      content: {
        'text/csv': { schema: Type.String({ description: 'Every row, streamed.', examples: [csv] }) },
        'application/x-ndjson': {
          schema: Type.String({ description: 'Every row, streamed.', examples: [jsonl] }),
        },
      },
    },
  };
}
