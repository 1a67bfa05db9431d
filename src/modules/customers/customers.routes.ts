import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import type { Platform, Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  CreateCustomerBody,
  CustomerIdParams,
  CustomerListQuery,
  CustomerListSchema,
  CustomerSchema,
  UpdateCustomerBody,
} from './customers.schemas.js';
import { CustomerExportSchema } from './customers.privacy.schemas.js';

const TAGS = ['Customers'];

export function customerRoutes(
  deps: Pick<Platform, 'versions'> & Pick<Services, 'customers' | 'customerPrivacy'>,
): FastifyPluginAsyncTypebox {
  const { customers } = deps;
  return async (app) => {
    app.get(
      '/customers',
      {
        config: { auth: 'read:customers' },
        schema: {
          tags: TAGS,
          summary: 'List customers',
          description:
            '`total` is exact: kept counts answer it for no filter or a `tag`; with `q` or a time range it counts the matches. Use `next_cursor` for deep pages.',
          querystring: CustomerListQuery,
          response: { 200: CustomerListSchema },
        },
      },
      async (request) => customers.list(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/customers',
      {
        config: { auth: 'write:customers' },
        schema: {
          tags: TAGS,
          summary: 'Create a customer',
          description:
            'Orders also create customers: `POST /orders` with a `customer` email not seen before.',
          body: CreateCustomerBody,
          response: { 201: CustomerSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return customers.create(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/customers/:id',
      {
        config: { auth: 'read:customers' },
        schema: {
          tags: TAGS,
          summary: 'Get one customer',
          params: CustomerIdParams,
          response: { 200: CustomerSchema, ...errorResponses(404) },
        },
      },
      async (request) => customers.get(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/customers/:id',
      {
        config: { auth: 'write:customers' },
        schema: {
          tags: TAGS,
          summary: 'Change a customer',
          description:
            'Only the fields given change; the figures (`orders_count`, `total_spent`, `last_order_at`) follow the orders. A redacted customer cannot be changed (409).',
          params: CustomerIdParams,
          body: UpdateCustomerBody,
          response: { 200: CustomerSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request) => customers.update(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.delete(
      '/customers/:id',
      {
        config: { auth: 'write:customers' },
        schema: {
          tags: TAGS,
          summary: 'Delete a customer without orders',
          description:
            'Its storefront login, sessions and pending password resets go with it. A customer with orders is `409 customer_has_orders`: redact it instead.',
          params: CustomerIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) => {
        await customers.remove(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/customers/:id/export',
      {
        config: { auth: 'read:customers' },
        schema: {
          tags: TAGS,
          summary: 'Export everything held about a customer (GDPR article 15)',
          description:
            'One JSON document: the customer, whether it has a storefront login (never its password), every one of its orders (items, addresses, payment summary, metadata) and the retained events that carry its data (id, type, object, created). See docs/customers.md, "Privacy: export and erasure".',
          params: CustomerIdParams,
          response: { 200: CustomerExportSchema, ...errorResponses(404) },
        },
        // In the key's API version, the orders as GET /customers/{id}/orders shows them and the events'
        // objects as GET /events does: rendered after serialization, as the route hooks render every
        // versioned response, by the walker that reaches each by its type.
        onSend: async (request, reply, payload) => {
          if (
            typeof payload !== 'string' ||
            reply.statusCode !== 200 ||
            !deps.versions.differs('customer_export', request.apiVersion)
          ) {
            return payload;
          }
          return JSON.stringify(
            deps.versions.render('customer_export', JSON.parse(payload), request.apiVersion),
          );
        },
      },
      async (request) => deps.customerPrivacy.export(principalOf(request).tenant.id, request.params.id),
    );

    app.post(
      '/customers/:id/redact',
      {
        config: { auth: 'write:customers' },
        schema: {
          tags: TAGS,
          summary: "Erase a customer's personal data, irreversibly (GDPR article 17)",
          description:
            "In one transaction: the customer's email becomes `redacted+{id}@invalid`, its name, phone, addresses, tags, note and metadata are cleared; its orders lose the customer's email and name, the shipping address, metadata, carrier and tracking number, and their refunds their reason; stored event payloads, recorded Idempotency-Key responses and the analytics rollups are rewritten the same way, the recorded responses of the webhook deliveries of those events are dropped, and its storefront login (password hash, sessions, pending password resets) is deleted. Amounts, items, statuses, payments, refund amounts, the ledger, every analytics figure and the customer's counts are kept. Emits `customer.redacted`. A redacted customer cannot be changed (`PATCH` is 409); redacting it again sweeps again and answers it as it is, without a second event.",
          params: CustomerIdParams,
          body: EmptyBody,
          response: { 200: CustomerSchema, ...errorResponses(...BODY_ERRORS, 404) },
        },
      },
      async (request) => deps.customerPrivacy.redact(principalOf(request).tenant.id, request.params.id),
    );
  };
}
