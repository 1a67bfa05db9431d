import type { Db, Store } from '../../db/store.js';
import { iso, type Clock } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { type Envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import { type Address, normaliseAddresses } from '../customers/index.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import {
  emitUpdated,
  findVariantsByIds,
  type LevelLocation,
  stockLevels,
  type VariantRow,
} from '../products/index.js';
import * as repo from './inventory.repository.js';
import type {
  AdjustmentListQuery,
  AdjustmentObject,
  CreateAdjustmentBody,
  CreateLocationBody,
  LocationObject,
  StockLevelObject,
  UpdateLocationBody,
} from './inventory.schemas.js';

/**
 * Locations and their stock: a store's locations (the default one made with the store), a
 * variant's level at each, and adjustments of them, each recorded. The levels themselves are the
 * products module's (products.levels.ts): a variant's `stock` follows them in the same transaction.
 */

/** The name a store's default location starts with. */
export const DEFAULT_LOCATION_NAME = 'Default location';

/** A location as stock levels see it. */
export function levelLocationOf(row: repo.LocationRow): LevelLocation {
  return {
    id: row.id,
    position: row.position,
    fulfills: row.fulfills_online_orders === 1,
    isDefault: row.is_default === 1,
  };
}

export function presentLocation(row: repo.LocationRow): LocationObject {
  return {
    id: row.id,
    name: row.name,
    address: row.address === null ? null : (JSON.parse(row.address) as Address),
    fulfills_online_orders: row.fulfills_online_orders === 1,
    default: row.is_default === 1,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

function presentAdjustment(row: repo.AdjustmentRow): AdjustmentObject {
  return {
    id: row.id,
    variant_id: row.variant_id,
    product_id: row.product_id,
    location_id: row.location_id,
    delta: Number(row.delta),
    on_hand: Number(row.on_hand),
    reason: row.reason,
    created: iso(row.created),
  };
}

/**
 * The store's default location, made in the transaction that makes the store (every store, live
 * or test, is made through one path: the tenants service's `insertStore`).
 */
export async function openDefaultLocation(trx: Db, tenantId: string, now: number): Promise<void> {
  await repo.insertLocation(trx, {
    id: newId('loc'),
    tenant_id: tenantId,
    name: DEFAULT_LOCATION_NAME,
    address: null,
    fulfills_online_orders: 1,
    is_default: 1,
    position: 1,
    created: now,
    updated: now,
  });
}

/**
 * A location of the store, as stock levels see it: `id`, else the default one; 404 for another
 * store's. A store made without the tenants service (rows written directly) gets its default
 * location here, in the caller's transaction, the first time one is needed.
 */
export async function findLevelLocation(
  db: Db,
  tenantId: string,
  id: string | undefined,
  now: number,
): Promise<{ row: repo.LocationRow; location: LevelLocation }> {
  let row =
    id === undefined
      ? await repo.findDefaultLocation(db, tenantId)
      : await repo.findLocation(db, tenantId, id);
  if (!row && id === undefined) {
    await openDefaultLocation(db, tenantId, now);
    row = await repo.findDefaultLocation(db, tenantId);
  }
  if (!row) throw notFound('location');
  return { row, location: levelLocationOf(row) };
}

/** The store's locations in its order: ids, names, and which is the default one. */
export async function storeLocations(
  db: Db,
  tenantId: string,
): Promise<{ id: string; name: string; isDefault: boolean; location: LevelLocation }[]> {
  return (await repo.listLocations(db, tenantId)).map((row) => ({
    id: row.id,
    name: row.name,
    isDefault: row.is_default === 1,
    location: levelLocationOf(row),
  }));
}

/**
 * Sets a variant's units on hand at `location` to `units` and records the adjustment (with
 * `reason`), in the caller's transaction: the variant's levels, `stock` and `committed` only. The
 * caller settles the variant's product (its `stock`, with its events) once for all its variants
 * (an import does, per product). Never below what is committed there (`400` naming `field`).
 * Answers the variant as written and whether its `stock` moved, or undefined when nothing changed.
 */
export async function setOnHand(
  trx: Db,
  input: {
    tenantId: string;
    variantId: string;
    location: LevelLocation;
    units: number;
    reason: string;
    field: string;
    now: number;
  },
): Promise<{ variant: VariantRow; stockDelta: number } | undefined> {
  let onHandBefore = 0;
  const changed = await stockLevels.changeLevels(
    trx,
    input.tenantId,
    input.variantId,
    (levels) => {
      onHandBefore = stockLevels.levelFor(levels, input.location).on_hand;
      return stockLevels.adjust(levels, input.location, { set: input.units }, input.field);
    },
    input.now,
  );
  if (!changed) throw notFound('variant');
  if (onHandBefore === input.units) return undefined;
  await repo.insertAdjustment(trx, {
    id: newId('adj'),
    tenant_id: input.tenantId,
    variant_id: input.variantId,
    product_id: changed.variant.product_id,
    location_id: input.location.id,
    delta: input.units - onHandBefore,
    on_hand: input.units,
    reason: input.reason,
    created: input.now,
  });
  return { variant: changed.variant, stockDelta: changed.stockDelta };
}

function storedAddress(address: Address | null | undefined, field: string): string | null {
  if (address === undefined || address === null) return null;
  const [normal] = normaliseAddresses([address], field, true);
  return JSON.stringify(normal ?? address);
}

export type InventoryService = ReturnType<typeof createInventoryService>;

export function createInventoryService(deps: {
  store: Store;
  clock: Clock;
  events: EventService;
  audit: AuditRecorder;
}) {
  const { store, clock, events, audit } = deps;

  async function locked(trx: Db, tenantId: string, id: string): Promise<repo.LocationRow> {
    const row = await repo.findLocation(trx, tenantId, id, true);
    if (!row) throw notFound('location');
    return row;
  }

  return {
    async createLocation(
      tenantId: string,
      body: CreateLocationBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<LocationObject> {
      if (idempotent.committed !== null) return this.getLocation(tenantId, idempotent.committed);
      const address = storedAddress(body.address, 'address');
      return store.transaction(async (trx) => {
        const now = clock.now();
        const row: repo.LocationRow = {
          id: newId('loc'),
          tenant_id: tenantId,
          name: body.name.trim(),
          address,
          fulfills_online_orders: body.fulfills_online_orders === false ? 0 : 1,
          is_default: 0,
          position: await repo.nextPosition(trx, tenantId),
          created: now,
          updated: now,
        };
        await repo.insertLocation(trx, row);
        await idempotent.mark(trx, row.id);
        const object = presentLocation(row);
        await audit.record(trx, {
          tenantId,
          action: 'location.created',
          resource: { type: 'location', id: row.id },
          before: null,
          after: object,
        });
        return object;
      });
    },

    async listLocations(tenantId: string, query: PageQuery): Promise<Envelope<LocationObject>> {
      const rows = await repo.listLocations(store.db, tenantId);
      const window = pageWindow(query, 'position');
      const page = rows.slice(window.offset, window.offset + window.limit);
      return {
        data: page.map(presentLocation),
        total: rows.length,
        page: Math.floor(window.offset / window.limit) + 1,
        limit: window.limit,
        offset: window.offset,
        has_more: window.offset + page.length < rows.length,
        next_cursor: null,
      };
    },

    async getLocation(tenantId: string, id: string): Promise<LocationObject> {
      const row = await repo.findLocation(store.db, tenantId, id);
      if (!row) throw notFound('location');
      return presentLocation(row);
    },

    /**
     * Changes a location. The default location always fulfils online orders (422); another that
     * starts or stops doing so moves its available units into or out of its variants' `stock`.
     */
    async updateLocation(tenantId: string, id: string, body: UpdateLocationBody): Promise<LocationObject> {
      const address = body.address === undefined ? undefined : storedAddress(body.address, 'address');
      return store.transaction(async (trx) => {
        const before = await locked(trx, tenantId, id);
        const now = clock.now();
        const fulfills = body.fulfills_online_orders;
        if (fulfills === false && before.is_default === 1) {
          throw validationError('fulfills_online_orders', 'cannot be false on the default location');
        }
        const after = await repo.updateLocation(trx, tenantId, id, {
          ...(body.name === undefined ? {} : { name: body.name.trim() }),
          ...(address === undefined ? {} : { address }),
          ...(fulfills === undefined ? {} : { fulfills_online_orders: fulfills ? 1 : 0 }),
          updated: now,
        });
        if (!after) throw notFound('location');
        if (fulfills !== undefined && fulfills !== (before.fulfills_online_orders === 1)) {
          await stockLevels.locationFulfills(trx, tenantId, id, fulfills, now);
        }
        const object = presentLocation(after);
        await audit.record(trx, {
          tenantId,
          action: 'location.updated',
          resource: { type: 'location', id },
          before: presentLocation(before),
          after: object,
        });
        return object;
      });
    },

    /** Deletes a location that holds no stock (`409 location_has_stock`); never the default one. */
    async deleteLocation(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await locked(trx, tenantId, id);
        if (row.is_default === 1) {
          throw new AppError('invalid_state_transition', 'The default location cannot be deleted.');
        }
        if (await stockLevels.locationHoldsStock(trx, tenantId, id)) {
          throw new AppError(
            'location_has_stock',
            `Location ${id} still holds stock (units on hand or committed to orders): move or adjust them to 0 first.`,
          );
        }
        await stockLevels.dropLocationLevels(trx, tenantId, id, clock.now());
        await repo.deleteLocation(trx, tenantId, id);
        await audit.record(trx, {
          tenantId,
          action: 'location.deleted',
          resource: { type: 'location', id },
          before: presentLocation(row),
          after: null,
        });
      });
    },

    /** A variant's level at every location of the store, in the store's order. */
    async variantLevels(
      tenantId: string,
      productId: string,
      variantId: string,
    ): Promise<Envelope<StockLevelObject>> {
      const [variant] = await findVariantsByIds(store.db, tenantId, [variantId]);
      if (!variant || variant.product_id !== productId) throw notFound('variant');
      const [locations, rows] = await Promise.all([
        repo.listLocations(store.db, tenantId),
        variant.spread === 0 ? [] : stockLevels.levelRows(store.db, tenantId, [variantId]),
      ]);
      const levels = stockLevels.levelsOf(variant, rows);
      const data = locations.map((row) => {
        const level = stockLevels.levelFor(levels, levelLocationOf(row));
        return {
          location_id: row.id,
          on_hand: level.on_hand,
          committed: level.committed,
          available: level.on_hand - level.committed,
        };
      });
      return {
        data,
        total: data.length,
        page: 1,
        limit: data.length,
        offset: 0,
        has_more: false,
        next_cursor: null,
      };
    },

    /**
     * Changes a variant's units on hand at a location by `delta` or to `set` (never below what is
     * committed there), records it, and moves the variant's `stock` (and its product's, with
     * `product.updated`) when the location fulfils online orders.
     */
    async adjust(
      tenantId: string,
      body: CreateAdjustmentBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<AdjustmentObject> {
      if (idempotent.committed !== null) {
        const row = await repo.findAdjustment(store.db, tenantId, idempotent.committed);
        if (row) return presentAdjustment(row);
      }
      if ((body.delta === undefined) === (body.set === undefined)) {
        throw validationError(body.delta === undefined ? 'delta' : 'set', 'give one of delta and set');
      }
      const change = body.delta === undefined ? { set: body.set as number } : { delta: body.delta };
      const field = body.delta === undefined ? 'set' : 'delta';
      return store.transaction(async (trx) => {
        const now = clock.now();
        const { location } = await findLevelLocation(trx, tenantId, body.location_id, now);
        let onHandBefore = 0;
        const changed = await stockLevels.changeStock(
          trx,
          tenantId,
          body.variant_id,
          (levels) => {
            onHandBefore = stockLevels.levelFor(levels, location).on_hand;
            return stockLevels.adjust(levels, location, change, field);
          },
          now,
        );
        if (!changed) throw notFound('variant');
        const onHand = stockLevels.levelFor(changed.levels, location).on_hand;
        const row: repo.AdjustmentRow = {
          id: newId('adj'),
          tenant_id: tenantId,
          variant_id: body.variant_id,
          product_id: changed.variant.product_id,
          location_id: location.id,
          delta: onHand - onHandBefore,
          on_hand: onHand,
          reason: body.reason ?? null,
          created: now,
        };
        await repo.insertAdjustment(trx, row);
        await idempotent.mark(trx, row.id);
        await audit.record(trx, {
          tenantId,
          action: 'inventory_adjustment.created',
          resource: { type: 'inventory_adjustment', id: row.id },
          before: null,
          after: presentAdjustment(row),
        });
        if (changed.stockDelta !== 0 && changed.product) {
          await emitUpdated(
            trx,
            events,
            changed.product,
            changed.variant.stock === 0 && changed.stockDelta < 0 ? [changed.variant] : [],
          );
        }
        return presentAdjustment(row);
      });
    },

    async listAdjustments(tenantId: string, query: AdjustmentListQuery): Promise<Envelope<AdjustmentObject>> {
      const window = pageWindow(query, 'created');
      const filter = { variantId: query.variant_id, locationId: query.location_id };
      const [rows, total] = await Promise.all([
        repo.listAdjustments(store.db, tenantId, filter, window),
        repo.countAdjustments(store.db, tenantId, filter),
      ]);
      return newestFirstEnvelope(rows, total, window, presentAdjustment);
    },
  };
}
