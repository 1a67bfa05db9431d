import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { machine } from './lib.js';
import { postgresCpuMicros } from './pgbench.js';

/**
 * What one round trip to PostgreSQL costs on this machine, with nothing else in it: `clients`
 * node-postgres connections (1, 10 and 50 by default, `BENCH_RT_CLIENTS`), each sending `SELECT
 * $1::int` and waiting for its answer, for `BENCH_SECONDS` (5). Prints round trips a second and the
 * CPU each took of this Node process and of PostgreSQL's processes (when it runs on this machine).
 * An order's round trips times these is what its statements cost before they do any work
 * (docs/benchmarks.md, "Orders").
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/pg-round-trip.ts
 */

export interface RoundTrips {
  clients: number;
  perSecond: number;
  nodeMicros: number;
  postgresMicros: number | undefined;
}

export async function measureRoundTrips(url: string, clients: number, seconds: number): Promise<RoundTrips> {
  const connections = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  try {
    for (const client of connections) for (let i = 0; i < 100; i++) await client.query('SELECT $1::int', [i]);
    let count = 0;
    const databaseBefore = postgresCpuMicros();
    const before = process.cpuUsage();
    const started = Date.now();
    const end = started + seconds * 1_000;
    await Promise.all(
      connections.map(async (client) => {
        while (Date.now() < end) {
          await client.query('SELECT $1::int', [count]);
          count += 1;
        }
      }),
    );
    const used = process.cpuUsage(before);
    const databaseAfter = postgresCpuMicros();
    const elapsed = (Date.now() - started) / 1_000;
    return {
      clients,
      perSecond: Math.round(count / elapsed),
      nodeMicros: (used.user + used.system) / count,
      postgresMicros:
        databaseBefore === undefined || databaseAfter === undefined
          ? undefined
          : (databaseAfter - databaseBefore) / count,
    };
  } finally {
    await Promise.all(connections.map((client) => client.end()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('pg-round-trip: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const counts = (process.env.BENCH_RT_CLIENTS ?? '1,10,50').split(',').map(Number);
  process.stdout.write(
    '| clients | round trips/s | Node CPU µs a round trip | PostgreSQL CPU µs a round trip |\n',
  );
  process.stdout.write('|---:|---:|---:|---:|\n');
  for (const clients of counts) {
    const r = await measureRoundTrips(url, clients, seconds);
    const database = r.postgresMicros === undefined ? '' : r.postgresMicros.toFixed(1);
    process.stdout.write(`| ${clients} | ${r.perSecond} | ${r.nodeMicros.toFixed(1)} | ${database} |\n`);
  }
  process.stdout.write(`\nMachine: ${machine()}\n`);
}
