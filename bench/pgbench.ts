import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { randomBase62 } from '../src/lib/ids.js';
import type { Measurement } from './lib.js';
import { tempDataDir } from './lib.js';

/**
 * PostgreSQL's own benchmark as a baseline measured in the same run as ours: `pgbench`'s default
 * script (TPC-B-like: three UPDATEs, a SELECT and an INSERT in one transaction), in a database of
 * its own that `pgbenchDatabase` creates, initialises at a scale (`pgbench -i -s`) and drops. At
 * scale 1 every transaction updates the one `pgbench_branches` row (a hot row); at scale 50 they
 * spread over 50.
 */

export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

export interface PgbenchDatabase {
  scale: number;
  /** Runs the TPC-B-like script with `clients` for `seconds`: tps and per-transaction latencies. */
  run(clients: number, seconds: number): Promise<Measurement>;
  drop(): Promise<void>;
}

/**
 * CPU time (user + system, µs) used so far by every PostgreSQL process on this machine (backends
 * and background workers: `postgres` in /proc, with the ended backends the postmaster has reaped),
 * or undefined where /proc shows none (PostgreSQL elsewhere). Read before and after a measurement, it tells what a transaction of either side cost
 * the database, whoever's connections it ran on.
 */
export function postgresCpuMicros(): number | undefined {
  let micros = 0;
  let found = false;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(') ');
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
    const fields = stat.slice(close + 2).split(' ');
    // Its own time and, for the postmaster, that of the backends it has reaped (a client's
    // connections that ended during the measurement, as pgbench's do).
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    micros += (ticks / 100) * 1e6;
    found = true;
  }
  return found ? micros : undefined;
}

export function pgbenchAvailable(): boolean {
  return fs.existsSync(PGBENCH);
}

function exec(args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(PGBENCH, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pgbench ${args.join(' ')} exited ${code}:\n${out}`)),
    );
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** A database of its own, initialised by `pgbench -i -s scale`, on the server `url` names. */
export async function pgbenchDatabase(url: string, scale: number): Promise<PgbenchDatabase> {
  const name = `cp_bench_pgbench_${scale}_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const conninfo = target.toString();
  const logs = tempDataDir();
  try {
    await exec(['-i', '-q', '-s', String(scale), conninfo]);
  } catch (error) {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
    throw error;
  }
  let runs = 0;
  return {
    scale,
    async run(clients, seconds) {
      const prefix = path.join(logs, `run${runs++}`);
      // -n: no VACUUM before the run (the tables were vacuumed by -i); -l: a line per transaction.
      const out = await exec([
        '-n',
        '-c',
        String(clients),
        '-j',
        '2',
        '-T',
        String(seconds),
        '-l',
        `--log-prefix=${prefix}`,
        conninfo,
      ]);
      const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
      const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
      const latencies: number[] = [];
      for (const file of fs.readdirSync(logs).filter((f) => f.startsWith(path.basename(prefix)))) {
        for (const line of fs.readFileSync(path.join(logs, file), 'utf8').split('\n')) {
          // client_id transaction_no time script_no time_epoch time_us: `time` is the latency in µs.
          const micros = Number(line.split(' ')[2]);
          if (Number.isFinite(micros) && line !== '') latencies.push(micros / 1000);
        }
        fs.rmSync(path.join(logs, file));
      }
      latencies.sort((a, b) => a - b);
      return {
        scenario: `pgbench TPC-B-like, scale ${scale}, ${clients} clients`,
        requestsPerSecond: Math.round(tps),
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        errors: failed,
      };
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
      fs.rmSync(logs, { recursive: true, force: true });
    },
  };
}
