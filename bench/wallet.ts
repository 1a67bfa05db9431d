import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import {
  benchEnv,
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
 * Wallet transfers per second over HTTP (POST /v1/wallet/transfer, each with its own
 * Idempotency-Key, as a careful client sends it), on SQLite and on PostgreSQL (when a database
 * answers at BENCH_DATABASE_URL or TEST_DATABASE_URL), as a ratio to a bare Fastify POST echo of
 * the same body measured in the same run. Patterns: 2 hot wallets (A->B and B->A in turn: every
 * transfer locks the same two rows), 200 wallets (random sender and receiver), and 200 wallets
 * without Idempotency-Key (one write transaction per request instead of three). Scenarios
 * take turns for BENCH_ROUNDS rounds and report their medians, so a busy machine skews them alike.
 * After the load the ledger is verified: a benchmark that broke an invariant fails.
 *
 * PostgreSQL's own CPU per transfer (its backends serving the server, found by the connections'
 * `application_name`; only when PostgreSQL runs on this machine, where /proc shows its processes)
 * is printed after the table: the server, PostgreSQL and the load generator share the cores, so
 * the sum of both CPU figures bounds the throughput.
 */

export interface WalletBenchOptions {
  rounds?: number;
  durationSeconds?: number;
  databaseUrl?: string | undefined;
  wallets?: number;
}

export interface Party {
  key: string;
  walletId: string;
}

export interface Store {
  name: string;
  env: Record<string, string>;
  server?: BenchServer;
  parties: Party[];
  /** CPU time (µs) so far of each database process serving the server, by pid; PostgreSQL only. */
  databaseCpu?: () => Promise<Map<number, number>>;
  drop(): Promise<void>;
}

/** PostgreSQL backends' CPU µs per request of each PostgreSQL scenario (median of its rounds). */
export const postgresCpuMicrosPerRequest = new Map<string, number>();

const FUNDS = 100_000_000_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
}

export async function databaseAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `count` tenants, each with a funded USD wallet and limits far above what the load reaches. */
export async function seed(env: Record<string, string>, count: number): Promise<Party[]> {
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }), {
    logger: pino({ level: 'warn' }),
  });
  try {
    const parties: Party[] = [];
    for (let i = 0; i < count; i++) {
      const created = await unlimitedTenant(deps, {
        name: `Bench wallet ${i}`,
        email: `bench-wallet-${i}@example.com`,
        currency: 'USD',
      });
      await deps.wallet.credit(created.tenant.id, { amount: FUNDS, currency: 'USD' });
      const balance = await deps.wallet.balance(created.tenant);
      parties.push({ key: created.apiKey.key, walletId: balance.wallet_id });
    }
    return parties;
  } finally {
    await deps.close();
  }
}

export async function verify(env: Record<string, string>): Promise<void> {
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }), {
    logger: pino({ level: 'warn' }),
  });
  try {
    const report = await deps.wallet.verify();
    if (!report.ok) throw new Error(`ledger invariants broken: ${JSON.stringify(report.violations)}`);
  } finally {
    await deps.close();
  }
}

async function sqliteStore(): Promise<Store> {
  const dataDir = tempDataDir();
  return {
    name: 'SQLite',
    env: benchEnv(dataDir),
    parties: [],
    drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** User plus system CPU time of process `pid` in µs, or undefined when /proc does not show it. */
function processCpu(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
  } catch {
    return undefined;
  }
}

export async function postgresStore(url: string): Promise<Store> {
  const dataDir = tempDataDir();
  const schema = `bench_wallet_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  // The server's connections carry the schema as their application_name, so its backends are found.
  const named = new URL(url);
  named.searchParams.set('application_name', schema);
  return {
    name: 'PostgreSQL',
    env: benchEnv(dataDir, { DATABASE_URL: named.toString(), DATABASE_SCHEMA: schema }),
    parties: [],
    databaseCpu: async () => {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [schema],
      );
      const cpu = new Map<number, number>();
      for (const { pid } of rows) {
        const micros = processCpu(pid);
        if (micros !== undefined) cpu.set(pid, micros);
      }
      return cpu;
    },
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Transfers of 1 minor unit; `pick` chooses the sender and receiver of each request; `keyed` adds a
 * unique Idempotency-Key (two more write transactions per request: the claim and the stored response).
 */
function transfers(pick: (n: number) => [Party, Party], keyed = true): autocannon.Request[] {
  let n = 0;
  const tag = randomBase62(8);
  return [
    {
      method: 'POST',
      path: '/v1/wallet/transfer',
      setupRequest: (request) => {
        const [from, to] = pick(n++);
        return {
          ...request,
          headers: {
            authorization: `Bearer ${from.key}`,
            'content-type': 'application/json',
            ...(keyed ? { 'idempotency-key': `bench-${tag}-${n}` } : {}),
          },
          body: JSON.stringify({ amount: 1, currency: 'USD', destination_wallet_id: to.walletId }),
        };
      },
    },
  ];
}

function hot(parties: Party[]) {
  const [a, b] = parties;
  if (!a || !b) throw new Error('two wallets needed');
  return transfers((n) => (n % 2 === 0 ? [a, b] : [b, a]));
}

export function spread(parties: Party[], keyed = true) {
  return transfers(() => {
    const i = Math.floor(Math.random() * parties.length);
    const j = (i + 1 + Math.floor(Math.random() * (parties.length - 1))) % parties.length;
    return [parties[i], parties[j]] as [Party, Party];
  }, keyed);
}

export async function run(options: WalletBenchOptions = {}): Promise<Measurement[]> {
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 2);
  const durationSeconds = options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 6);
  const walletCount = options.wallets ?? 200;
  const databaseUrl = options.databaseUrl ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

  const stores: Store[] = [await sqliteStore()];
  if (databaseUrl && (await databaseAnswers(databaseUrl))) stores.push(await postgresStore(databaseUrl));
  else process.stderr.write('No PostgreSQL answered (BENCH_DATABASE_URL / TEST_DATABASE_URL): skipped.\n');

  const body = JSON.stringify({
    amount: 1,
    currency: 'USD',
    destination_wallet_id: `wal_${randomBase62(24)}`,
  });
  let bare: BenchServer | undefined;
  try {
    for (const store of stores) {
      store.parties = await seed(store.env, walletCount);
      store.server = await startProcess(serverEntry(), store.env);
    }
    bare = await startProcess('bench/bare-server.ts');
    const echo = {
      url: `${bare.url}/v1/echo`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body,
    };

    await load('warm-up', { ...echo, durationSeconds: 2 });
    for (const store of stores) {
      await load('warm-up', {
        url: store.server?.url ?? '',
        requests: spread(store.parties),
        durationSeconds: 2,
      });
    }

    const runs = new Map<string, Measurement[]>();
    const databaseRuns = new Map<string, number[]>();
    const record = (m: Measurement) => runs.set(m.scenario, [...(runs.get(m.scenario) ?? []), m]);
    for (let round = 0; round < rounds; round++) {
      record(await load('bare Fastify POST /v1/echo', { ...echo, durationSeconds }, bare));
      for (const store of stores) {
        const url = store.server?.url ?? '';
        const patterns: [string, autocannon.Request[]][] = [
          ['2 hot wallets', hot(store.parties)],
          [`${walletCount} wallets`, spread(store.parties)],
          [`${walletCount} wallets, no Idempotency-Key`, spread(store.parties, false)],
        ];
        // Each round starts with another pattern, so none always follows the same one.
        const order = patterns.map((_, i) => patterns[(i + round) % patterns.length]);
        for (const [label, requests] of order.filter((p) => p !== undefined)) {
          const databaseBefore = await store.databaseCpu?.();
          const measured = await load(
            `POST /v1/wallet/transfer, ${store.name}, ${label}`,
            { url, requests, durationSeconds },
            store.server,
          );
          if (measured.errors > 0)
            throw new Error(`${measured.scenario}: ${measured.errors} non-2xx or errors`);
          record(measured);
          const databaseAfter = await store.databaseCpu?.();
          if (databaseBefore && databaseAfter && databaseAfter.size > 0) {
            // A backend that ended meanwhile is missed, one that started counts from its start.
            let micros = 0;
            for (const [pid, cpu] of databaseAfter) micros += cpu - (databaseBefore.get(pid) ?? 0);
            const requests = Math.max(1, Math.round(measured.requestsPerSecond * durationSeconds));
            databaseRuns.set(measured.scenario, [
              ...(databaseRuns.get(measured.scenario) ?? []),
              Math.round(micros / requests),
            ]);
          }
        }
      }
    }
    for (const store of stores) await verify(store.env);
    for (const [scenario, list] of databaseRuns) postgresCpuMicrosPerRequest.set(scenario, median(list));
    for (const [scenario, micros] of postgresCpuMicrosPerRequest) {
      process.stderr.write(`${scenario}: PostgreSQL backends' CPU ${micros} µs a transfer\n`);
    }

    const rows = [...runs.values()].map((list): Measurement => ({
      scenario: list[0]?.scenario ?? '',
      requestsPerSecond: median(list.map((m) => m.requestsPerSecond)),
      p50: median(list.map((m) => m.p50)),
      p99: median(list.map((m) => m.p99)),
      errors: list.reduce((sum, m) => sum + m.errors, 0),
      cpuMicrosPerRequest: median(list.map((m) => m.cpuMicrosPerRequest ?? 0)),
      peakRssMiB: Math.max(...list.map((m) => m.peakRssMiB ?? 0)),
    }));
    const baseline = rows[0]?.requestsPerSecond ?? 1;
    for (const row of rows) row.ratio = row.requestsPerSecond / baseline;
    return rows;
  } finally {
    await bare?.stop();
    for (const store of stores) {
      await store.server?.stop();
      await store.drop();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
