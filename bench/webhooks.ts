import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';

/**
 * Webhook delivery: deliveries per second from the outbox to a local receiver (a child process)
 * against a plain undici POST loop to the same receiver in the same run, and the time from the
 * commit of the emitting transaction to the receiver's arrival (p50/p99).
 *
 *   node --import tsx bench/webhooks.ts          SQLite, plus PostgreSQL when TEST_DATABASE_URL is set
 *   BENCH_EVENTS=3000 BENCH_RATE=100 ...         events per throughput run, events/s in the latency run
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface WebhookMeasurement {
  scenario: string;
  deliveries: number;
  perSecond: number;
  ratio?: number | undefined;
  p50Ms?: number | undefined;
  p99Ms?: number | undefined;
}

// ---- the receiver, run as `bench/webhooks.ts receiver` in its own process

function receiverMain(): void {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      // `/count` while waiting (cheap for the bench process, which runs the worker being measured);
      // the arrival times once, at the end.
      const body = JSON.stringify(
        req.url === '/count'
          ? { count: arrivals.size, arrivals: {} }
          : { count: arrivals.size, arrivals: Object.fromEntries(arrivals) },
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (req.method === 'DELETE') {
      arrivals.clear();
      res.writeHead(204).end();
      return;
    }
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(
      `receiver listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`,
    );
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

async function startReceiverProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/webhooks.ts', 'receiver'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  return { url, child };
}

interface Stats {
  count: number;
  arrivals: Record<string, number>;
}

async function stats(url: string): Promise<Stats> {
  const res = await request(url);
  return (await res.body.json()) as Stats;
}

async function reset(url: string): Promise<void> {
  await (await request(url, { method: 'DELETE' })).body.dump();
}

async function waitForCount(url: string, count: number, timeoutMs: number): Promise<Stats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await stats(`${url}/count`);
    if (current.count >= count) return stats(url);
    if (Date.now() > deadline) throw new Error(`receiver got ${current.count} of ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

// ---- scenarios

/** The same body a delivery carries, POSTed by `connections` loops over keep-alive connections. */
async function plainUndiciLoop(url: string, total: number, connections: number, body: string) {
  const agent = new Agent({ connections, pipelining: 1 });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) {
        const n = next++;
        const res = await request(`${url}/plain`, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'webhook-id': `plain_${n}` },
          body,
        });
        await res.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return total / seconds;
}

async function tenantWithEndpoint(deps: Deps, url: string) {
  const tenant = await deps.tenants.create({
    name: 'Bench',
    email: `bench-${randomBase62(8).toLowerCase()}@example.com`,
  });
  const principal = {
    tenant: { ...tenant.tenant, livemode: true },
    userId: tenant.user.id,
    key: {
      id: tenant.apiKey.id,
      name: 'bench',
      type: 'secret' as const,
      permissions: new Set<never>(),
      expiresAt: null,
    },
  };
  const hook = await deps.webhooks.create(principal, { url: `${url}/hook`, events: ['product.updated'] });
  return { tenantId: tenant.tenant.id, hook };
}

function productObject(i: number) {
  return { id: `prod_${i}`, name: `Product ${i}`, sku: `SKU-${i}`, price: 1999, currency: 'USD', stock: i };
}

async function runDialect(
  label: string,
  env: Record<string, string>,
  receiverUrl: string,
  events: number,
  rate: number,
): Promise<WebhookMeasurement[]> {
  const config = loadConfig({
    TLS: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_INSECURE: 'true',
    ...env,
  });
  const deps = await createDeps(config);
  try {
    const { tenantId } = await tenantWithEndpoint(deps, receiverUrl);
    const emit = (trx: Parameters<Parameters<Deps['store']['transaction']>[0]>[0], i: number) =>
      deps.events.emit(trx, {
        tenantId,
        type: 'product.updated',
        objectType: 'product',
        object: productObject(i),
      });

    // Throughput: the outbox filled first (100 events a transaction), then drained by the worker.
    await reset(receiverUrl);
    for (let batch = 0; batch < events; batch += 100) {
      await deps.store.transaction(async (trx) => {
        for (let i = batch; i < Math.min(events, batch + 100); i++) await emit(trx, i);
      });
    }
    const started = performance.now();
    deps.webhookWorker.start();
    await waitForCount(receiverUrl, events, 300_000);
    const seconds = (performance.now() - started) / 1000;
    const throughput: WebhookMeasurement = {
      scenario: `${label}: outbox -> receiver, 1 endpoint (8 in flight)`,
      deliveries: events,
      perSecond: Math.round(events / seconds),
    };

    // Latency: one event per transaction at `rate` per second, worker running.
    await reset(receiverUrl);
    const committed = new Map<string, number>();
    const latencyEvents = Math.max(50, Math.min(events, rate * 10));
    const gap = 1000 / rate;
    const begin = Date.now();
    for (let i = 0; i < latencyEvents; i++) {
      const due = begin + i * gap;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      const event = await deps.store.transaction((trx) => emit(trx, events + i));
      committed.set(event.id, Date.now());
    }
    const arrived = await waitForCount(receiverUrl, latencyEvents, 120_000);
    const latencies = [...committed]
      .map(([id, at]) => (arrived.arrivals[id] ?? Number.NaN) - at)
      .filter((ms) => Number.isFinite(ms))
      .sort((a, b) => a - b);
    const latency: WebhookMeasurement = {
      scenario: `${label}: commit -> delivery at ${rate} events/s`,
      deliveries: latencies.length,
      perSecond: rate,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
    return [throughput, latency];
  } finally {
    await deps.close();
  }
}

export async function run(): Promise<WebhookMeasurement[]> {
  const events = Number(process.env.BENCH_EVENTS ?? 3000);
  const rate = Number(process.env.BENCH_RATE ?? 100);
  const receiver = await startReceiverProcess();
  const rows: WebhookMeasurement[] = [];
  try {
    const body = JSON.stringify({
      id: `evt_${randomBase62(24)}`,
      type: 'product.updated',
      created: new Date().toISOString(),
      api_version: '2026-11-21',
      data: { object: productObject(1) },
    });
    await plainUndiciLoop(receiver.url, 500, 8, body);
    const plain = await plainUndiciLoop(receiver.url, events, 8, body);
    const baseline: WebhookMeasurement = {
      scenario: 'plain undici POST loop, 8 connections',
      deliveries: events,
      perSecond: Math.round(plain),
      ratio: 1,
    };
    rows.push(baseline);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-wh-'));
    try {
      rows.push(...(await runDialect('SQLite', { DATA_DIR: dataDir }, receiver.url, events, rate)));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (pgUrl) {
      const schema = `bench_wh_${randomBase62(8).toLowerCase()}`;
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      try {
        rows.push(
          ...(await runDialect(
            'PostgreSQL',
            { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema, DATA_DIR: os.tmpdir() },
            receiver.url,
            events,
            rate,
          )),
        );
      } finally {
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      }
    }
    for (const row of rows) if (row.p50Ms === undefined) row.ratio = row.perSecond / baseline.perSecond;
    return rows;
  } finally {
    receiver.child.kill('SIGTERM');
  }
}

export function formatTable(rows: WebhookMeasurement[]): string {
  const lines = [
    '| scenario | deliveries | per second | ratio to plain undici | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.deliveries} | ${r.perSecond} | ${r.ratio === undefined ? '' : r.ratio.toFixed(2)} | ${r.p50Ms ?? ''} | ${r.p99Ms ?? ''} |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'receiver') {
    receiverMain();
  } else {
    const rows = await run();
    const cpu = os.cpus();
    process.stdout.write(
      `${formatTable(rows)}\n\nMachine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}\n`,
    );
  }
}
