import { type Generated, sql } from 'kysely';
import type { EventsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import type { Logger } from '../../lib/logger.js';
import type { EmitListener } from '../events/index.js';
import { rollUp } from './analytics.rollups.js';

/**
 * The analytics rollups' queue (migration 0045). An order change or refund writes its event and,
 * in the same transaction, a row of `analytics_queue` naming it (a trigger on `events`: no
 * statement of its own); the rollups take queued events in, oldest first, a batch per transaction,
 * and delete their rows in that transaction (`applyQueued`): each event is rolled up once, whatever
 * crashes. One batch at a time (PostgreSQL: a transaction-scoped advisory lock of the schema;
 * SQLite: the one writer). A read of the rollups takes in what is queued first (`flushQueue`), so it
 * answers every change committed before it; a serving process also takes them in shortly after
 * each commit that queued some (`queueListener`, the module's effect, tells it) and every second.
 *
 * Before, the rollups were written in the order's own transaction under a lock of the store's
 * figures, so every order of a store waited for every other's commit; now an order writes one row.
 */

declare module '../../db/schema.js' {
  interface Database {
    analytics_queue: AnalyticsQueueTable;
  }
}

/** A queued event (migration 0045): `seq` orders the queue. */
export interface AnalyticsQueueTable {
  seq: Generated<number>;
  event_id: string;
}

/** Events the trigger queues (migration 0045): order changes and refunds (analytics.rollups.ts). */
const ROLLED_UP = new Set([
  'order.created',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
  'refund.created',
]);

/** Events a batch takes in at most. */
export const ROLLUP_BATCH = 500;

/** Runs `fn` once the queue has a row a transaction committed (a serving process's nudge). */
export type QueueNudge = () => void;

/**
 * The module's effect: once a transaction that queued events commits, the serving process's
 * rollups are told (the rows are the trigger's).
 */
export function queueListener(store: Store, nudge: () => QueueNudge | undefined): EmitListener {
  return async (trx, events) => {
    if (!events.some(isRolledUp)) return;
    const after = nudge();
    if (after) store.afterCommit(trx, after);
  };
}

function isRolledUp(event: EventsTable): boolean {
  return ROLLED_UP.has(event.type) && (event.type === 'refund.created' || event.object_type === 'order');
}

/**
 * Takes the queue over for the rest of the transaction: PostgreSQL's advisory lock of the schema's
 * queue (`wait`: until it is free; else false when another holds it). SQLite's write transaction
 * already excludes every other writer.
 */
async function lockQueue(trx: Db, store: Store, wait: boolean): Promise<boolean> {
  if (store.dialect !== 'postgres') return true;
  if (wait) {
    await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('analytics_queue'))`.execute(
      trx,
    );
    return true;
  }
  const { rows } = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_xact_lock(hashtext(current_schema()), hashtext('analytics_queue')) AS locked`.execute(
    trx,
  );
  return rows[0]?.locked === true;
}

/**
 * Rolls up the oldest `limit` queued events in the caller's transaction, which has the queue
 * (`lockQueue`), and deletes their rows; answers how many it took. An event gone meanwhile (its
 * retention is days, the queue's seconds) is logged and dropped.
 */
export async function applyBatch(trx: Db, logger: Logger, limit = ROLLUP_BATCH): Promise<number> {
  const queued = await trx
    .selectFrom('analytics_queue as q')
    .leftJoin('events as e', 'e.id', 'q.event_id')
    .select([
      'q.seq',
      'q.event_id',
      'e.id',
      'e.tenant_id',
      'e.type',
      'e.object_type',
      'e.object_id',
      'e.data',
      'e.extra',
      'e.created',
    ])
    .orderBy('q.seq')
    .limit(limit)
    .execute();
  if (queued.length === 0) return 0;
  const events: EventsTable[] = [];
  for (const row of queued) {
    if (row.id === null) {
      logger.warn({ event_id: row.event_id }, 'analytics: a queued event is gone; not rolled up');
      continue;
    }
    events.push(row as EventsTable);
  }
  await rollUp(trx, events, logger);
  await trx
    .deleteFrom('analytics_queue')
    .where(
      'seq',
      'in',
      queued.map((row) => row.seq),
    )
    .execute();
  return queued.length;
}

/**
 * One batch in a transaction of its own. `wait` false (the background runs): when another process
 * is rolling up, nothing, and 0.
 */
export async function applyQueued(store: Store, logger: Logger, wait: boolean): Promise<number> {
  return store.transaction(async (trx) => {
    if (!(await lockQueue(trx, store, wait))) return 0;
    return applyBatch(trx, logger);
  });
}

/** Whether anything is queued (a read with nothing to take in asks only this). */
async function anyQueued(db: Db): Promise<boolean> {
  const row = await db.selectFrom('analytics_queue').select('seq').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Takes in everything queued before the call: what a read of the rollups does first. */
export async function flushQueue(store: Store, logger: Logger): Promise<void> {
  if (!(await anyQueued(store.db))) return;
  while ((await applyQueued(store, logger, true)) === ROLLUP_BATCH);
}

/**
 * `flushQueue` for a read: a batch that cannot be taken in (the store refusing, or an event the
 * rollups fail on) is logged and the read answers from the rollups as they stand, rather than not
 * at all; the background runs try it again.
 */
export async function flushForRead(store: Store, logger: Logger): Promise<void> {
  try {
    await flushQueue(store, logger);
  } catch (error) {
    logger.error(
      { err: error },
      'analytics rollups not taken in before a read; answering from the rollups as they stand',
    );
  }
}

/**
 * Takes the queue over in the caller's transaction and takes in everything queued: for a writer of
 * the rollups (a customer's erasure), which must find them complete and keep them so until it
 * commits.
 */
export async function flushIn(trx: Db, store: Store, logger: Logger): Promise<void> {
  await lockQueue(trx, store, true);
  while ((await applyBatch(trx, logger)) === ROLLUP_BATCH);
}

/**
 * A serving process's background rollups: `nudge` after a commit that queued events (a batch
 * shortly after, gathering what commits meanwhile), and `sweep` every second (what another
 * process queued, or a batch that failed). Off until `start`.
 */
export type RollupRunner = ReturnType<typeof createRollupRunner>;

export function createRollupRunner(store: Store, logger: Logger) {
  let started = false;
  let scheduled: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  async function drain(): Promise<void> {
    // Outside any tenant's share of the pool: this is the store's work, not a request's.
    while (started && (await store.outsideTenant(() => applyQueued(store, logger, false))) === ROLLUP_BATCH);
  }

  function run(): void {
    scheduled = undefined;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((error: unknown) => logger.warn({ err: error }, 'analytics rollups failed; will retry'))
      .finally(() => {
        running = undefined;
        if (again && started) {
          again = false;
          schedule();
        }
      });
  }

  function schedule(): void {
    if (scheduled === undefined) scheduled = setTimeout(run, 20).unref();
  }

  return {
    nudge: (): QueueNudge | undefined => (started ? schedule : undefined),
    /** `flushIn` for another module's writer of the rollups (a customer's erasure). */
    flushIn: (trx: Db): Promise<void> => flushIn(trx, store, logger),
    /** `flushQueue`: everything queued taken in now (what a read of the rollups does first). */
    flush: (): Promise<void> => flushQueue(store, logger),
    sweep: async (): Promise<void> => {
      if (started) run();
      await running;
    },
    start(): void {
      started = true;
    },
    async stop(): Promise<void> {
      started = false;
      if (scheduled) clearTimeout(scheduled);
      scheduled = undefined;
      await running;
    },
  };
}
