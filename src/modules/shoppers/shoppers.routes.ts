import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { buyerIpOf, principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  CustomerTokenHeaders,
  PasswordResetBody,
  PasswordResetConfirmBody,
  SignInBody,
  SignUpBody,
  StoreCustomerSchema,
  StoreOrderListQuery,
  StoreOrderListSchema,
  StoreSessionSchema,
  UpdateStoreCustomerBody,
} from './shoppers.schemas.js';

const TAGS = ['Shopper accounts'];
const TOKEN_HEADER = 'x-customer-token';

function tokenOf(request: FastifyRequest): string | undefined {
  const token = request.headers[TOKEN_HEADER];
  return typeof token === 'string' ? token : undefined;
}

/** What an idempotent replay of a sign-in answers: the token masked (it is shown once, never stored). */
function tokenMasked(body: Record<string, unknown>): Record<string, unknown> {
  return typeof body.token === 'string'
    ? { ...body, token: `cst_${'*'.repeat(36)}${body.token.slice(-4)}` }
    : body;
}

export function shopperRoutes(deps: Pick<Services, 'shopperAccounts'>): FastifyPluginAsyncTypebox {
  const accounts = deps.shopperAccounts;
  const tenantOf = (request: FastifyRequest) => principalOf(request).tenant.id;
  return async (app) => {
    app.post(
      '/store/customers',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'Sign up a shopper',
          description:
            'Makes a customer with a login (`customer.created`); sign in next with `POST /store/sessions`. An email the store already knows is `409 duplicate_email`, also for a customer without a login (made by an order, an import or the admin API): such a customer gets a login through a password reset. Sign-ups are limited per buyer IP (`429 rate_limited`).',
          body: SignUpBody,
          response: { 201: StoreCustomerSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return accounts.signUp(
          tenantOf(request),
          request.body,
          buyerIpOf(request),
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.post(
      '/store/sessions',
      {
        config: { auth: 'storefront', replayed: tokenMasked },
        schema: {
          tags: TAGS,
          summary: 'Sign a shopper in',
          description:
            'A session token for `X-Customer-Token`, valid 30 days. A wrong password and an unknown email are both `401 invalid_credentials`, and take the same time. Failed sign-ins are limited per email and per buyer IP (`429 rate_limited` with `Retry-After`); a shopper whose email is blocked gets back in by a password reset.',
          body: SignInBody,
          response: { 201: StoreSessionSchema, ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return accounts.signIn(tenantOf(request), request.body, buyerIpOf(request));
      },
    );

    app.delete(
      '/store/sessions/current',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'Sign the shopper out',
          description: 'Ends the session of `X-Customer-Token`; the token stops working at once.',
          headers: CustomerTokenHeaders,
          response: { 204: { type: 'null', description: 'Signed out' } },
        },
      },
      async (request, reply) => {
        await accounts.signOut(tenantOf(request), tokenOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/store/customers/me',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'The signed-in shopper',
          description:
            'The customer of `X-Customer-Token` (`401 invalid_customer_token` without a live one).',
          headers: CustomerTokenHeaders,
          response: { 200: StoreCustomerSchema },
        },
      },
      async (request) => accounts.me(tenantOf(request), tokenOf(request)),
    );

    app.patch(
      '/store/customers/me',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'Change the signed-in shopper’s profile or password',
          description:
            'Only the fields given change (`customer.updated`). The email is the store’s to change (`PATCH /customers/{id}`). A new `password` needs `current_password` (a wrong one is `401 invalid_credentials` naming it, counted as a failed sign-in) and ends the shopper’s other sessions.',
          headers: CustomerTokenHeaders,
          body: UpdateStoreCustomerBody,
          response: { 200: StoreCustomerSchema, ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request) =>
        accounts.updateMe(tenantOf(request), tokenOf(request), request.body, buyerIpOf(request)),
    );

    app.get(
      '/store/customers/me/orders',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'The signed-in shopper’s orders, newest first',
          description:
            'Only the orders of the customer of `X-Customer-Token`, as the shopper sees them: without the store’s metadata, rule and rate ids or refund reasons.',
          headers: CustomerTokenHeaders,
          querystring: StoreOrderListQuery,
          response: { 200: StoreOrderListSchema },
        },
      },
      async (request) => accounts.myOrders(tenantOf(request), tokenOf(request), request.query),
    );

    app.post(
      '/store/customers/password-reset',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: TAGS,
          summary: 'Ask for a password reset',
          description:
            'Always `202`, whether or not the email is known. For a customer of the store (with a login or not) it emits `customer.password_reset` with a single-use `reset_token` valid one hour: the store’s webhook mails it to the shopper. At most 3 such events an hour per email; requests are limited per buyer IP (`429 rate_limited`).',
          body: PasswordResetBody,
          response: { 202: { type: 'null', description: 'Accepted' }, ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request, reply) => {
        await accounts.requestReset(tenantOf(request), request.body.email, buyerIpOf(request));
        // No content: `send()` without a payload writes an empty body (its schema's `null` would write `null`).
        return reply.code(202).send(undefined as never);
      },
    );

    app.post(
      '/store/customers/password-reset/confirm',
      {
        config: { auth: 'storefront', replayed: tokenMasked },
        schema: {
          tags: TAGS,
          summary: 'Set a new password with a reset token',
          description:
            'Sets the password (making the login of a customer that had none), uses up the token and the customer’s other pending resets, ends every session of the customer and clears its failed sign-ins, then signs the shopper in. An unknown, used or expired token is `422 invalid_reset_token`.',
          body: PasswordResetConfirmBody,
          response: { 200: StoreSessionSchema, ...errorResponses(...BODY_ERRORS, 422) },
        },
      },
      async (request) => accounts.confirmReset(tenantOf(request), request.body),
    );
  };
}
