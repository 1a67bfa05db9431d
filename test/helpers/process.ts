import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from '../../scripts/build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash) and wait. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

export interface SpawnOptions {
  /**
   * The stdout line that says the process is ready; its first capture group, if any, is `url`.
   * Default: `listening on URL` (the server). For `src/worker.ts`: `WORKER_READY`.
   */
  ready?: RegExp;
  /**
   * Serve under this open-file limit (soft and hard), set once the modules are loaded: the entry
   * must be `src/server.ts`, run through test/helpers/under-file-limit.ts. Needs util-linux's
   * `prlimit` (see `hasPrlimit`).
   */
  openFileLimit?: number;
}

/**
 * The `skip` option of a suite that starts server or worker processes: `npm run test:unit`
 * (scripts/test.mjs --unit, which sets TEST_UNIT) leaves those to the full `npm test`.
 */
export const SKIP_IN_UNIT_RUN: string | false = process.env.TEST_UNIT
  ? 'starts server or worker processes: run by npm test, not npm run test:unit'
  : false;

/** Whether util-linux's `prlimit`, which `openFileLimit` needs, is on the PATH. */
export function hasPrlimit(): boolean {
  return spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0;
}

let built: boolean | undefined;

/**
 * The arguments of a `node` process that runs `entry` (`src/server.ts`, say): the build in dist/
 * when it is newer than every source, as `npm start` runs it (CI builds before it tests), else the
 * source through tsx. Loading the build takes a process about 2.5 s of CPU against 4 through tsx,
 * and these suites start hundreds of processes. An entry outside src/ (a test's own) runs through tsx.
 */
export function entryArgs(entry: string): string[] {
  built ??= buildIsCurrent(root);
  const compiled = /^src\/(.+)\.ts$/.exec(entry);
  return built && compiled ? [`dist/${compiled[1]}.js`] : ['--import', 'tsx', entry];
}

/** The line `src/worker.ts` prints once it delivers. */
export const WORKER_READY = /Webhook worker \S+ running/;

/**
 * Starts `src/server.ts` (or another entry) as a real process with `env` on a free port and
 * resolves once it prints its URL (or the `ready` line).
 */
export async function spawnServer(
  env: Record<string, string>,
  entry = 'src/server.ts',
  options: SpawnOptions = {},
): Promise<ServerProcess> {
  const ready = options.ready ?? /listening on (\S+)/;
  const limited = options.openFileLimit !== undefined;
  if (limited && entry !== 'src/server.ts') throw new Error('openFileLimit is for src/server.ts only');
  const args = entryArgs(limited ? 'test/helpers/under-file-limit.ts' : entry);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
      ...(limited ? { OPEN_FILE_LIMIT: String(options.openFileLimit) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start:\n${out}`));
    }, 60_000);
    const check = () => {
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? '');
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before starting:\n${out}`));
    });
  });
  return {
    url,
    child,
    exited,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** An answer of `caller`: its status and JSON body (a problem's `code` and `reason` when refused). */
export interface ProcessReply<T> {
  status: number;
  body: T & { code?: string; reason?: string };
}

/** Calls a spawned server's API with `key` (JSON in and out), for tests that spread calls over processes. */
export function caller(key: string, headers: Record<string, string> = {}) {
  return async <T>(
    server: ServerProcess,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ProcessReply<T>> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...headers,
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as ProcessReply<T>['body'] };
  };
}
