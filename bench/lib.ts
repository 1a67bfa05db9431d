import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Deps } from '../src/deps.js';
import type { CreateTenantInput } from '../src/modules/tenants/tenants.service.js';

/**
 * Shared benchmark machinery: servers run as child processes (one core for the server, one for
 * the load generator on a 2-core machine), autocannon measures, and every scenario reports a
 * ratio to a bare Fastify server measured in the same run.
 */

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Measurement {
  scenario: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** Peak resident memory of the server process, MiB. */
  peakRssMiB?: number | undefined;
  /** Server CPU time per request, microseconds: steadier than req/s on a shared machine. */
  cpuMicrosPerRequest?: number | undefined;
  ratio?: number | undefined;
  /**
   * The scenario measured `ratio` itself against bare Fastify in paired rounds (fresh processes,
   * back to back; the median of the rounds): `npm run bench` keeps it rather than dividing by its
   * own baseline.
   */
  paired?: boolean | undefined;
}

export interface BenchServer {
  url: string;
  child: ChildProcess;
  peakRssMiB(): number;
  /** CPU time (user + system) the process has used so far, in microseconds. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/**
 * The Node options of `npm start` (package.json), e.g. a larger young generation: every server a
 * bench starts, ours and the bare baseline alike, runs with them.
 */
function startNodeOptions(): string[] {
  // BENCH_START_FLAGS replaces them, to measure other Node options against the same code.
  const override = process.env.BENCH_START_FLAGS;
  if (override !== undefined) return override.split(' ').filter((flag) => flag !== '');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const flags = /^node ((?:--\S+ )*)scripts\/run\.mjs/.exec(pkg.scripts.start ?? '')?.[1] ?? '';
  return flags.split(' ').filter((flag) => flag !== '');
}

/** Starts a TypeScript entry as a child process and waits for `listening on URL` on stdout. */
export async function startProcess(entry: string, env: Record<string, string> = {}): Promise<BenchServer> {
  // Compiled entries (dist/*.js) run as `npm start` runs them; TypeScript ones through tsx.
  const args = [...startNodeOptions(), ...(entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry])];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${out}`)), 60_000);
    child.stdout?.on('data', () => {
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${out}`)));
  });
  let peak = 0;
  const pid = child.pid;
  const sampler = setInterval(() => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      if (match?.[1]) peak = Math.max(peak, Number(match[1]) / 1024);
    } catch {
      // The process is gone.
    }
  }, 200);
  return {
    url,
    child,
    peakRssMiB: () => Math.round(peak),
    cpuMicros: () => {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      const ticks = Number(fields[11]) + Number(fields[12]);
      return (ticks / 100) * 1e6;
    },
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Requests built per call, for varying bodies (e.g. idempotency keys). */
  requests?: autocannon.Request[];
  connections?: number;
  durationSeconds?: number;
}

export async function load(
  scenario: string,
  options: LoadOptions,
  server?: BenchServer,
): Promise<Measurement> {
  const cpuBefore = server?.cpuMicros() ?? 0;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    requests: options.requests,
    connections: options.connections ?? 32,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8),
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    scenario,
    ...(server
      ? {
          cpuMicrosPerRequest: Math.round(
            (server.cpuMicros() - cpuBefore) / Math.max(1, result.requests.total),
          ),
          peakRssMiB: server.peakRssMiB(),
        }
      : {}),
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  };
}

/**
 * A cursor to the rows after the first `position` of the list at `path` (`position` a multiple of
 * 100), reached by walking it a page of 100 at a time: `offset` stops at 10,000.
 */
export async function cursorAfter(
  server: BenchServer,
  key: string,
  path: string,
  position: number,
): Promise<string> {
  const separator = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  for (let passed = 0; passed < position; passed += 100) {
    const url: string = `${server.url}${path}${separator}limit=100${cursor === null ? '' : `&cursor=${cursor}`}`;
    const headers = { authorization: `Bearer ${key}` };
    // A pooled keep-alive connection may have timed out during a long load: retry once on a new one.
    const res = await fetch(url, { headers }).catch(() => fetch(url, { headers }));
    const page = (await res.json()) as { next_cursor: string | null };
    if (res.status !== 200 || page.next_cursor === null) {
      throw new Error(
        `${path}: no page after row ${passed} (status ${res.status}); is dist/ stale? npm run build`,
      );
    }
    cursor = page.next_cursor;
  }
  if (cursor === null) throw new Error(`${path}: position ${position} is no page boundary`);
  return cursor;
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cp-bench-'));
}

export function formatTable(rows: Measurement[]): string {
  const header =
    '| scenario | req/s | ratio to bare Fastify | p50 ms | p99 ms | server CPU µs/req | non-2xx/errors | peak RSS MiB |';
  const line = '|---|---:|---:|---:|---:|---:|---:|---:|';
  const body = rows.map(
    (r) =>
      `| ${r.scenario} | ${r.requestsPerSecond} | ${r.ratio === undefined ? '' : r.ratio.toFixed(2)} | ${r.p50} | ${r.p99} | ${r.cpuMicrosPerRequest ?? ''} | ${r.errors} | ${r.peakRssMiB ?? ''} |`,
  );
  return [header, line, ...body].join('\n');
}

export function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The server as `npm start` runs it (dist/server.js) when built, else the TypeScript source. */
export function serverEntry(): string {
  return fs.existsSync(path.join(root, 'dist', '.build-stamp')) && !process.env.BENCH_FROM_SOURCE
    ? 'dist/server.js'
    : 'src/server.ts';
}

/**
 * A tenant on the enterprise plan whose rate limit and quota a bench cannot reach: the measurement
 * is of the route, not of a 429.
 */
export async function unlimitedTenant(deps: Deps, input: Partial<CreateTenantInput> = {}) {
  const created = await deps.tenants.create({
    name: 'Bench Store',
    email: 'bench@example.com',
    plan: 'enterprise',
    ...input,
  });
  await deps.tenants.setLimits(created.tenant.id, { hourly: 1_000_000_000, monthly: 1_000_000_000_000 });
  return created;
}

/** Warms the first URL up, then measures each `[name, url]` in turn; any non-2xx fails the bench. */
export async function measureEach(
  server: BenchServer,
  headers: Record<string, string>,
  scenarios: [name: string, url: string][],
  options: { durationSeconds?: number | undefined; connections: number },
): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const first = scenarios[0];
  if (first) await load('warm-up', { url: first[1], headers, durationSeconds: 2 });
  for (const [name, url] of scenarios) {
    const result = await load(name, { url, headers, ...options }, server);
    if (result.errors > 0)
      throw new Error(`${result.scenario}: ${result.errors} non-2xx responses or errors`);
    out.push(result);
  }
  return out;
}

/**
 * The environment of a bench's server: plain HTTP, an empty store in `dataDir`, and (by default)
 * no in-process webhook worker polling beside the measured route.
 */
export function benchEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    TLS: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'warn',
    WEBHOOK_WORKER_IN_PROCESS: 'false',
    ...extra,
  };
}
