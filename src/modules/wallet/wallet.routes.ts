import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import type { Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import {
  BalanceListSchema,
  BalanceQuery,
  BalanceSchema,
  TransactionListQuery,
  TransactionListSchema,
  TransferBody,
  TransferIdParams,
  TransferListQuery,
  TransferListSchema,
  TransferSchema,
} from './wallet.schemas.js';

const BALANCE_DESCRIPTION = `
The wallet in \`currency\` (default: the tenant's currency) and its latest 10 transactions. \`available\` is what
can be transferred or refunded now; \`pending\` is always 0 in this design (payments are credited when captured,
transfers settle at once). A currency the tenant has no wallet in is 404. In version 2026-06-01 the body has
\`balance\` (the available amount) instead of \`available\` and \`pending\`.
`.trim();

const TRANSFER_DESCRIPTION = `
Moves \`amount\` from your wallet in \`currency\` to any wallet on the platform (another tenant's, by its id), at once.
422 \`invalid_destination\` (unknown wallet, or your own wallet), \`currency_mismatch\` (the destination holds
another currency), \`insufficient_funds\`, \`limit_exceeded\` (the tenant's daily transfer limit per wallet, per UTC
day, or a destination that would hold more than its maximum of 10^15 minor units). Emits \`transfer.created\` to you and to the receiving tenant, in the same transaction as the transfer; the
receiver sees a \`transfer_in\` transaction and can read the transfer (without your \`metadata\`). Send an
\`Idempotency-Key\`: a retry with it never moves the money twice, even after a crash of the server.
`.trim();

export function walletRoutes(deps: Pick<Services, 'wallet'>): FastifyPluginAsyncTypebox {
  const { wallet } = deps;
  return async (app) => {
    app.get(
      '/wallet/balance',
      {
        config: { auth: 'read:wallet', resource: 'wallet_balance' },
        schema: {
          tags: ['Wallet'],
          summary: 'Get the wallet balance and latest transactions',
          description: BALANCE_DESCRIPTION,
          querystring: BalanceQuery,
          response: { 200: BalanceSchema, ...errorResponses(404) },
        },
      },
      async (request) => wallet.balance(principalOf(request).tenant, request.query.currency),
    );

    app.get(
      '/wallet/balances',
      {
        config: { auth: 'read:wallet', resource: 'wallet_balance', list: true },
        schema: {
          tags: ['Wallet'],
          summary: 'List the balance of every wallet (one per currency)',
          description:
            'Each wallet of the tenant with `available` and `pending` as `GET /wallet/balance` gives them, without transactions, by currency code. In version 2026-06-01 each has `balance` instead.',
          response: { 200: BalanceListSchema },
        },
      },
      async (request) => wallet.balances(principalOf(request).tenant.id),
    );

    app.get(
      '/wallet/transactions',
      {
        config: { auth: 'read:wallet' },
        schema: {
          tags: ['Wallet'],
          summary: 'List wallet transactions, newest first',
          description:
            'Every wallet of the tenant unless `currency` is given. `from` and `to` are inclusive.',
          querystring: TransactionListQuery,
          response: { 200: TransactionListSchema },
        },
      },
      async (request) => wallet.listTransactions(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/wallet/transfer',
      {
        config: { auth: 'write:wallet' },
        schema: {
          tags: ['Wallet'],
          summary: 'Transfer money to another wallet',
          description: TRANSFER_DESCRIPTION,
          body: TransferBody,
          response: { 201: TransferSchema, ...errorResponses(...BODY_ERRORS, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return wallet.transfer(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/wallet/transfers',
      {
        config: { auth: 'read:wallet' },
        schema: {
          tags: ['Wallet'],
          summary: 'List the transfers you sent or received, newest first',
          description:
            'Transfers out of your wallets and into them (the `source_id` of a `transfer_out` or `transfer_in` transaction); `direction` narrows to one side. A received transfer shows `metadata` as `{}`: it is the sender’s.',
          querystring: TransferListQuery,
          response: { 200: TransferListSchema },
        },
      },
      async (request) => wallet.listTransfers(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/wallet/transfers/:id',
      {
        config: { auth: 'read:wallet' },
        schema: {
          tags: ['Wallet'],
          summary: 'Get one transfer you sent or received',
          description:
            'A transfer out of or into one of your wallets; a received one shows `metadata` as `{}`. Any other transfer is 404.',
          params: TransferIdParams,
          response: { 200: TransferSchema, ...errorResponses(404) },
        },
      },
      async (request) => wallet.getTransfer(principalOf(request).tenant.id, request.params.id),
    );
  };
}
