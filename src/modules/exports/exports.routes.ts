import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Platform, Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import type { Permission } from '../../kernel/vocabulary.js';
import { ExportQuery, exportResponse } from './exports.schemas.js';
import { COLUMNS, type ExportFormat, type ExportResource } from './exports.service.js';

const TAGS = ['Imports and exports'];

const EXPORTS: [ExportResource, Permission, string][] = [
  [
    'products',
    'read:products',
    'One row per variant: the product’s columns on its first row, `handle` (the product’s handle) on each; the columns `POST /imports?resource=products` reads.',
  ],
  [
    'customers',
    'read:customers',
    'One row per address (one for a customer without any): the customer’s columns on its first row, `email` on each; the columns `POST /imports?resource=customers` reads.',
  ],
  [
    'orders',
    'read:orders',
    'One row per order line, the order’s columns repeated on each; money in minor units.',
  ],
];

/** The resource type of a row of each export, as version changes name it (exports.module.ts). */
const ROW_TYPES: Record<ExportResource, string> = {
  products: 'product_file_row',
  customers: 'customer_file_row',
  orders: 'order_file_row',
};

export function exportRoutes(
  deps: Pick<Platform, 'clock' | 'versions'> & Pick<Services, 'exporter'>,
): FastifyPluginAsyncTypebox {
  const { exporter, clock, versions } = deps;

  /** An export's columns in `version`: a version before a column was added has none of it. */
  function columnsIn(resource: ExportResource, version: string): readonly string[] {
    const latest = COLUMNS[resource];
    const type = ROW_TYPES[resource];
    if (!versions.differs(type, version)) return latest;
    const row = versions.render(type, Object.fromEntries(latest.map((column) => [column, null])), version);
    return Object.keys(row as Record<string, unknown>);
  }

  return async (app) => {
    for (const [resource, permission, description] of EXPORTS) {
      app.get(
        `/exports/${resource}`,
        {
          config: { auth: permission },
          schema: {
            tags: TAGS,
            summary: `Export every ${resource.slice(0, -1)} as CSV or JSON Lines`,
            description: `${description} Streamed in the order stored, however many there are. CSV text that a spreadsheet would run as a formula starts with \`'\` (an import takes it off). See docs/imports-and-exports.md.`,
            querystring: ExportQuery,
            response: exportResponse(resource),
          },
        },
        async (request, reply) => {
          const format = (request.query.format ?? 'csv') as ExportFormat;
          const file = await exporter.stream(
            resource,
            principalOf(request).tenant.id,
            format,
            clock.now(),
            columnsIn(resource, request.apiVersion),
          );
          // A stream, not the string the schema documents: sent as it is, never serialized.
          const raw = reply as FastifyReply;
          raw
            .header('content-type', file.contentType)
            .header('content-disposition', `attachment; filename="${file.filename}"`);
          return raw.send(file.body);
        },
      );
    }
  };
}
