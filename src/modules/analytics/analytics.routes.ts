import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import type { Platform, Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { validationError } from '../../lib/errors.js';
import {
  AnalyticsQuery,
  AnalyticsSchema,
  CsvSchema,
  CustomersReportSchema,
  ProductsReportSchema,
  ReportQuery,
  SalesReportSchema,
} from './analytics.schemas.js';
import type { ReportName } from './analytics.service.js';

const PERIOD_RULES =
  'Days are UTC. `from`..`to` covers at most 366 days (400 `validation_failed` names the field otherwise).';

const PAGING = ['limit', 'offset', 'page', 'cursor'] as const;

/** A report as JSON (a list envelope) or, with `format=csv`, as a CSV attachment. */
function reportResponse(name: ReportName, json: TSchema) {
  return {
    200: {
      description: 'The report rows',
      content: {
        'application/json': { schema: json },
        'text/csv': { schema: CsvSchema(name) },
      },
    },
  };
}

export function analyticsRoutes(
  deps: Pick<Platform, 'versions'> & Pick<Services, 'analytics'>,
): FastifyPluginAsyncTypebox {
  const { analytics, versions } = deps;

  /**
   * A report's CSV columns in `version`: those its JSON rows have there (a version before a field
   * was added has neither the field nor its column).
   */
  function csvColumns(name: ReportName, resource: string | undefined, version: string): string[] {
    const latest = analytics.csvColumns(name);
    if (resource === undefined) return latest;
    const row = versions.render(resource, Object.fromEntries(latest.map((column) => [column, 0])), version);
    return Object.keys(row as Record<string, unknown>);
  }

  async function sendCsv(reply: FastifyReply, csv: Awaited<ReturnType<typeof analytics.exportCsv>>) {
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csv.filename}"`);
    return reply.send(csv.body);
  }

  return async (app) => {
    app.get(
      '/analytics',
      {
        config: { auth: 'read:analytics', resource: 'analytics' },
        schema: {
          tags: ['Analytics'],
          summary:
            'Revenue, orders, customers, top products and categories of a period, with the period before',
          description: `${PERIOD_RULES} Default: the last 30 days ending today, by day, in the tenant's currency. Revenue is captured payments minus refunds on the day they happened; order counts go by the day the order was created.`,
          querystring: AnalyticsQuery,
          response: { 200: AnalyticsSchema },
        },
      },
      async (request) => analytics.overview(principalOf(request).tenant, request.query),
    );

    // The resource of a report's rows, for the version transforms (sales rows are summaries).
    const reports: [ReportName, string, TSchema, string | undefined][] = [
      [
        'sales',
        'Sales by time bucket: every figure of the summary per day, week or month',
        SalesReportSchema,
        'analytics_summary',
      ],
      ['products', 'Units sold and revenue per product', ProductsReportSchema, undefined],
      [
        'customers',
        'Orders, revenue and first and last order per customer',
        CustomersReportSchema,
        undefined,
      ],
    ];
    for (const [name, summary, schema, resource] of reports) {
      app.get(
        `/analytics/reports/${name}`,
        {
          config: { auth: 'read:analytics', ...(resource === undefined ? {} : { resource, list: true }) },
          schema: {
            tags: ['Analytics'],
            summary,
            description: `${PERIOD_RULES} JSON is a list envelope; \`format=csv\` exports every row as \`text/csv\`.`,
            querystring: ReportQuery,
            response: reportResponse(name, schema),
          },
        },
        async (request, reply) => {
          const { tenant } = principalOf(request);
          const { format, ...query } = request.query;
          if (format === 'csv') {
            // Read from the URL: `limit` has a default once validated.
            const sent = new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1));
            const paging = PAGING.find((parameter) => sent.has(parameter));
            if (paging) throw validationError(paging, 'applies to JSON only; format=csv exports every row');
            const columns = csvColumns(name, resource, request.apiVersion);
            return sendCsv(reply, await analytics.exportCsv(name, tenant, query, columns));
          }
          return analytics.report(name, tenant, query);
        },
      );
    }
  };
}
