import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import {
  type BenchServer,
  formatTable,
  load,
  machine,
  type Measurement,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * What rate limits, the monthly quota and usage metering cost: one authenticated GET route served
 * by three servers over the same store, in one run: without them, with in-memory counters, and
 * with Redis counters (when a Redis answers at BENCH_REDIS_URL, TEST_REDIS_URL or REDIS_URL).
 * Scenarios take turns for several rounds (in rotating order) and each reports its median, so a
 * busy machine skews them alike; server CPU time per request is the steadier figure. The tenant's limits are far above what the load reaches: this measures the checks,
 * not refusals.
 */

export interface RateLimitBenchOptions {
  /** The route to load, e.g. `/v1/products`; default `/v1/products` when it answers 200, else `/v1/users/me`. */
  route?: string;
  rounds?: number;
  durationSeconds?: number;
  redisUrl?: string;
}

interface Scenario {
  name: string;
  env: Record<string, string>;
  server?: BenchServer;
  runs: Measurement[];
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
}

export async function run(options: RateLimitBenchOptions = {}): Promise<Measurement[]> {
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3);
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 6);
  const dataDir = tempDataDir();
  const env = { DATA_DIR: dataDir, TLS: 'off', DEMO_DATA: 'off' };

  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }), {
    logger: pino({ level: 'warn' }),
  });
  let key: string;
  try {
    key = (await unlimitedTenant(deps)).apiKey.key;
  } finally {
    await deps.close();
  }

  const redisUrl =
    options.redisUrl ?? process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
  const scenarios: Scenario[] = [
    { name: 'limits and metering off', env: { BENCH_LIMITS: 'off' }, runs: [] },
    { name: 'on, in-memory counters', env: {}, runs: [] },
  ];
  if (redisUrl && (await redisAnswers(redisUrl))) {
    scenarios.push({
      name: 'on, Redis counters',
      env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench:${randomBase62(8)}:` },
      runs: [],
    });
  } else {
    process.stderr.write(
      'No Redis answered (BENCH_REDIS_URL / TEST_REDIS_URL / REDIS_URL): Redis scenario skipped.\n',
    );
  }

  const headers = { authorization: `Bearer ${key}` };
  try {
    for (const scenario of scenarios) {
      scenario.server = await startProcess('bench/rate-limit-server.ts', { ...env, ...scenario.env });
    }
    const first = scenarios[0]?.server;
    if (!first) throw new Error('no server started');
    let route = options.route;
    if (route === undefined) {
      const probe = await fetch(`${first.url}/v1/products`, { headers });
      route = probe.ok ? '/v1/products' : '/v1/users/me';
    }
    for (const scenario of scenarios) {
      const res = await fetch(`${scenario.server?.url}${route}`, { headers });
      if (!res.ok) throw new Error(`${scenario.name}: GET ${route} answered ${res.status}`);
      await load('warm-up', { url: `${scenario.server?.url}${route}`, headers, durationSeconds: 2 });
    }
    for (let round = 0; round < rounds; round++) {
      // Each round starts with another scenario, so none always follows the same one.
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      for (const scenario of order) {
        if (!scenario) continue;
        const measured = await load(
          scenario.name,
          { url: `${scenario.server?.url}${route}`, headers, durationSeconds },
          scenario.server,
        );
        if (measured.errors > 0) throw new Error(`${scenario.name}: ${measured.errors} non-2xx responses`);
        scenario.runs.push(measured);
      }
    }
    const rows = scenarios.map((scenario): Measurement => ({
      scenario: `GET ${route}: ${scenario.name}`,
      requestsPerSecond: median(scenario.runs.map((m) => m.requestsPerSecond)),
      p50: median(scenario.runs.map((m) => m.p50)),
      p99: median(scenario.runs.map((m) => m.p99)),
      errors: scenario.runs.reduce((sum, m) => sum + m.errors, 0),
      cpuMicrosPerRequest: median(scenario.runs.map((m) => m.cpuMicrosPerRequest ?? 0)),
      peakRssMiB: Math.max(...scenario.runs.map((m) => m.peakRssMiB ?? 0)),
    }));
    const baseline = rows[0];
    for (const row of rows)
      row.ratio = baseline ? row.requestsPerSecond / baseline.requestsPerSecond : undefined;
    return rows;
  } finally {
    await Promise.all(scenarios.map((scenario) => scenario.server?.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const routeFlag = process.argv.indexOf('--route');
  const rows = await run(routeFlag > 0 ? { route: process.argv[routeFlag + 1] } : {});
  const baseline = rows[0];
  const costs = rows
    .slice(1)
    .map(
      (row) =>
        `${row.scenario}: ${(100 * (1 - (row.ratio ?? 1))).toFixed(1)}% fewer req/s, ` +
        `${(100 * ((row.cpuMicrosPerRequest ?? 0) / (baseline?.cpuMicrosPerRequest || 1) - 1)).toFixed(1)}% more server CPU per request`,
    );
  process.stdout.write(
    `${formatTable(rows)}\n\n(ratio column: to "limits and metering off")\n${costs.join('\n')}\n\nMachine: ${machine()}\n`,
  );
}
