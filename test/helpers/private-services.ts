import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Private PostgreSQL and Redis servers that a test may stop, crash and restart at will. The
 * machine's shared servers (127.0.0.1:5432, :6379) serve other suites at the same time and are
 * never touched: each private server runs from its own temporary directory on a free port.
 */

const run = promisify(execFile);

export const POSTGRES_BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const REDIS_SERVER = 'redis-server';

/** Why private servers cannot run here, or undefined when they can. */
export function privatePostgresMissing(): string | undefined {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!fs.existsSync(path.join(POSTGRES_BIN, tool))) {
      return `PostgreSQL binaries not found in ${POSTGRES_BIN} (set TEST_POSTGRES_BIN)`;
    }
  }
  if (process.getuid?.() === 0 && !fs.existsSync('/usr/sbin/runuser') && !fs.existsSync('/sbin/runuser')) {
    return 'running as root without runuser: PostgreSQL refuses to run as root';
  }
  return undefined;
}

export function privateRedisMissing(): string | undefined {
  const found = (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => fs.existsSync(path.join(dir, REDIS_SERVER)));
  return found ? undefined : 'redis-server is not on PATH';
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication). */
  url: string;
  port: number;
  /** `fast`: sessions get 57P01 and are closed; `immediate`: killed, crash recovery at the next start. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/**
 * initdb + pg_ctl in a temporary directory owned by the `postgres` user (PostgreSQL refuses to run
 * as root), listening on 127.0.0.1 on a free port and a socket in the same directory.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-pg-'));
  const asRoot = process.getuid?.() === 0;
  const data = path.join(dir, 'data');
  const port = await freePort();
  const pgTool = async (tool: string, args: string[]) => {
    const binary = path.join(POSTGRES_BIN, tool);
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
    return run(command, argv, { cwd: dir, timeout: 120_000 });
  };
  if (asRoot) await run('chown', ['postgres:', dir]);
  await pgTool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=200',
    '-c shared_buffers=64MB',
  ].join(' ');
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await pgTool('pg_ctl', [
        '-D',
        data,
        '-o',
        options,
        '-l',
        path.join(dir, 'log'),
        '-w',
        '-t',
        '60',
        'start',
      ]);
      running = true;
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await pgTool('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async destroy() {
      try {
        await server.stop('immediate');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await server.start();
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}

export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL (`kill -9`): no shutdown; without persistence, the next start is empty. */
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** `redis-server` without persistence as a child process on a free port: a restart starts empty. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      const started = spawn(
        REDIS_SERVER,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 20_000);
        started.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('Ready to accept connections')) {
            clearTimeout(timer);
            resolve();
          }
        });
        started.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`redis-server exited with ${code}:\n${out}`));
        });
      });
      started.stdout?.resume();
      started.stderr?.resume();
    },
    async stop() {
      const current = child;
      child = undefined;
      if (!current || current.exitCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGTERM');
      const overdue = setTimeout(() => current.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(overdue);
    },
    async crash() {
      const current = child;
      child = undefined;
      if (!current || current.exitCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGKILL');
      await exited;
    },
    async destroy() {
      await server.stop();
    },
  };
  await server.start();
  return server;
}
