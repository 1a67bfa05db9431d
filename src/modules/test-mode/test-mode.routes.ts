import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { TransactionSchema } from '../wallet/index.js';
import { CopyBody, CopyResultSchema, FundBody, ResetBody, ResetResultSchema } from './test-mode.schemas.js';

const TAGS = ['Test mode'];
const TEST_ONLY = ' Test mode only: with a live key it is 403 `wrong_mode`.';

export function testModeRoutes(deps: Pick<Services, 'testMode'>): FastifyPluginAsyncTypebox {
  const { testMode } = deps;
  return async (app) => {
    app.post(
      '/wallet/fund',
      {
        config: { auth: 'write:wallet', resource: 'wallet_transaction' },
        schema: {
          tags: ['Wallet'],
          summary: 'Add test money to the wallet',
          description: `Credits the test store’s wallet in \`currency\` with \`amount\` of test money, as one ledger transaction (type \`adjustment\`).${TEST_ONLY}`,
          body: FundBody,
          response: { 201: TransactionSchema, ...errorResponses(...BODY_ERRORS, 403) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return testMode.fund(principalOf(request), request.body);
      },
    );

    app.post(
      '/test-mode/reset',
      {
        config: { auth: 'write:settings' },
        schema: {
          tags: TAGS,
          summary: 'Delete all test data',
          description: `Deletes every object of the test store (catalog, customers, orders, carts, pricing, webhooks, plugin installations, events, analytics...) in one transaction and brings its wallets back to zero; its keys, settings, pinned version, usage and audit log stay. Live is never touched.${TEST_ONLY}`,
          body: ResetBody,
          response: { 200: ResetResultSchema, ...errorResponses(...BODY_ERRORS, 403) },
        },
      },
      async (request) => testMode.reset(principalOf(request)),
    );

    app.post(
      '/test-mode/copy',
      {
        config: { auth: 'write:settings' },
        schema: {
          tags: TAGS,
          summary: 'Copy live’s catalog, pricing or settings into test mode',
          description: `Replaces the test store’s parts named in \`what\` with copies of live’s (new ids; unique values such as SKUs, handles and codes are unique per mode, so they copy as they are). Live is only read.${TEST_ONLY}`,
          body: CopyBody,
          response: { 200: CopyResultSchema, ...errorResponses(...BODY_ERRORS, 403) },
        },
      },
      async (request) => testMode.copy(principalOf(request), request.body.what),
    );
  };
}
