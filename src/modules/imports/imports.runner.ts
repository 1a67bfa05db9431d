import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/index.js';
import type { Outcome } from './imports.products.js';
import { presentImport } from './imports.presenter.js';
import * as repo from './imports.repository.js';
import { fileRows, type RowError } from './imports.rows.js';
import { type Unit, type UnitContext, type UnitPlan, type UnitSource, unitSource } from './imports.units.js';

/**
 * The background side of imports. A runner claims one import at a time with a lease (a
 * conditional UPDATE of its row: `claimed_by`, `lease_until`), so two processes never run one
 * import, and goes through its file in two passes:
 *
 * 1. validate: every row is read and planned against the store (nothing written); errors are
 *    recorded, and a dry run's counts. A dry run, and an `abort` import with errors, end here.
 * 2. write: the rows are planned again and written, a batch (about `batchRows` rows, whole
 *    products or customers) per transaction, with their events.
 *
 * Every batch commits together with `position` (the data rows its pass has finished), and every
 * transaction first checks, by the same conditional UPDATE that renews the lease, that this runner
 * still holds the import (on PostgreSQL that also locks the row until the commit). A runner that
 * died leaves its lease to run out; whoever claims the import next reads the file again from the
 * start, skips what `position` says is done, and so writes no row twice.
 */

export interface ImportRunnerOptions {
  /** Rows per batch (default 500). */
  batchRows?: number;
  /** How long a claim holds without a commit (default 60 s). */
  leaseMs?: number;
  /** How often an idle runner looks for imports (default 1 s). */
  pollMs?: number;
  /** Claims before an import that keeps stopping is given up (default 5). */
  maxAttempts?: number;
}

export interface ImportRunnerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventService;
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

export type RunResult = 'none' | 'finished' | 'paused' | 'lost' | 'failed';

const EMPTY: ReadonlySet<number> = new Set();

export type ImportRunner = ReturnType<typeof createImportRunner>;

export function createImportRunner(deps: ImportRunnerDeps, options: ImportRunnerOptions = {}) {
  const { store, clock, logger, events } = deps;
  const batchRows = options.batchRows ?? 500;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const id = `imr_${randomBase62(12)}`;
  let running = false;
  /** Set by `stop`: a run in progress stops at its next commit and lets the import go. */
  let stopping = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  function wake(): void {
    woken = true;
    wakeUp?.();
  }

  function idle(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function* chunks(row: repo.ImportRow): AsyncGenerator<Buffer> {
    for (let seq = 0; seq < row.chunk_count; seq++) {
      const data = await repo.readChunk(store.db, row.id, seq);
      if (data === undefined) throw new Error(`import ${row.id} lost piece ${seq} of its file`);
      yield Buffer.from(data);
    }
  }

  /** One claimed import, run until it finishes, its lease is lost, or `batches` batches committed. */
  async function process(
    claimed: repo.ImportRow,
    owner: string,
    batches: number | undefined,
  ): Promise<RunResult> {
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
      if (source.prescan) await source.prescan(fileRows(state.format, chunks(state)));
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
        if (stopping) throw new Paused(true);
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
      for await (const item of fileRows(state.format, chunks(state))) {
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

  /**
   * Claims the oldest import no one holds and runs it. `batches` stops it, still claimed, after
   * that many committed batches (as a process that dies there would).
   */
  async function runNext(limits: { batches?: number } = {}): Promise<RunResult> {
    const now = clock.now();
    for (const candidate of await repo.claimable(store.db, now, 5)) {
      const owner = `${id}:${randomBase62(8)}`;
      if (!(await repo.claim(store.db, candidate, owner, now, now + leaseMs))) continue;
      const row = await repo.importById(store.db, candidate);
      if (!row) continue;
      return process(row, owner, limits.batches);
    }
    return 'none';
  }

  async function run(): Promise<void> {
    while (running) {
      let result: RunResult = 'none';
      try {
        result = await runNext();
      } catch (error) {
        logger.error({ err: error, runner: id }, 'import runner could not claim an import');
      }
      if (!running) break;
      if (result === 'none' || result === 'failed') await idle(pollMs);
    }
  }

  return {
    id,
    wake,
    runNext,

    /** Runs imports until none is left to claim (tests, and the operator's one-off runs). */
    async drain(): Promise<void> {
      for (let result = await runNext(); result !== 'none'; result = await runNext()) {
        if (result === 'paused') break;
      }
    },

    /** Starts the loop; it hears of new imports from this process at once, from others by notification or poll. */
    start(): void {
      if (running) return;
      running = true;
      stopping = false;
      store.listen('imports', wake, wake);
      loop = run();
    },

    /** Stops claiming; an import being run stops after its batch in flight and is left for a runner to resume. */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      stopping = true;
      wake();
      await loop;
      loop = undefined;
      stopping = false;
    },
  };
}
