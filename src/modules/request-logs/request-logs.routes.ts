import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import {
  RequestIdParams,
  RequestLogListSchema,
  RequestLogQuery,
  RequestLogSchema,
} from './request-logs.schemas.js';

const TAGS = ['Audit and request logs'];
const KEPT =
  'Every `/v1` request made with a key of the store is kept `REQUEST_LOG_DAYS` (30 days by default), and listed within 10 seconds of its answer.';

export function requestLogRoutes(deps: Pick<Services, 'requestLogs'>): FastifyPluginAsyncTypebox {
  const { requestLogs } = deps;
  return async (app) => {
    app.get(
      '/request-logs',
      {
        config: { auth: 'read:audit' },
        schema: {
          tags: TAGS,
          summary: 'List API requests, newest first',
          description: `${KEPT} Filters combine.`,
          querystring: RequestLogQuery,
          response: { 200: RequestLogListSchema },
        },
      },
      async (request) => requestLogs.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/request-logs/:request_id',
      {
        config: { auth: 'read:audit' },
        schema: {
          tags: TAGS,
          summary: 'Get one API request by its request id',
          description: `${KEPT} Its audit entries: \`GET /audit-log?request_id=\`.`,
          params: RequestIdParams,
          response: { 200: RequestLogSchema, ...errorResponses(404) },
        },
      },
      async (request) => requestLogs.get(principalOf(request).tenant.id, request.params.request_id),
    );
  };
}
