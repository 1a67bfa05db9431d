import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import type { Services } from '../../kernel/module.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  CreateShippingRateBody,
  CreateTaxRateBody,
  RateIdParams,
  ShippingRateListQuery,
  ShippingRateListSchema,
  ShippingRateSchema,
  TaxRateListQuery,
  TaxRateListSchema,
  TaxRateSchema,
  UpdateShippingRateBody,
  UpdateTaxRateBody,
} from './rates.schemas.js';

const TAGS = ['Pricing'];

/** `/shipping-rates` and `/tax-rates`. */
export function rateRoutes(deps: Pick<Services, 'shippingRates' | 'taxRates'>): FastifyPluginAsyncTypebox {
  const { shippingRates, taxRates } = deps;
  return async (app) => {
    app.get(
      '/shipping-rates',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'List shipping rates, newest first',
          querystring: ShippingRateListQuery,
          response: { 200: ShippingRateListSchema },
        },
      },
      async (request) => shippingRates.list(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/shipping-rates',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Create a shipping rate',
          description:
            'The rates of one name are one shipping method priced by weight: two of them in one currency that share a country and a weight (bands inclusive, a missing bound open) are refused, `409 shipping_rate_overlap` naming the other rate. Rates of different names (Standard, Express) may serve the same parcels: the buyer picks one by `shipping_rate_id`, or gets the cheapest.',
          body: CreateShippingRateBody,
          response: { 201: ShippingRateSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return shippingRates.create(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/shipping-rates/:id',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Get one shipping rate',
          params: RateIdParams,
          response: { 200: ShippingRateSchema, ...errorResponses(404) },
        },
      },
      async (request) => shippingRates.get(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/shipping-rates/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Change a shipping rate',
          description: 'Only the fields given change; the rate as changed must overlap no other.',
          params: RateIdParams,
          body: UpdateShippingRateBody,
          response: { 200: ShippingRateSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request) =>
        shippingRates.update(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.delete(
      '/shipping-rates/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Delete a shipping rate',
          description: 'Orders that used it keep their shipping as they were priced.',
          params: RateIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await shippingRates.remove(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/tax-rates',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'List tax rates, newest first',
          querystring: TaxRateListQuery,
          response: { 200: TaxRateListSchema },
        },
      },
      async (request) => taxRates.list(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/tax-rates',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Create a tax rate',
          description:
            "One rate per country and state: a second is `409 duplicate_tax_rate`. An order's address takes its state's rate over its country's.",
          body: CreateTaxRateBody,
          response: { 201: TaxRateSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return taxRates.create(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/tax-rates/:id',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Get one tax rate',
          params: RateIdParams,
          response: { 200: TaxRateSchema, ...errorResponses(404) },
        },
      },
      async (request) => taxRates.get(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/tax-rates/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Change a tax rate',
          params: RateIdParams,
          body: UpdateTaxRateBody,
          response: { 200: TaxRateSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request) => taxRates.update(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.delete(
      '/tax-rates/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Delete a tax rate',
          description: 'Orders that used it keep their tax as they were priced.',
          params: RateIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await taxRates.remove(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
