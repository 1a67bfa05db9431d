import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import {
  benchEnv,
  type BenchServer,
  cursorAfter,
  formatTable,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';
import { bulkLoad } from './products-list.js';
import { getting, group, type Settings } from './rounds.js';

/**
 * The catalog read path against bare Fastify serving the same bytes, in one run: GET /v1/products
 * (20 a page) first page, category page and a page by cursor, each answered by our server (HTTP,
 * a key, rate limits and metering on, answers from the catalog read cache after the first) and by
 * bare Fastify returning the bytes our server answered for that URL (bench/bare-server.ts,
 * BARE_PAGES_FILE), and by bare Fastify returning them with the seven headers the API puts on every
 * authenticated answer (BARE_HEADERS=api): our answer's bytes, nearly all of them. Each ratio is
 * the median of rounds measured back to back at 50 connections; the rows carry p99.
 *
 *   BENCH_CATALOG_PRODUCTS=100000   products in the catalog
 *   BENCH_CATALOG_ROUNDS=3          rounds per page
 */

export interface CatalogOptions {
  products?: number;
  rounds?: number;
  durationSeconds?: number;
  connections?: number;
}

export async function run(options: CatalogOptions = {}): Promise<Measurement[]> {
  const products = options.products ?? Number(process.env.BENCH_CATALOG_PRODUCTS ?? 100_000);
  const settings: Settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_CATALOG_ROUNDS ?? 3),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5),
    connections: options.connections ?? 50,
  };
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir);
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  let server: BenchServer | undefined;
  let bare: BenchServer | undefined;
  let bareWithHeaders: BenchServer | undefined;
  try {
    const tenant = await unlimitedTenant(deps);
    const key = tenant.apiKey.key;
    await bulkLoad(deps, tenant.tenant.id, 0, products, deps.clock.now() - products * 1000);
    await deps.close();
    server = await startProcess(serverEntry(), env);
    const cursor = await cursorAfter(server, key, '/v1/products', Math.floor(products / 200) * 100);
    const pages: [string, string][] = [
      ['first page', '/v1/products?limit=20'],
      ['category page', '/v1/products?limit=20&category=cat-7'],
      ['page by cursor at the middle', `/v1/products?limit=20&cursor=${cursor}`],
    ];
    const bodies: Record<string, string> = {};
    for (const [, url] of pages) {
      const res = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`${url}: ${res.status}; is dist/ stale? npm run build`);
      bodies[url] = await res.text();
    }
    const pagesFile = path.join(dataDir, 'bare-pages.json');
    fs.writeFileSync(pagesFile, JSON.stringify(bodies));
    bare = await startProcess('bench/bare-server.ts', { BARE_PAGES_FILE: pagesFile });
    bareWithHeaders = await startProcess('bench/bare-server.ts', {
      BARE_PAGES_FILE: pagesFile,
      BARE_HEADERS: 'api',
    });
    const rows: Measurement[] = [];
    for (const [name, url] of pages) {
      const bytes = Buffer.byteLength(bodies[url] ?? '');
      rows.push(
        ...(await group(
          [
            {
              name: `catalog: bare Fastify, the same ${bytes} bytes of the ${name}`,
              server: bare,
              load: getting(bare, key, url),
            },
            {
              name: `catalog: bare Fastify, the same bytes and the API's seven headers, ${name}`,
              server: bareWithHeaders,
              load: getting(bareWithHeaders, key, url),
            },
            {
              name: `catalog: GET /v1/products ${name} (20 of ${products.toLocaleString('en-US')}, limits and metering on)`,
              server,
              load: getting(server, key, url),
            },
          ],
          'bare Fastify serving the same bytes',
          settings,
          undefined,
          { index: 1, against: "bare Fastify serving them with the API's seven headers" },
        )),
      );
    }
    return rows;
  } finally {
    await server?.stop();
    await bare?.stop();
    await bareWithHeaders?.stop();
    await deps.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
