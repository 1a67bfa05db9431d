import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/index.js';
import { type ImportJob, type RunResult, runImport } from './imports.job.js';
import * as repo from './imports.repository.js';

export type { RunResult } from './imports.job.js';

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

export type ImportRunner = ReturnType<typeof createImportRunner>;

export function createImportRunner(deps: ImportRunnerDeps, options: ImportRunnerOptions = {}) {
  const { store, clock, logger } = deps;
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
  const job: ImportJob = {
    ...deps,
    runner: id,
    batchRows,
    leaseMs,
    maxAttempts,
    stopping: () => stopping,
  };

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
      return runImport(job, row, owner, limits.batches);
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
