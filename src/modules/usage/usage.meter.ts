import type { Store } from '../../db/store.js';
import type { Logger } from '../../lib/logger.js';
import * as repo from './usage.repository.js';

/**
 * Usage metering without a database write per request: every authenticated response adds to an
 * in-memory row per (tenant, UTC day, endpoint); `flush` upserts the rows in one transaction
 * (`calls = calls + excluded.calls`), every second while the server runs and once more on close.
 * A failed flush keeps the counts for the next one.
 */

/** What the metering hook (usage.hooks.ts) hands each authenticated response to. */
export interface UsageRecorder {
  record(
    tenantId: string,
    endpoint: string,
    status: number,
    durationMs: number,
    at: number,
    rejected: boolean,
    /** The plugin whose installation token made the call, if one did (counted per plugin too). */
    pluginId?: string,
  ): void;
}

export const DAY_MS = 86_400_000;
const FLUSH_EVERY_MS = 1_000;
/** Rows per INSERT: 7 parameters each stays far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_STATEMENT = 500;

function compareRows(a: repo.UsageRow, b: repo.UsageRow): number {
  if (a.tenant_id !== b.tenant_id) return a.tenant_id < b.tenant_id ? -1 : 1;
  if (a.day !== b.day) return a.day - b.day;
  return a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0;
}

/** Unwritten rows by tenant, endpoint and day: no key string to build per request. */
type Pending = Map<string, Map<string, Map<number, repo.UsageRow>>>;

function rowFor(pending: Pending, tenantId: string, endpoint: string, day: number): repo.UsageRow {
  let byEndpoint = pending.get(tenantId);
  if (byEndpoint === undefined) {
    byEndpoint = new Map();
    pending.set(tenantId, byEndpoint);
  }
  let byDay = byEndpoint.get(endpoint);
  if (byDay === undefined) {
    byDay = new Map();
    byEndpoint.set(endpoint, byDay);
  }
  let row = byDay.get(day);
  if (row === undefined) {
    row = { tenant_id: tenantId, day, endpoint, calls: 0, errors: 0, rejected: 0, duration_us: 0 };
    byDay.set(day, row);
  }
  return row;
}

function rowsOf(pending: Pending): repo.UsageRow[] {
  const rows: repo.UsageRow[] = [];
  for (const byEndpoint of pending.values())
    for (const byDay of byEndpoint.values()) rows.push(...byDay.values());
  return rows;
}

/** Unwritten per-plugin rows, by `tenant \0 plugin \0 endpoint \0 day` (plugin calls are few). */
type PendingApps = Map<string, repo.AppUsageRow>;

function addAppRow(pending: PendingApps, row: repo.AppUsageRow): repo.AppUsageRow {
  const key = `${row.tenant_id}\0${row.plugin_id}\0${row.endpoint}\0${row.day}`;
  let into = pending.get(key);
  if (into === undefined) {
    into = { ...row, calls: 0, errors: 0, duration_us: 0 };
    pending.set(key, into);
  }
  into.calls += row.calls;
  into.errors += row.errors;
  into.duration_us += row.duration_us;
  return into;
}

export type UsageMeter = ReturnType<typeof createUsageMeter>;

export function createUsageMeter(deps: { store: Store; logger: Logger }) {
  const { store, logger } = deps;
  let pending: Pending = new Map();
  let pendingApps: PendingApps = new Map();
  /** Flushes run one after another, so "flush, then read" sees everything recorded before. */
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function write(): Promise<void> {
    if (pending.size === 0 && pendingApps.size === 0) return;
    const batch = pending;
    pending = new Map();
    const appBatch = pendingApps;
    pendingApps = new Map();
    // One order for every process: concurrent upserts of the same rows cannot deadlock.
    const rows = rowsOf(batch).sort(compareRows);
    const appKeys = [...appBatch.keys()].sort();
    const appRows = appKeys.map((key) => appBatch.get(key)).filter((row) => row !== undefined);
    try {
      await store.transaction(async (trx) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          await repo.addUsage(trx, rows.slice(i, i + ROWS_PER_STATEMENT));
        }
        for (let i = 0; i < appRows.length; i += ROWS_PER_STATEMENT) {
          await repo.addAppUsage(trx, appRows.slice(i, i + ROWS_PER_STATEMENT));
        }
      });
    } catch (error) {
      for (const row of appRows) addAppRow(pendingApps, row);
      for (const row of rows) {
        const into = rowFor(pending, row.tenant_id, row.endpoint, row.day);
        into.calls += row.calls;
        into.errors += row.errors;
        into.rejected += row.rejected;
        into.duration_us += row.duration_us;
      }
      throw error;
    }
  }

  /** Writes everything recorded before the call. */
  function flush(): Promise<void> {
    const run = chain.then(write);
    chain = run.catch(() => undefined);
    return run;
  }

  const recorder: UsageRecorder = {
    record(tenantId, endpoint, status, durationMs, at, rejected, pluginId) {
      const day = at - (at % DAY_MS);
      const row = rowFor(pending, tenantId, endpoint, day);
      const durationUs = Math.round(durationMs * 1000);
      row.calls += 1;
      if (status >= 400) row.errors += 1;
      if (rejected) row.rejected += 1;
      row.duration_us += durationUs;
      if (pluginId !== undefined) {
        addAppRow(pendingApps, {
          tenant_id: tenantId,
          day,
          plugin_id: pluginId,
          endpoint,
          calls: 1,
          errors: status >= 400 ? 1 : 0,
          duration_us: durationUs,
        });
      }
    },
  };

  return {
    record: recorder.record,
    flush,

    /** Calls that counted against the quota on days in [from, to), unflushed ones included. */
    async countedCalls(tenantId: string, from: number, to: number): Promise<number> {
      await flush();
      return repo.countedCalls(store.db, tenantId, from, to);
    },

    start(): void {
      timer ??= setInterval(() => {
        flush().catch((error: unknown) => logger.warn({ err: error }, 'usage flush failed; will retry'));
      }, FLUSH_EVERY_MS);
      timer.unref();
    },

    /** Stops the timer and writes what is left (before the store closes). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      try {
        await flush();
      } catch (error) {
        const calls = rowsOf(pending).reduce((sum, row) => sum + row.calls, 0);
        logger.error({ err: error, calls }, 'could not write the last metered usage; these calls are lost');
      }
    },
  };
}
