import Database from 'better-sqlite3';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { sqliteFile } from '../src/db/store.js';
import {
  benchEnv,
  formatTable,
  load,
  machine,
  type Measurement,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * What the audit and request logs cost, each against the same server without it, in one run:
 *
 * - `GET /v1/users/me` with the request log on (every request captured, written every second),
 *   off, captured with its rows made but not written (what the log costs besides the store's
 *   write: the capture, the hand-over to its thread, the rows), and written with both bodies made
 *   and left out (what the bodies' bytes cost the write);
 * - `PATCH /v1/products/:id` (a new price each time, so each is a change) with its audit entry
 *   (the chain head's lock and update, the previous state's lookup, the entry) and without.
 *
 * Then it counts the pages of SQLite's write-ahead log a PATCH's commit writes without its entry
 * and with it (the entry's share of the commit's fsync).
 *
 * As bench/users-me.ts: fresh processes per measurement, the sides of a comparison back to back,
 * the order reversed every other round; a ratio is the median of the rounds' ratios to the off side.
 *
 *   BENCH_ROUNDS=3   rounds (odd)
 *   BENCH_SECONDS=3  seconds per measurement
 *   BENCH_ONLY=log   only the request log's sides (`audit`: only the audit entry's)
 */
type Side = 'log-off' | 'log-unwritten' | 'log-unbodied' | 'log-on' | 'audit-off' | 'audit-on';

export async function run(): Promise<Measurement[]> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const only = process.env.BENCH_ONLY as 'log' | 'audit' | undefined;
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir);
  const deps = await createDeps(loadConfig(env));
  const tenant = await unlimitedTenant(deps);
  const product = await deps.products.create(
    { id: tenant.tenant.id, currency: tenant.tenant.currency },
    { name: 'Bench mug', price: 1000 },
  );
  await deps.close();
  const headers = { authorization: `Bearer ${tenant.apiKey.key}` };

  async function measure(side: Side): Promise<Measurement> {
    const server = await startProcess('bench/audit-server.ts', {
      ...env,
      BENCH_REQUEST_LOG: side.startsWith('log-') ? side.slice('log-'.length) : 'on',
      BENCH_AUDIT: side === 'audit-off' ? 'off' : 'on',
    });
    try {
      if (side.startsWith('log-')) {
        const target = { url: `${server.url}/v1/users/me`, headers };
        await load('warm-up', { ...target, durationSeconds: 1 });
        return await load(side, { ...target, durationSeconds: seconds }, server);
      }
      let price = 1000;
      const requests: autocannon.Request[] = [
        {
          method: 'PATCH',
          path: `/v1/products/${product.id}`,
          headers: { ...headers, 'content-type': 'application/json' },
          setupRequest: (request) => {
            price = price >= 900_000 ? 1000 : price + 1;
            return { ...request, body: JSON.stringify({ price }) };
          },
        },
      ];
      const target = { url: server.url, requests, connections: 8 };
      await load('warm-up', { ...target, durationSeconds: 1 });
      return await load(side, { ...target, durationSeconds: seconds }, server);
    } finally {
      await server.stop();
    }
  }

  try {
    const measured: Record<Side, Measurement[]> = {
      'log-off': [],
      'log-unwritten': [],
      'log-unbodied': [],
      'log-on': [],
      'audit-off': [],
      'audit-on': [],
    };
    for (let round = 0; round < rounds; round++) {
      const groups = (
        [
          ['log-off', 'log-unwritten', 'log-unbodied', 'log-on'],
          ['audit-off', 'audit-on'],
        ] as Side[][]
      ).filter(([off]) => only === undefined || (off as string).startsWith(only));
      for (const group of groups) {
        const order = round % 2 === 0 ? group : [...group].reverse();
        for (const side of order) measured[side].push(await measure(side));
      }
    }
    for (const side of Object.keys(measured) as Side[]) {
      if (measured[side].length === 0) continue;
      const errors = measured[side].reduce((sum, m) => sum + m.errors, 0);
      if (errors > 0) throw new Error(`${side}: ${errors} non-2xx responses or errors`);
    }
    const against = (on: Side, off: Side, scenario: string): Measurement => {
      const ratios = measured[on].map(
        (m, i) => m.requestsPerSecond / (measured[off][i]?.requestsPerSecond ?? NaN),
      );
      const spread = `median of ${rounds} rounds, ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
      return {
        ...medianOf(measured[on]),
        scenario: `${scenario} (${spread})`,
        ratio: middle(ratios),
        paired: true,
      };
    };
    const baseline = (off: Side, scenario: string): Measurement => ({
      ...medianOf(measured[off]),
      scenario: `${scenario}: off (baseline)`,
      ratio: 1,
      paired: true,
    });
    if (only !== 'log') {
      const [off, on] = [await logPagesPerPatch(false), await logPagesPerPatch(true)];
      process.stdout.write(
        `SQLite log pages a PATCH's commit writes: ${off.toFixed(1)} without its audit entry, ${on.toFixed(1)} with it\n`,
      );
    }
    return [
      ...(only === 'audit'
        ? []
        : [
            baseline('log-off', 'GET /v1/users/me, request log'),
            against(
              'log-unwritten',
              'log-off',
              'GET /v1/users/me, request log: captured, rows made, not written',
            ),
            against(
              'log-unbodied',
              'log-off',
              'GET /v1/users/me, request log: written without the bodies (made, then left out)',
            ),
            against('log-on', 'log-off', 'GET /v1/users/me, request log: on'),
          ]),
      ...(only === 'log'
        ? []
        : [
            baseline('audit-off', 'PATCH /v1/products/:id, audit entry'),
            against('audit-on', 'audit-off', 'PATCH /v1/products/:id, audit entry: on'),
          ]),
    ];
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The pages of SQLite's write-ahead log one product PATCH's commit writes, the mean of 30 (each
 * a full page, and what the commit's fsync waits for): counted by the log's frames after a
 * checkpoint that empties it, on a store of its own.
 */
async function logPagesPerPatch(audit: boolean): Promise<number> {
  const dataDir = tempDataDir();
  const deps = await createDeps(loadConfig(benchEnv(dataDir)), { audit });
  const raw = new Database(sqliteFile(dataDir));
  try {
    const { tenant } = await unlimitedTenant(deps);
    const product = await deps.products.create(
      { id: tenant.id, currency: tenant.currency },
      { name: 'Bench mug', price: 1000 },
    );
    const patch = (price: number) => deps.products.update(tenant.id, product.id, { price });
    for (let price = 1001; price <= 1020; price++) await patch(price);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    // Fewer than the 1,000 pages at which SQLite checkpoints on its own.
    const commits = 30;
    for (let price = 2000; price < 2000 + commits; price++) await patch(price);
    const [state] = raw.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    return (state?.log ?? NaN) / commits;
  } finally {
    raw.close();
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

function medianOf(rows: Measurement[]): Measurement {
  const of = (pick: (m: Measurement) => number | undefined) => {
    const values = rows.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : middle(values);
  };
  return {
    scenario: '',
    requestsPerSecond: Math.round(of((m) => m.requestsPerSecond) ?? 0),
    p50: of((m) => m.p50) ?? 0,
    p99: of((m) => m.p99) ?? 0,
    errors: rows.reduce((sum, m) => sum + m.errors, 0),
    cpuMicrosPerRequest: of((m) => m.cpuMicrosPerRequest),
    peakRssMiB: Math.max(...rows.map((m) => m.peakRssMiB ?? 0)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${machine()}\n\n${formatTable(rows)}\n`);
}
