import type { EventsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { notFound, validationError } from '../../lib/errors.js';
import { type Envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AppEventType, EventType, Vocabulary } from '../../kernel/vocabulary.js';
import type { VersionRegistry } from '../versions/index.js';
import { LIVEMODE_SINCE } from '../../http/livemode.js';
import { livemodeOf } from '../tenants/index.js';
import * as repo from './events.repository.js';
import { marked, OWN_EXTRAS } from './events.livemode.js';

/**
 * The transactional outbox. Every change that causes an event calls `emit` with the transaction
 * that makes the change, so the event commits if and only if the change does.
 */

export interface EmitInput {
  tenantId: string;
  type: EventType | AppEventType;
  /** The resource name of `object` (`order`, `product`, `transfer`, ...). */
  objectType: string;
  object: { id: string } & Record<string, unknown>;
  /** Further members of `data` beside `object` (`variant` on `product.outofstock`). */
  extra?: Record<string, unknown>;
}

export interface EventObject {
  id: string;
  type: string;
  created: string;
  /** false for an event of a store's test mode (from 2027-01-20; its object carries it too). */
  livemode?: boolean;
  api_version: string;
  data: { object: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * An effect of every event: runs inside the emitting transaction, after the event rows are
 * written, so it commits or rolls back with the change; called once per `emit` or `emitMany` with
 * the events it wrote, in order (one for `emit`). Each module declares its effects in its manifest
 * (`effects`), and the composition root registers them all before anything can emit.
 */
export type EmitListener = (trx: Db, events: readonly EventsTable[]) => Promise<void>;

export type EventListQuery = PageQuery & {
  type?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
};

export interface EventService {
  /** The event as delivered and listed, its object rendered in `apiVersion`. */
  present(row: EventsTable, apiVersion: string): EventObject;
  /** Registers an effect that runs inside every emitting transaction, after those registered before. */
  onEmit(listener: EmitListener): void;
  /**
   * The same outbox, effects included, stamping events with another clock (demo seeding walks
   * a clock through the past so events, webhook fan-out and analytics rollups agree with it).
   */
  withClock(other: Clock): EventService;
  /** Writes the event in `trx`, the transaction of the change that causes it. */
  emit(trx: Db, input: EmitInput): Promise<EventsTable>;
  /**
   * `emit` of several events of one change (a batch of an import, a transfer's two): their rows
   * written by one statement, then each effect once with all of them, so an effect can serve the
   * batch with one statement too (webhook fan-out reads the endpoints once).
   */
  emitMany(trx: Db, inputs: readonly EmitInput[]): Promise<EventsTable[]>;
  get(tenantId: string, id: string, apiVersion: string): Promise<EventObject>;
  list(tenantId: string, query: EventListQuery, apiVersion: string): Promise<Envelope<EventObject>>;
}

export function createEventService(
  deps: { store: Store; clock: Clock; versions: VersionRegistry; vocabulary: Vocabulary },
  listeners: EmitListener[] = [],
): EventService {
  const { store, clock, versions, vocabulary } = deps;

  /**
   * The event in `apiVersion`'s shape: its object, stored in whichever version's shape it was
   * written, is brought to the latest, then the event and the object it holds are rendered together.
   */
  function present(row: EventsTable, apiVersion: string): EventObject {
    const { livemode: stored, ...object } = versions.upgradeStored(
      row.object_type,
      JSON.parse(row.data),
    ) as Record<string, unknown>;
    // Written with its store's mode (`emit`; an object written before test mode was live), and
    // shown from the version that brought it: an older version's event is as it always was.
    const livemode = stored !== false;
    const shown = apiVersion >= LIVEMODE_SINCE;
    const extra = row.extra === null ? {} : (JSON.parse(row.extra) as Record<string, unknown>);
    if (shown) {
      // The objects of their own it holds carry it too (an order's refunds, the variant that sold out).
      for (const [name, type] of Object.entries(OWN_EXTRAS)) {
        const value = extra[name];
        if (typeof value === 'object' && value !== null && !Array.isArray(value))
          extra[name] = marked(type, value as Record<string, unknown>, livemode);
      }
    }
    const event: EventObject = {
      id: row.id,
      type: row.type,
      created: iso(row.created),
      ...(shown ? { livemode } : {}),
      api_version: apiVersion,
      data: {
        object: shown ? marked(row.object_type, { ...object, livemode }, livemode) : object,
        ...extra,
      },
    };
    return versions.differs('event', apiVersion)
      ? (versions.render('event', event, apiVersion) as EventObject)
      : event;
  }

  /** The event's row; its object carries its store's mode (`livemode`), as every object does. */
  function eventRow(input: EmitInput, livemode: boolean): EventsTable {
    return {
      id: newId('evt'),
      tenant_id: input.tenantId,
      type: input.type,
      object_type: input.objectType,
      object_id: input.object.id,
      data: JSON.stringify({ ...input.object, livemode }),
      extra: input.extra === undefined ? null : JSON.stringify(input.extra),
      created: clock.now(),
    };
  }

  return {
    present,

    onEmit(listener: EmitListener): void {
      listeners.push(listener);
    },

    withClock(other: Clock): EventService {
      return createEventService({ store, clock: other, versions, vocabulary }, listeners);
    },

    async emit(trx: Db, input: EmitInput): Promise<EventsTable> {
      const row = eventRow(input, await livemodeOf(trx, input.tenantId));
      await repo.insertEvent(trx, row);
      for (const listener of listeners) await listener(trx, [row]);
      return row;
    },

    async emitMany(trx: Db, inputs: readonly EmitInput[]): Promise<EventsTable[]> {
      const rows: EventsTable[] = [];
      for (const input of inputs) rows.push(eventRow(input, await livemodeOf(trx, input.tenantId)));
      await repo.insertEvents(trx, rows);
      if (rows.length === 0) return rows;
      for (const listener of listeners) await listener(trx, rows);
      return rows;
    },

    async get(tenantId: string, id: string, apiVersion: string): Promise<EventObject> {
      const row = await repo.findEvent(store.db, tenantId, id, vocabulary.appEventTypes);
      if (!row) throw notFound('event');
      return present(row, apiVersion);
    },

    async list(
      tenantId: string,
      query: PageQuery & {
        type?: string | undefined;
        object_id?: string | undefined;
        created_from?: string | undefined;
        created_to?: string | undefined;
      },
      apiVersion: string,
    ) {
      const from = query.created_from === undefined ? undefined : Date.parse(query.created_from);
      const to = query.created_to === undefined ? undefined : Date.parse(query.created_to);
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError('created_from', 'must not be after created_to');
      }
      const window = pageWindow(query, 'created');
      const { rows, total } = await repo.listEvents(
        store.db,
        tenantId,
        { type: query.type, objectId: query.object_id, from, to, appEventTypes: vocabulary.appEventTypes },
        window,
      );
      return newestFirstEnvelope(rows, total, window, (row) => present(row, apiVersion));
    },
  };
}
