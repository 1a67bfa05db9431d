import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  AdjustmentListQuery,
  AdjustmentListSchema,
  AdjustmentSchema,
  CreateAdjustmentBody,
  CreateLocationBody,
  LocationIdParams,
  LocationListQuery,
  LocationListSchema,
  LocationSchema,
  StockLevelListSchema,
  UpdateLocationBody,
  VariantInventoryParams,
} from './inventory.schemas.js';

const TAGS = ['Inventory'];

/** `/locations`, `/inventory/adjustments` and a variant's `/inventory`. */
export function inventoryRoutes(deps: Pick<Services, 'inventory'>): FastifyPluginAsyncTypebox {
  const { inventory } = deps;
  return async (app) => {
    app.post(
      '/locations',
      {
        config: { auth: 'write:inventory' },
        schema: {
          tags: TAGS,
          summary: 'Create a location',
          description:
            'A place the store keeps stock, last in the store’s order (orders take units from the default location first, then from the others in the order they were made). `fulfills_online_orders` (default true): its available units count in variants’ `stock`.',
          body: CreateLocationBody,
          response: { 201: LocationSchema, ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return inventory.createLocation(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/locations',
      {
        config: { auth: 'read:inventory' },
        schema: {
          tags: TAGS,
          summary: 'List locations in the store’s order',
          description: 'The default location first, then the others in the order they were made.',
          querystring: LocationListQuery,
          response: { 200: LocationListSchema },
        },
      },
      async (request) => inventory.listLocations(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/locations/:id',
      {
        config: { auth: 'read:inventory' },
        schema: {
          tags: TAGS,
          summary: 'Get one location',
          params: LocationIdParams,
          response: { 200: LocationSchema, ...errorResponses(404) },
        },
      },
      async (request) => inventory.getLocation(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/locations/:id',
      {
        config: { auth: 'write:inventory' },
        schema: {
          tags: TAGS,
          summary: 'Change a location',
          description:
            'Only the fields given change. A location that stops (or starts) fulfilling online orders takes its available units out of (or into) its variants’ `stock`; the default location always fulfils them (400 `validation_failed`).',
          params: LocationIdParams,
          body: UpdateLocationBody,
          response: { 200: LocationSchema, ...errorResponses(...BODY_ERRORS, 404) },
        },
      },
      async (request) =>
        inventory.updateLocation(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.delete(
      '/locations/:id',
      {
        config: { auth: 'write:inventory' },
        schema: {
          tags: TAGS,
          summary: 'Delete a location',
          description:
            'Only an empty one: a location with units on hand or committed is `409 location_has_stock`; the default location is `409 invalid_state_transition`.',
          params: LocationIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) => {
        await inventory.deleteLocation(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/products/:id/variants/:variant_id/inventory',
      {
        config: { auth: 'read:inventory' },
        schema: {
          tags: TAGS,
          summary: 'A variant’s stock at each location',
          description:
            'One level per location of the store, in the store’s order: `on_hand`, `committed` (taken by orders and cart holds, not shipped yet) and `available`. The variant’s `stock` is the sum of `available` over the locations that fulfil online orders.',
          params: VariantInventoryParams,
          response: { 200: StockLevelListSchema, ...errorResponses(404) },
        },
      },
      async (request) =>
        inventory.variantLevels(principalOf(request).tenant.id, request.params.id, request.params.variant_id),
    );

    app.post(
      '/inventory/adjustments',
      {
        config: { auth: 'write:inventory' },
        schema: {
          tags: TAGS,
          summary: 'Adjust a variant’s stock at a location',
          description:
            'By `delta` units or to `set` units on hand (one of them), never below what is committed there (400 `validation_failed` naming the field). Recorded and listed by `GET /inventory/adjustments`; at a location that fulfils online orders the variant’s `stock` moves too, with `product.updated`.',
          body: CreateAdjustmentBody,
          response: { 201: AdjustmentSchema, ...errorResponses(...BODY_ERRORS, 404) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return inventory.adjust(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/inventory/adjustments',
      {
        config: { auth: 'read:inventory' },
        schema: {
          tags: TAGS,
          summary: 'List stock adjustments, newest first',
          querystring: AdjustmentListQuery,
          response: { 200: AdjustmentListSchema },
        },
      },
      async (request) => inventory.listAdjustments(principalOf(request).tenant.id, request.query),
    );
  };
}
