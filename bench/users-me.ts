import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import {
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
 * GET /v1/users/me (authenticated: key lookup, permission, version, headers) against a bare
 * Fastify route returning the same JSON, both over HTTP in child processes, in one run.
 */
export async function run(): Promise<Measurement[]> {
  const dataDir = tempDataDir();
  const env = { DATA_DIR: dataDir, TLS: 'off', DEMO_DATA: 'off' };
  const deps = await createDeps(loadConfig(env));
  const tenant = await unlimitedTenant(deps);
  await deps.close();
  const key = tenant.apiKey.key;
  const api = await startProcess(serverEntry(), env);
  const headers = { authorization: `Bearer ${key}` };
  const sample = await fetch(`${api.url}/v1/users/me`, { headers });
  const bare = await startProcess('bench/bare-server.ts', { BARE_USERS_ME: await sample.text() });
  try {
    // Warm both up, then measure.
    await load('warm-up', { url: `${bare.url}/v1/users/me`, durationSeconds: 2 });
    await load('warm-up', { url: `${api.url}/v1/users/me`, headers, durationSeconds: 2 });
    const baseline = await load('bare Fastify GET /v1/users/me', { url: `${bare.url}/v1/users/me` }, bare);
    baseline.ratio = 1;
    const ours = await load(
      'GET /v1/users/me (authenticated)',
      { url: `${api.url}/v1/users/me`, headers },
      api,
    );
    ours.ratio = ours.requestsPerSecond / baseline.requestsPerSecond;
    if (ours.errors > 0) throw new Error(`GET /v1/users/me had ${ours.errors} non-2xx responses`);
    return [baseline, ours];
  } finally {
    await api.stop();
    await bare.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
