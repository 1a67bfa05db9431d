import type autocannon from 'autocannon';
import { type BenchServer, load, type LoadOptions, type Measurement } from './lib.js';

/**
 * Comparisons measured in rounds: the targets of a comparison are measured back to back, each
 * round in another order, and a row's name carries the median of its rounds' ratios to the first
 * target with their range. On a 2-core machine shared with the load generator, two measurements
 * of one route minutes apart differ more than the effects a scale bench looks for, so only ratios
 * within a round are compared.
 */

/** Rounds of every group of rows, and the load each measurement puts on the server. */
export interface Settings {
  rounds: number;
  durationSeconds: number;
  connections: number;
}

/** One row: a server, and the load autocannon puts on it. */
export interface Target {
  name: string;
  server: BenchServer;
  load: LoadOptions;
}

export function getting(server: BenchServer, key: string, path: string): LoadOptions {
  return { url: `${server.url}${path}`, headers: { authorization: `Bearer ${key}` } };
}

/** POSTs of `body(n)` for n = 0, 1, 2, … across every load of the target (unique SKUs per request). */
export function posting(
  server: BenchServer,
  key: string,
  path: string,
  body: (n: number) => string,
): LoadOptions {
  let n = 0;
  const requests: autocannon.Request[] = [
    {
      method: 'POST',
      path,
      setupRequest: (request) => ({
        ...request,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body(n++),
      }),
    },
  ];
  return { url: server.url, requests };
}

/** An API call of a bench's setup; any status but the expected one stops the bench. */
export async function call<T>(
  server: BenchServer,
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  expected = method === 'POST' ? 201 : 200,
): Promise<T> {
  const request = () =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // A pooled keep-alive connection may have timed out during a long load: retry once on a new one.
  const response = await request().catch(request);
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(
      `${method} ${path}: ${response.status} ${text.slice(0, 500)}; is dist/ stale? npm run build`,
    );
  }
  return JSON.parse(text) as T;
}

/** 1,000,000 as "1M", 50,000 as "50k". */
export function label(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 100 === 0) return `${n / 1_000}k`;
  return n.toLocaleString('en-US');
}

/**
 * Warms every target up, then measures them in rounds, each round in another order (each target
 * first in turn): a machine that gets busier or quieter skews all of them alike. Returns each
 * target's measurements, round by round.
 */
export async function inRounds(targets: readonly Target[], settings: Settings): Promise<Measurement[][]> {
  const { connections, durationSeconds } = settings;
  for (const target of targets) await load('warm-up', { ...target.load, connections, durationSeconds: 2 });
  const runs = targets.map((): Measurement[] => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (k + round) % targets.length;
      const target = targets[index] as Target;
      const result = await load(target.name, { ...target.load, connections, durationSeconds }, target.server);
      if (result.errors > 0) throw new Error(`${target.name}: ${result.errors} non-2xx responses or errors`);
      runs[index]?.push(result);
    }
  }
  return runs;
}

export function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

/** Each column's median over the rounds. */
function median(rows: readonly Measurement[]): Measurement {
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

function rounds(n: number): string {
  return n === 1 ? 'one round' : `median of ${n} rounds`;
}

/**
 * The first target is the baseline; every other row names its throughput over the baseline's:
 * the median of the rounds' ratios (each round's pair measured back to back), with their range.
 * `scale` turns requests into units (e.g. variants per request) for the ratio. With `second`,
 * the rows after the target at `second.index` also name their ratio to it, measured alike.
 */
export async function group(
  targets: readonly Target[],
  against: string,
  settings: Settings,
  scale: (target: Target) => number = () => 1,
  second?: { index: number; against: string },
): Promise<Measurement[]> {
  const runs = await inRounds(targets, settings);
  const ratioTo = (index: number, to: number, label: string): string => {
    const factor = scale(targets[index] as Target) / scale(targets[to] as Target);
    const base = runs[to] as Measurement[];
    const ratios = (runs[index] as Measurement[]).map(
      (m, round) => (m.requestsPerSecond * factor) / Math.max(1, base[round]?.requestsPerSecond ?? 0),
    );
    const range =
      ratios.length > 1 ? `, ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}` : '';
    return `${middle(ratios).toFixed(2)} × ${label} (${rounds(ratios.length)}${range})`;
  };
  return targets.map((target, index) => {
    const own = runs[index] as Measurement[];
    if (index === 0) return { ...median(own), scenario: `${target.name} (baseline, ${rounds(own.length)})` };
    const also =
      second !== undefined && index > second.index ? `; ${ratioTo(index, second.index, second.against)}` : '';
    return { ...median(own), scenario: `${target.name}: ${ratioTo(index, 0, against)}${also}` };
  });
}
