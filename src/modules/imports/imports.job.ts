import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/index.js';
import type { Outcome } from './imports.products.js';
import { presentImport } from './imports.presenter.js';
import * as repo from './imports.repository.js';
import { fileRows, type RowError } from './imports.rows.js';
import { type Unit, type UnitContext, type UnitPlan, type UnitSource, unitSource } from './imports.units.js';

/**
 * One claimed import's run (imports.runner.ts claims it): its two passes over the file, a batch
 * per transaction each under the runner's lease, and how the run ended.
 */

export type RunResult = 'none' | 'finished' | 'paused' | 'lost' | 'failed';

/** What a run needs of its runner. */
export interface ImportJob {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventService;
  /** The runner's id, for the log. */
  runner: string;
  batchRows: number;
  leaseMs: number;
  maxAttempts: number;
  /** True once the runner is stopping: the run stops at its next commit and lets the import go. */
  stopping: () => boolean;
}

/** Why a run stopped before the end: another runner took the import, or the caller's limit. */
class LeaseLost extends Error {}
class Paused extends Error {
  constructor(readonly release: boolean) {
    super('paused');
  }
}
/** `on_error=abort`: a row refused while writing (the store changed since validation). */
class AbortWrite extends Error {
  constructor(readonly errors: RowError[]) {
    super('a row was refused while writing');
  }
}

const EMPTY: ReadonlySet<number> = new Set();

async function* chunks(store: Store, row: repo.ImportRow): AsyncGenerator<Buffer> {
  for (let seq = 0; seq < row.chunk_count; seq++) {
    const data = await repo.readChunk(store.db, row.id, seq);
    if (data === undefined) throw new Error(`import ${row.id} lost piece ${seq} of its file`);
    yield Buffer.from(data);
  }
}

/** One claimed import, run until it finishes, its lease is lost, or `batches` batches committed. */
export async function runImport(
  job: ImportJob,
  claimed: repo.ImportRow,
  owner: string,
  batches: number | undefined,
): Promise<RunResult> {
  const { store, clock, logger, events, batchRows, leaseMs, maxAttempts, runner: id } = job;
  const state = { ...claimed };
  const currency = (await repo.tenantCurrency(store.db, state.tenant_id)) ?? 'USD';
  const tenant = { id: state.tenant_id, currency };
  let committed = 0;

  const errorRows = (errors: readonly RowError[]): repo.ImportErrorRow[] =>
    errors.map((error, index) => ({
      import_id: state.id,
      seq: state.error_count + index,
      tenant_id: state.tenant_id,
      line: error.line,
      column_name: error.column,
      message: error.message,
    }));

  /** Writes `changes` and `errors` in `trx` if this runner still holds the import. */
  async function hold(trx: Db, changes: Partial<repo.ImportRow>, errors: readonly RowError[] = []) {
    const now = clock.now();
    const next = {
      ...changes,
      error_count: state.error_count + errors.length,
      lease_until: now + leaseMs,
      updated: now,
    };
    if (!(await repo.whileHeld(trx, state.id, owner, next))) throw new LeaseLost();
    await repo.insertErrors(trx, errorRows(errors));
    return next;
  }

  async function finish(
    status: 'succeeded' | 'failed',
    errors: readonly RowError[] = [],
    extra: Partial<repo.ImportRow> = {},
  ) {
    await store.transaction(async (trx) => {
      const now = clock.now();
      const changes: Partial<repo.ImportRow> = {
        ...extra,
        status,
        phase: 'done',
        finished_at: now,
        error_count: state.error_count + errors.length,
        claimed_by: null,
        lease_until: null,
        updated: now,
      };
      if (!(await repo.whileHeld(trx, state.id, owner, changes))) throw new LeaseLost();
      await repo.insertErrors(trx, errorRows(errors));
      await repo.deleteChunks(trx, state.id);
      const row = await repo.importById(trx, state.id);
      if (!row) throw new Error(`import ${state.id} vanished`);
      await events.emit(trx, {
        tenantId: state.tenant_id,
        type: 'import.completed',
        objectType: 'import',
        object: presentImport(row, await repo.firstErrors(trx, [state.id])),
      });
    });
  }

  function tally(outcomes: readonly Outcome[]) {
    const counts = { created_count: 0, updated_count: 0, unchanged_count: 0 };
    for (const outcome of outcomes) counts[`${outcome}_count`] += 1;
    return counts;
  }

  const counted = (add: ReturnType<typeof tally>) => ({
    created_count: state.created_count + add.created_count,
    updated_count: state.updated_count + add.updated_count,
    unchanged_count: state.unchanged_count + add.unchanged_count,
  });

  /** The validating pass's batch: plans read the store as it is; errors, progress (and a dry run's counts). */
  async function validateBatch(source: UnitSource, batch: Unit[]): Promise<void> {
    const ctx: UnitContext = {
      db: store.db,
      tenant,
      mode: state.mode,
      now: clock.now(),
      lock: false,
      known: EMPTY,
      ...(await source.prepare(store.db, tenant.id, batch)),
    };
    const errors: RowError[] = [];
    const outcomes: Outcome[] = [];
    for (const unit of batch) {
      const plan = await unit.plan(ctx);
      errors.push(...plan.errors);
      outcomes.push(...plan.outcomes);
    }
    const position = (batch[batch.length - 1] as Unit).last;
    const changes: Partial<repo.ImportRow> = {
      position,
      rows_total: Math.max(state.rows_total, position),
      ...(state.dry_run === 1 ? { rows_processed: position, ...counted(tally(outcomes)) } : {}),
    };
    const done = await store.transaction((trx) => hold(trx, changes, errors));
    Object.assign(state, done);
  }

  /** The writing pass's batch: plans and writes in one transaction, with the progress. */
  async function writeBatch(source: UnitSource, batch: Unit[]): Promise<void> {
    const last = batch[batch.length - 1] as Unit;
    // A unit's rows may lie apart (a WooCommerce product and its variations), other units' between.
    const fromLine = Math.min(...batch.map((unit) => unit.firstLine));
    const toLine = Math.max(...batch.map((unit) => unit.lastLine));
    const done = await store.transaction(async (trx) => {
      const now = clock.now();
      // First: the claim (PostgreSQL locks the import's row until the commit).
      await hold(trx, {});
      const known = await repo.linesWithErrors(trx, state.id, fromLine, toLine);
      const ctx: UnitContext = {
        db: trx,
        tenant,
        mode: state.mode,
        now,
        lock: true,
        known,
        ...(await source.prepare(trx, tenant.id, batch)),
      };
      const errors: RowError[] = [];
      const outcomes: Outcome[] = [];
      // What the validating pass reported stays reported once.
      const report = (found: readonly RowError[]) =>
        errors.push(...found.filter((error) => !known.has(error.line)));
      // Plans whose writes go together (new products) are written after the others, at once.
      const together: UnitPlan[] = [];
      for (const unit of batch) {
        const plan = await unit.plan(ctx);
        report(plan.errors);
        if (plan.together) {
          together.push(plan);
          continue;
        }
        const refused = await plan.apply(trx, now);
        if (refused.length === 0) outcomes.push(...plan.outcomes);
        report(refused);
      }
      if (together.length > 0) {
        const refusedEach = await source.applyTogether(trx, together, now);
        together.forEach((plan, i) => {
          const refused = refusedEach[i] ?? [];
          if (refused.length === 0) outcomes.push(...plan.outcomes);
          report(refused);
        });
      }
      errors.sort((a, b) => a.line - b.line);
      if (errors.length > 0 && state.on_error === 'abort') throw new AbortWrite(errors);
      return hold(
        trx,
        { position: last.last, rows_processed: last.last, ...counted(tally(outcomes)) },
        errors,
      );
    });
    Object.assign(state, done);
  }

  /** One pass over the file; answers how it ended. */
  async function pass(
    phase: 'validate' | 'write',
  ): Promise<{ end: 'done' } | { end: 'header' | 'unreadable'; errors: RowError[] }> {
    const source = unitSource(state.resource, state.format, currency, events);
    if (source.prescan) await source.prescan(fileRows(state.format, chunks(store, state)));
    let batch: Unit[] = [];
    let rows = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await (phase === 'validate' ? validateBatch(source, batch) : writeBatch(source, batch));
      batch = [];
      rows = 0;
      committed += 1;
      // On SQLite every statement is synchronous: without a turn of the event loop here the
      // whole import would hold the process, and no request would be answered until its end.
      await new Promise((resolve) => setImmediate(resolve));
      if (job.stopping()) throw new Paused(true);
      if (batches !== undefined && committed >= batches) throw new Paused(false);
    };
    const take = async (units: Unit[]) => {
      for (const unit of units) {
        if (unit.last <= state.position) continue;
        batch.push(unit);
        rows += unit.last - unit.first + 1;
        if (rows >= batchRows) await flush();
      }
    };
    for await (const item of fileRows(state.format, chunks(store, state))) {
      if (item.kind === 'header') {
        const errors = source.header(item.columns);
        if (errors.length > 0) return { end: 'header', errors };
      } else if (item.kind === 'unreadable') {
        await take(source.end());
        await flush();
        return { end: 'unreadable', errors: [item.error] };
      } else {
        await take(source.push(item));
      }
    }
    await take(source.end());
    await flush();
    return { end: 'done' };
  }

  try {
    if (state.attempts > maxAttempts) {
      await finish('failed', [
        {
          line: 1,
          column: null,
          message: `could not be completed: it stopped ${maxAttempts} times before its end (the server log says why)`,
        },
      ]);
      return 'failed';
    }
    if (state.phase === 'validate') {
      const validated = await pass('validate');
      if (validated.end === 'header') {
        await finish('failed', validated.errors);
        return 'finished';
      }
      if (validated.end === 'unreadable') {
        // Reported once, here; the writing pass stops at the same line.
        const done = await store.transaction((trx) => hold(trx, {}, validated.errors));
        Object.assign(state, done);
      }
      const refused = state.error_count > 0 && state.on_error === 'abort';
      if (state.dry_run === 1) {
        await finish(refused || validated.end === 'unreadable' ? 'failed' : 'succeeded', [], {
          rows_processed: state.rows_total,
        });
        return 'finished';
      }
      if (refused) {
        await finish('failed');
        return 'finished';
      }
      const done = await store.transaction((trx) => hold(trx, { phase: 'write', position: 0 }));
      Object.assign(state, done);
    }
    try {
      const written = await pass('write');
      await finish(written.end === 'done' ? 'succeeded' : 'failed');
    } catch (error) {
      if (!(error instanceof AbortWrite)) throw error;
      await finish('failed', error.errors);
    }
    return 'finished';
  } catch (error) {
    if (error instanceof Paused) {
      // Stopping: let another runner take it at once. A caller's limit keeps the claim, as a
      // process that died would.
      if (error.release)
        await repo.whileHeld(store.db, state.id, owner, { lease_until: 0 }).catch(() => false);
      return 'paused';
    }
    if (error instanceof LeaseLost) {
      logger.warn({ import: state.id, runner: id }, 'import taken over by another runner');
      return 'lost';
    }
    logger.error({ err: error, import: state.id, runner: id }, 'import run failed; it will be tried again');
    // Tried again after a pause that grows with the attempts, by whichever runner comes first.
    const retryAt = clock.now() + Math.min(60_000, 1_000 * 2 ** state.attempts);
    await repo.whileHeld(store.db, state.id, owner, { lease_until: retryAt }).catch(() => false);
    return 'failed';
  }
}
