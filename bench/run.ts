import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { load, machine, type Measurement, root, startProcess } from './lib.js';

/**
 * `npm run bench`: builds (servers run from dist/ as `npm start` runs them), measures a bare
 * Fastify baseline, runs every scenario in bench/ that exists and exports `run()`, measures the
 * baseline again, and prints one table: each row's throughput as a ratio to the baseline, latency
 * p50/p99, server CPU per request and the server's peak RSS. The table is also written to
 * bench/RESULTS.md with the machine it ran on.
 *
 *   BENCH_SECONDS=8        seconds per measurement (scenarios' own default when unset)
 *   BENCH_PRODUCTS=1000000 rows for the large products-list measurement
 *   BENCH_CATALOG_PRODUCTS=100000 products behind the catalog read path measurement
 *   BENCH_STOREFRONT_PRODUCTS=200 products behind the storefront's catalog page and cart measurement
 *   BENCH_ORDERS=1000000   orders for the large analytics measurement
 *   BENCH_VARIANTS=1000000 variants in the large catalog of the variants measurement
 *   BENCH_CUSTOMERS=1000000 customers in the large store of the customers measurement
 *   BENCH_IMPORT_ROWS=100000 product rows imported; BENCH_EXPORT_VARIANTS=1000000 variants exported
 *   BENCH_ORDERS_ONLY=spread,hot,wallet,sqlite  the orders pairs to run; BENCH_ORDERS_ROUNDS=2
 *   BENCH_SALE_SHOPPERS=1000 BENCH_SALE_STOCK=100 BENCH_SALE_CONCURRENCY=100  the flash sale's size
 *   BENCH_DATABASE_URL=postgres://...  the imports measurement also on PostgreSQL
 *   BENCH_ONLY=users-me,wallet   run only these scenarios
 *   BENCH_NO_BUILD=1       use dist/ as it is
 */

const SCENARIOS = [
  'users-me',
  'products-list',
  'catalog',
  'storefront',
  'webhooks',
  'rate-limit',
  'wallet',
  'analytics',
  'variants',
  'customers',
  'pricing',
  'orders',
  'flash-sale',
  'imports',
] as const;
type ScenarioName = (typeof SCENARIOS)[number];

/** A GET /v1/users/me body of the size and shape our API answers, for the bare baseline to return. */
const USERS_ME_BODY = JSON.stringify({
  id: 'usr_4fGz0aQm1bX9sT2uV7wY3cE5',
  email: 'owner@example.com',
  name: 'Store Owner',
  role: 'owner',
  created: '2026-11-21T10:15:00.000Z',
  tenant: {
    id: 'ten_7cQp2ZxW1bX9sT2uV7wY3cE5',
    name: 'Bench Store',
    plan: 'enterprise',
    api_version: '2026-11-21',
    currency: 'USD',
  },
  api_key: {
    id: 'key_8KS0tx8OmtlLswWe3rrDpJ65',
    name: 'Default',
    permissions: ['read:users', 'read:products'],
  },
});

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

/** Each scenario's options from the environment; row counts stay consistent for small runs. */
function optionsFor(name: ScenarioName): Record<string, unknown> {
  switch (name) {
    case 'products-list': {
      const total = count('BENCH_PRODUCTS', 1_000_000);
      return { total, small: Math.min(1_000, Math.max(1, Math.floor(total / 10))) };
    }
    case 'analytics': {
      const total = count('BENCH_ORDERS', 1_000_000);
      return { total, small: Math.min(1_000, Math.max(1, Math.floor(total / 10))) };
    }
    case 'variants': {
      const total = count('BENCH_VARIANTS', 1_000_000);
      return { total, small: Math.min(1_000, Math.max(1, Math.floor(total / 10))) };
    }
    case 'customers': {
      // The small store stays at 1,000 customers: every page of it has to hold 20 rows.
      const total = count('BENCH_CUSTOMERS', 1_000_000);
      return { total, small: Math.min(1_000, total) };
    }
    default:
      return {};
  }
}

/** webhooks.ts reports deliveries per second; every other scenario reports Measurement rows. */
interface DeliveryRow {
  scenario: string;
  deliveries: number;
  perSecond: number;
  p50Ms?: number | undefined;
  p99Ms?: number | undefined;
}

function isDeliveryRow(row: unknown): row is DeliveryRow {
  return typeof row === 'object' && row !== null && 'perSecond' in row && 'deliveries' in row;
}

function toMeasurement(name: ScenarioName, row: Measurement | DeliveryRow): Measurement {
  if (!isDeliveryRow(row)) return { ...row, scenario: `${name}: ${row.scenario}` };
  const latency = row.p50Ms !== undefined;
  return {
    scenario: `${name}: ${row.scenario} (${latency ? 'events/s offered, latency commit to arrival' : 'deliveries/s'})`,
    requestsPerSecond: row.perSecond,
    p50: row.p50Ms ?? Number.NaN,
    p99: row.p99Ms ?? Number.NaN,
    errors: 0,
  };
}

/** Rows whose throughput is a rate the bench offered, not one it measured, get no ratio. */
function offered(row: Measurement): boolean {
  return row.scenario.includes('events/s offered');
}

/**
 * The columns of lib.ts's formatTable, with the ratio to two significant digits: most scenarios
 * do far more than the baseline, and "0.00" would hide the differences between them.
 */
function table(rows: Measurement[]): string {
  const cell = (value: number | undefined) =>
    value === undefined || Number.isNaN(value) ? '' : String(value);
  const ratio = (value: number | undefined) =>
    value === undefined ? '' : value >= 0.1 ? value.toFixed(2) : String(Number(value.toPrecision(2)));
  return [
    '| scenario | req/s | ratio to bare Fastify | p50 ms | p99 ms | server CPU µs/req | non-2xx/errors | peak RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.requestsPerSecond} | ${ratio(r.ratio)} | ${cell(r.p50)} | ${cell(r.p99)} | ${cell(r.cpuMicrosPerRequest)} | ${r.errors} | ${cell(r.peakRssMiB)} |`,
    ),
  ].join('\n');
}

async function baseline(when: string): Promise<Measurement> {
  const bare = await startProcess('bench/bare-server.ts', { BARE_USERS_ME: USERS_ME_BODY });
  try {
    await load('warm-up', { url: `${bare.url}/v1/users/me`, durationSeconds: 2 });
    const measured = await load(
      `bare Fastify GET /v1/users/me (baseline, ${when})`,
      { url: `${bare.url}/v1/users/me` },
      bare,
    );
    return measured;
  } finally {
    await bare.stop();
  }
}

function build(): void {
  if (process.env.BENCH_NO_BUILD) return;
  process.stderr.write('Building (npm run build)...\n');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) throw new Error(`npm run build failed with ${result.status}`);
}

function selected(): ScenarioName[] {
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!only) return [...SCENARIOS];
  const unknown = only.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown scenarios ${unknown.join(', ')}`);
  return SCENARIOS.filter((name) => only.includes(name));
}

const REDUCED = [
  'BENCH_SECONDS',
  'BENCH_PRODUCTS',
  'BENCH_ORDERS',
  'BENCH_VARIANTS',
  'BENCH_CUSTOMERS',
  'BENCH_EVENTS',
  'BENCH_ROUNDS',
  'BENCH_ONLY',
  'BENCH_IMPORT_ROWS',
  'BENCH_EXPORT_VARIANTS',
];

function settings(): string {
  const names = [
    'BENCH_SECONDS',
    'BENCH_ROUNDS',
    'BENCH_PRODUCTS',
    'BENCH_ORDERS',
    'BENCH_VARIANTS',
    'BENCH_CUSTOMERS',
    'BENCH_EVENTS',
    'BENCH_RATE',
    'BENCH_ONLY',
    'BENCH_IMPORT_ROWS',
    'BENCH_EXPORT_VARIANTS',
  ];
  const set = names.filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]}`);
  return set.length > 0 ? set.join(' ') : 'defaults (full run)';
}

export async function main(): Promise<number> {
  const started = new Date();
  const loadBefore = os.loadavg()[0] ?? 0;
  build();
  const names = selected();
  const rows: Measurement[] = [];
  const notes: string[] = [];
  // The baseline is measured first and last; ratios are to the mean of both, so a machine that
  // got busier or quieter during the run skews the table less (both rows show how much it moved).
  const first = await baseline('start');
  const measured: Measurement[] = [];

  for (const name of names) {
    const file = path.join(root, 'bench', `${name}.ts`);
    if (!fs.existsSync(file)) {
      notes.push(`${name}: no bench/${name}.ts yet`);
      continue;
    }
    const module = (await import(pathToFileURL(file).href)) as {
      run?: (options?: object) => Promise<unknown[]>;
    };
    if (typeof module.run !== 'function') {
      notes.push(`${name}: bench/${name}.ts exports no run()`);
      continue;
    }
    process.stderr.write(`\n== ${name}\n`);
    const began = Date.now();
    try {
      const produced = (await module.run(optionsFor(name))) as (Measurement | DeliveryRow)[];
      for (const row of produced) {
        const measurement = toMeasurement(name, row);
        measured.push(measurement);
      }
      process.stderr.write(
        `${name}: ${produced.length} rows in ${((Date.now() - began) / 1000).toFixed(0)} s\n`,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      notes.push(`${name}: FAILED: ${message.split('\n')[0]}`);
      process.stderr.write(`${name} failed: ${message}\n`);
    }
  }

  const last = await baseline('end');
  const base = (first.requestsPerSecond + last.requestsPerSecond) / 2;
  rows.push(first, ...measured, last);
  for (const row of rows) {
    if (!row.paired) row.ratio = offered(row) ? undefined : row.requestsPerSecond / base;
  }
  const rendered = table(rows);
  const loadAfter = os.loadavg()[0] ?? 0;
  const report = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${started.toISOString()}.`,
    '',
    `- Machine: ${machine()}`,
    `- Settings: ${settings()}`,
    REDUCED.some((name) => process.env[name])
      ? '- **A reduced run** (shorter measurements, fewer rows or scenarios): it shows the harness works; its figures are not the full table.'
      : '- A full run: every scenario at its default duration and row counts.',
    `- Load average (1 min) at start / end: ${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)} on ${os.cpus().length} cores`,
    `- Duration: ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} min`,
    '',
    'Ratio: the row’s throughput over the bare Fastify baseline measured in this run (the mean of the first and last rows); users-me rows give the median ratio of their own paired rounds against bare Fastify (fresh processes, measured back to back).',
    'Webhook rows count deliveries per second, not requests; their latency is commit-to-arrival.',
    'Server CPU µs/req and peak RSS are the server process’s (empty where the work ran in the bench process).',
    '',
    rendered,
    '',
    ...(notes.length > 0 ? ['Notes:', '', ...notes.map((note) => `- ${note}`), ''] : []),
  ].join('\n');
  process.stdout.write(`\n${rendered}\n\nMachine: ${machine()}\n${notes.map((n) => `${n}\n`).join('')}`);
  fs.writeFileSync(path.join(root, 'bench', 'RESULTS.md'), report);
  process.stderr.write('Wrote bench/RESULTS.md\n');
  return notes.some((note) => note.includes('FAILED')) ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main();
}
