import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import type { EventService } from '../events/index.js';
import { findLevelLocation } from '../inventory/index.js';
import { productsInventory as inventory, type ProductRow, type StockLine } from '../products/index.js';
import * as repo from './fulfillments.repository.js';
import { presentFulfillment, presentReturn } from './fulfillments.presenter.js';
import type {
  CreateFulfillmentBody,
  CreateReturnBody,
  FulfillmentObject,
  ReceiveReturnBody,
  ReturnObject,
} from './fulfillments.schemas.js';
import { receiveAt, shipFrom } from './fulfillments.stock.js';
import { commitTransition, emitOrder, invalidTransition, TRANSITIONS } from './orders.lifecycle.js';
import * as orders from './orders.repository.js';
import type { RefundService } from './refunds.service.js';
import type { AuditRecorder } from '../audit/index.js';

/**
 * Fulfilments and returns of an order: parcels shipped from a location (several per order, never
 * more than is left to ship), and units coming back (requested for shipped units, received at a
 * location with or without restock and refunded in the same transaction, or cancelled). Each use
 * case runs in one transaction under the order's row lock (PostgreSQL; SQLite's write
 * transaction excludes every other writer), so two fulfilments of one order never ship a unit
 * twice, and a line's counters are moved by conditional updates that refuse going past it.
 */

export interface FulfillmentServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  refunds: RefundService;
  /** Records a cancelled return (it has no event); absent in the demo seeding. */
  audit?: AuditRecorder;
}

/** One line of a request: a variant of the order and a quantity. */
interface Wanted {
  variant_id: string;
  quantity: number;
}

/** The order's lines by variant (a variant is on one line: orders refuse a variant twice). */
function lineOf(
  lines: readonly orders.OrderItemRow[],
  variantId: string,
  field: string,
): orders.OrderItemRow {
  const line = lines.find((candidate) => candidate.variant_id === variantId);
  if (!line) throw validationError(field, `names variant ${variantId}, which is not in this order`);
  return line;
}

/** Refuses a variant named twice in one request. */
function checkDistinct(items: readonly Wanted[], field: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.variant_id)) {
      throw validationError(
        `${field}[${index}].variant_id`,
        'names a variant again; send one entry per variant',
      );
    }
    seen.add(item.variant_id);
  });
}

const unfulfilledOf = (line: orders.OrderItemRow): number =>
  Math.max(0, line.quantity - line.fulfilled_quantity - line.released_quantity);

function exceedsUnfulfilled(line: orders.OrderItemRow, quantity: number): AppError {
  const left = unfulfilledOf(line);
  return new AppError(
    'quantity_exceeds_unfulfilled',
    `${quantity} of ${line.variant_id} (${line.name}) cannot be fulfilled: ${left} left to fulfil.`,
    { extra: { variant_id: line.variant_id, unfulfilled: left } },
  );
}

export type FulfillmentService = ReturnType<typeof createFulfillmentService>;

export function createFulfillmentService(deps: FulfillmentServiceDeps) {
  const { store, clock, events, refunds } = deps;

  async function lockedOrder(trx: Db, tenantId: string, id: string): Promise<orders.OrderRow> {
    const order = await orders.findOrder(trx, tenantId, id, true);
    if (!order) throw notFound('order');
    return order;
  }

  /**
   * Ships units of a paid order read under its lock: `items`, or everything left to fulfil. Writes
   * the fulfilment, ships the units from the location, emits `fulfillment.created` (and
   * `order.shipped` with the order's first), and moves the order to `shipped` once nothing is left.
   * `ship`: the order's transition is `/ship`'s, whose tracking the order keeps.
   */
  async function fulfilLocked(
    trx: Db,
    order: orders.OrderRow,
    input: CreateFulfillmentBody,
    now: number,
  ): Promise<{ fulfillment: FulfillmentObject | undefined; order: orders.OrderRow }> {
    const tenantId = order.tenant_id;
    if (order.status !== 'paid') throw invalidTransition('ship', order.status);
    const { location } = await findLevelLocation(trx, tenantId, input.location_id, now);
    const lines = await orders.findItems(trx, [order.id]);
    let wanted: { line: orders.OrderItemRow; quantity: number }[];
    if (input.items === undefined) {
      wanted = lines.flatMap((line) =>
        unfulfilledOf(line) > 0 ? [{ line, quantity: unfulfilledOf(line) }] : [],
      );
    } else {
      checkDistinct(input.items, 'items');
      wanted = input.items.map((item, index) => ({
        line: lineOf(lines, item.variant_id, `items[${index}].variant_id`),
        quantity: item.quantity,
      }));
      for (const { line, quantity } of wanted)
        if (quantity > unfulfilledOf(line)) throw exceedsUnfulfilled(line, quantity);
    }
    const first = order.fulfillment_count === 0 && order.shipped_at === null;
    let fulfillment: FulfillmentObject | undefined;
    let products: ProductRow[] = [];
    let soldOut: Awaited<ReturnType<typeof shipFrom>>['soldOut'] = [];
    if (wanted.length > 0) {
      for (const { line, quantity } of wanted) {
        if (!(await repo.fulfilUnits(trx, order.id, line.position, quantity)))
          throw exceedsUnfulfilled(line, quantity);
      }
      const stockLines: StockLine[] = wanted.map(({ line, quantity }) => ({
        product_id: line.product_id,
        variant_id: line.variant_id,
        quantity,
      }));
      ({ products, soldOut } = await shipFrom(trx, tenantId, stockLines, location, now));
      const row: repo.FulfillmentRow = {
        id: newId('ful'),
        tenant_id: tenantId,
        order_id: order.id,
        location_id: location.id,
        items: JSON.stringify(
          wanted.map(({ line, quantity }) => ({ variant_id: line.variant_id, quantity })),
        ),
        carrier: input.carrier ?? null,
        tracking_number: input.tracking_number ?? null,
        tracking_url: input.tracking_url ?? null,
        created: now,
      };
      await repo.insertFulfillment(trx, row);
      fulfillment = presentFulfillment(row);
    }
    const count = order.fulfillment_count + (fulfillment ? 1 : 0);
    await orders.updateOrder(trx, tenantId, order.id, { fulfillment_count: count, updated: now });
    let after: orders.OrderRow = { ...order, fulfillment_count: count, updated: now };
    const left = wanted.reduce(
      (sum, { line, quantity }) => sum - Math.min(quantity, unfulfilledOf(line)),
      lines.reduce((sum, line) => sum + unfulfilledOf(line), 0),
    );
    if (left === 0) {
      after = await commitTransition(trx, after, 'ship', now, {
        shipped_at: now,
        carrier: input.carrier ?? order.carrier,
        tracking_number: input.tracking_number ?? order.tracking_number,
      });
    }
    if (first) await emitOrder(trx, events, 'order.shipped', after);
    if (fulfillment) {
      await events.emit(trx, {
        tenantId,
        type: 'fulfillment.created',
        objectType: 'fulfillment',
        object: fulfillment,
      });
    }
    await inventory.emitStockChanges(trx, events, products, soldOut);
    return { fulfillment, order: after };
  }

  return {
    fulfilLocked,

    /** `POST /orders/{id}/fulfillments`. */
    async create(
      tenantId: string,
      orderId: string,
      input: CreateFulfillmentBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<FulfillmentObject> {
      if (idempotent.committed !== null) {
        const row = await repo.findFulfillment(store.db, tenantId, idempotent.committed);
        if (!row) throw notFound('fulfillment');
        return presentFulfillment(row);
      }
      return store.transaction(async (trx) => {
        const order = await lockedOrder(trx, tenantId, orderId);
        const done = await fulfilLocked(trx, order, input, clock.now());
        if (!done.fulfillment) {
          throw new AppError('quantity_exceeds_unfulfilled', 'Nothing of this order is left to fulfil.', {
            extra: { unfulfilled: 0 },
          });
        }
        await idempotent.mark(trx, done.fulfillment.id);
        return done.fulfillment;
      });
    },

    /**
     * `POST /orders/{id}/returns`: shipped units, not returned yet, coming back (`422
     * quantity_exceeds_returnable` naming the item).
     */
    async createReturn(
      tenantId: string,
      orderId: string,
      input: CreateReturnBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ReturnObject> {
      if (idempotent.committed !== null) {
        const row = await repo.findReturn(store.db, tenantId, idempotent.committed);
        if (!row) throw notFound('return');
        return presentReturn(row);
      }
      checkDistinct(input.items, 'items');
      return store.transaction(async (trx) => {
        const order = await lockedOrder(trx, tenantId, orderId);
        const lines = await orders.findItems(trx, [order.id]);
        const wanted = input.items.map((item, index) => ({
          item,
          line: lineOf(lines, item.variant_id, `items[${index}].variant_id`),
        }));
        for (const { item, line } of wanted) {
          if (!(await repo.returnUnits(trx, order.id, line.position, item.quantity))) {
            const returnable = Math.max(0, line.fulfilled_quantity - line.returned_quantity);
            throw new AppError(
              'quantity_exceeds_returnable',
              `${item.quantity} of ${line.variant_id} (${line.name}) cannot be returned: ${returnable} shipped and not returned yet.`,
              { extra: { variant_id: line.variant_id, returnable } },
            );
          }
        }
        const now = clock.now();
        const row: repo.ReturnRow = {
          id: newId('ret'),
          tenant_id: tenantId,
          order_id: order.id,
          status: 'requested',
          items: JSON.stringify(
            input.items.map((item) => ({
              variant_id: item.variant_id,
              quantity: item.quantity,
              reason: item.reason ?? null,
            })),
          ),
          location_id: null,
          restocked: 0,
          refund_id: null,
          created: now,
          received_at: null,
          cancelled_at: null,
        };
        await repo.insertReturn(trx, row);
        await orders.updateOrder(trx, tenantId, order.id, { updated: now });
        await idempotent.mark(trx, row.id);
        const object = presentReturn(row);
        await events.emit(trx, { tenantId, type: 'return.created', objectType: 'return', object });
        return object;
      });
    },

    /**
     * `POST /returns/{id}/receive`: the return arrives at a location (the default one if none is
     * named); with `restock` (default true) its units go back on hand there, with `refund` their part
     * of what was paid is refunded (section 12's refund, in this transaction). Once: a return no
     * longer requested is `409 invalid_state_transition`, so its units come back once.
     */
    async receive(tenantId: string, id: string, input: ReceiveReturnBody): Promise<ReturnObject> {
      const { object, refund } = await store.transaction(async (trx) => {
        const found = await repo.findReturn(trx, tenantId, id);
        if (!found) throw notFound('return');
        const order = await lockedOrder(trx, tenantId, found.order_id);
        const before = await repo.findReturn(trx, tenantId, id);
        if (!before || before.status !== 'requested')
          throw returnNotRequested(before?.status ?? found.status, 'receive');
        const now = clock.now();
        const { location } = await findLevelLocation(trx, tenantId, input.location_id, now);
        const items = JSON.parse(before.items) as { variant_id: string; quantity: number }[];
        const restock = input.restock !== false;
        let refundId: string | null = null;
        let made: Awaited<ReturnType<RefundService['forReturn']>>['refund'];
        if (input.refund === true) {
          if (!TRANSITIONS.refund.from.includes(order.status))
            throw invalidTransition('refund', order.status);
          made = (await refunds.forReturn(trx, order, items, now)).refund;
          refundId = made?.id ?? null;
        }
        const settled = {
          status: 'received' as const,
          location_id: location.id,
          restocked: restock ? 1 : 0,
          refund_id: refundId,
          received_at: now,
        };
        if (!(await repo.settleReturn(trx, id, settled))) throw returnNotRequested(before.status, 'receive');
        if (restock) {
          const lines = await orders.findItems(trx, [order.id]);
          const stockLines = items.map((item) => ({
            product_id: lineOf(lines, item.variant_id, 'items').product_id,
            variant_id: item.variant_id,
            quantity: item.quantity,
          }));
          const moved = await receiveAt(trx, tenantId, stockLines, location, now);
          await inventory.emitStockChanges(trx, events, moved.products);
        }
        const object = presentReturn({ ...before, ...settled });
        await events.emit(trx, { tenantId, type: 'return.received', objectType: 'return', object });
        return { object, refund: made };
      });
      await refunds.tellProvider(refund);
      return object;
    },

    /** `POST /returns/{id}/cancel`: a requested return that will not come; its units may be returned again. */
    async cancelReturn(tenantId: string, id: string): Promise<ReturnObject> {
      return store.transaction(async (trx) => {
        const found = await repo.findReturn(trx, tenantId, id);
        if (!found) throw notFound('return');
        await lockedOrder(trx, tenantId, found.order_id);
        const now = clock.now();
        if (!(await repo.settleReturn(trx, id, { status: 'cancelled', cancelled_at: now }))) {
          throw returnNotRequested(found.status, 'cancel');
        }
        const lines = await orders.findItems(trx, [found.order_id]);
        for (const item of JSON.parse(found.items) as { variant_id: string; quantity: number }[]) {
          await repo.returnUnits(
            trx,
            found.order_id,
            lineOf(lines, item.variant_id, 'items').position,
            -item.quantity,
          );
        }
        const cancelled = presentReturn({ ...found, status: 'cancelled', cancelled_at: now });
        await deps.audit?.record(trx, {
          tenantId,
          action: 'return.cancelled',
          resource: { type: 'return', id },
          before: presentReturn(found),
          after: cancelled,
        });
        return cancelled;
      });
    },
  };
}

function returnNotRequested(status: string, action: string): AppError {
  return new AppError('invalid_state_transition', `Cannot ${action} a return that is ${status}.`, {
    extra: { return_status: status },
  });
}
