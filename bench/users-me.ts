import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import {
  type BenchServer,
  formatTable,
  load,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * GET /v1/users/me (authenticated: key lookup, rate limits and their headers, permission, version,
 * metering) against a bare Fastify route returning the same JSON, both over HTTP in child
 * processes started with `npm start`'s Node options.
 *
 * On a 2-core machine the load generator shares the cores with the server, and one measurement of
 * unchanged code varies by about ±10% (where the scheduler puts the processes, each process's luck
 * with the JIT and the GC). So the two are measured in rounds, each round with freshly started
 * processes measured back to back, the order alternating between rounds; the ratio reported is
 * the median of the rounds' ratios, and the rows carry the median throughput of each side.
 *
 * A third row, measured in the same rounds, is bare Fastify plus the seven response headers the
 * API puts on every authenticated response: what those headers alone cost, as a reference.
 *
 *   BENCH_ROUNDS=5   rounds (odd, so the median is one round's ratio)
 *   BENCH_SECONDS=4  seconds per measurement
 */
export async function run(): Promise<Measurement[]> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  if (!Number.isSafeInteger(rounds) || rounds < 1)
    throw new Error('BENCH_ROUNDS must be a positive whole number');
  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const dataDir = tempDataDir();
  const env = { DATA_DIR: dataDir, TLS: 'off', DEMO_DATA: 'off' };
  const deps = await createDeps(loadConfig(env));
  const tenant = await unlimitedTenant(deps);
  await deps.close();
  const headers = { authorization: `Bearer ${tenant.apiKey.key}` };
  let body: string | undefined;

  /** Starts a fresh process, warms it up, measures it and stops it. */
  async function measure(side: Side): Promise<Measurement> {
    let server: BenchServer;
    if (side === 'ours') {
      server = await startProcess(serverEntry(), env);
    } else {
      // The bare route returns exactly what ours answered.
      body ??= await measureBody();
      server = await startProcess('bench/bare-server.ts', {
        BARE_USERS_ME: body,
        ...(side === 'headers' ? { BARE_HEADERS: 'api' } : {}),
      });
    }
    const target = { url: `${server.url}/v1/users/me`, headers: side === 'ours' ? headers : undefined };
    try {
      await load('warm-up', { ...target, durationSeconds: 2 });
      return await load(side, { ...target, durationSeconds: seconds }, server);
    } finally {
      await server.stop();
    }
  }

  async function measureBody(): Promise<string> {
    const server = await startProcess(serverEntry(), env);
    try {
      return await (await fetch(`${server.url}/v1/users/me`, { headers })).text();
    } finally {
      await server.stop();
    }
  }

  try {
    const measured: Record<Side, Measurement[]> = { bare: [], headers: [], ours: [] };
    for (let round = 0; round < rounds; round++) {
      // Each side goes first, second and last in turn.
      const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length] as Side);
      for (const side of order) measured[side].push(await measure(side));
    }
    const failed = measured.ours.reduce((sum, m) => sum + m.errors, 0);
    if (failed > 0) throw new Error(`GET /v1/users/me had ${failed} non-2xx responses`);
    const row = (side: Side, scenario: string): Measurement => {
      const ratios = measured[side].map(
        (m, i) => m.requestsPerSecond / (measured.bare[i]?.requestsPerSecond ?? Number.NaN),
      );
      const spread = `median of ${rounds} rounds, ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
      return {
        ...median(measured[side]),
        scenario: `${scenario} (${spread})`,
        ratio: middle(ratios),
        paired: true,
      };
    };
    return [
      {
        ...median(measured.bare),
        scenario: `bare Fastify GET /v1/users/me (median of ${rounds} rounds)`,
        ratio: 1,
        paired: true,
      },
      row('headers', 'bare Fastify + the API’s 7 response headers (reference)'),
      row('ours', 'GET /v1/users/me (authenticated)'),
    ];
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const SIDES = ['bare', 'headers', 'ours'] as const;
type Side = (typeof SIDES)[number];

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

/** Each column's median over the rounds (latencies and CPU from the same rounds as the throughput). */
function median(rows: Measurement[]): Measurement {
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
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
