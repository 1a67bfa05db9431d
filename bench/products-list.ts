import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import { MAX_OFFSET } from '../src/lib/paging.js';
import * as products from '../src/modules/products/products.repository.js';
import {
  benchEnv,
  type BenchServer,
  cursorAfter,
  formatTable,
  machine,
  measureEach,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * GET /v1/products at 1,000 and at 1,000,000 rows: the first page, a deep OFFSET page, a page
 * reached by cursor and a category page, against the server in a child process. The rows are
 * bulk-inserted through Kysely in big transactions, keeping `product_counts` as the service does.
 */

export interface ProductsListOptions {
  /** Rows for the large measurement (default 1,000,000). */
  total?: number;
  /** Rows for the small measurement (default 1,000). */
  small?: number;
  durationSeconds?: number;
  connections?: number;
}

const ROWS_PER_INSERT = 2_000;
const ROWS_PER_TRANSACTION = 50_000;
const CATEGORIES = 20;
const ADJECTIVES = ['Classic', 'Organic', 'Light', 'Rugged', 'Compact', 'Premium', 'Everyday', 'Vintage'];
const NOUNS = ['Sneaker', 'Jacket', 'Lamp', 'Backpack', 'Mug', 'Headphones', 'Bottle', 'Notebook', 'Blanket'];

function productRow(tenantId: string, i: number, base: number): products.NewProductRow {
  const status = i % 10 === 0 ? 'draft' : i % 25 === 0 ? 'archived' : 'active';
  return {
    id: newId('prod'),
    tenant_id: tenantId,
    handle: `product-${i}`,
    name: `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[(i >> 3) % NOUNS.length]} ${i}`,
    description: `Generated product number ${i}.`,
    sku: `SKU-${i}`,
    price: 100 + ((i * 7919) % 100_000),
    currency: 'USD',
    category: `cat-${i % CATEGORIES}`,
    stock: i % 50 === 0 ? 0 : 1 + ((i * 31) % 500),
    status,
    images: '[]',
    image_alts: '{}',
    attributes: '{}',
    tags: '[]',
    options: '[]',
    variant_count: 1,
    seo_title: null,
    seo_description: null,
    price_max: 100 + ((i * 7919) % 100_000),
    search_extra: '',
    created: base + i * 1000,
    updated: base + i * 1000,
  };
}

/** Inserts products `from` (inclusive) to `to` (exclusive) and their counts, in big transactions. */
export async function bulkLoad(
  deps: Deps,
  tenantId: string,
  from: number,
  to: number,
  base: number,
): Promise<void> {
  for (let start = from; start < to; start += ROWS_PER_TRANSACTION) {
    const end = Math.min(to, start + ROWS_PER_TRANSACTION);
    await deps.store.transaction(async (trx) => {
      const deltas: products.CountDelta[] = [];
      for (let chunk = start; chunk < end; chunk += ROWS_PER_INSERT) {
        const rows: products.NewProductRow[] = [];
        for (let i = chunk; i < Math.min(end, chunk + ROWS_PER_INSERT); i++) {
          const row = productRow(tenantId, i, base);
          rows.push(row);
          deltas.push({ ...products.bucketOf(row), delta: 1 });
        }
        await products.insertProducts(trx, rows);
      }
      await products.adjustCounts(trx, tenantId, deltas);
    });
  }
}

async function measure(
  server: BenchServer,
  key: string,
  rows: number,
  options: ProductsListOptions,
): Promise<Measurement[]> {
  const headers = { authorization: `Bearer ${key}` };
  const base = `${server.url}/v1/products?limit=20`;
  const middle = Math.floor(rows / 200) * 100;
  const cursor = await cursorAfter(server, key, '/v1/products', middle);
  const first = await fetch(base, { headers });
  const { total } = (await first.json()) as { total: number };
  if (first.status !== 200 || total !== rows) {
    throw new Error(
      `unexpected listing (status ${first.status}, total ${total}); is dist/ stale? npm run build`,
    );
  }
  const label = rows >= 1_000_000 ? `${rows / 1_000_000}M` : rows >= 1000 ? `${rows / 1000}k` : String(rows);
  const scenarios: [string, string][] = [
    ['first page', base],
    // The deepest page `offset` reaches (past it, a 400 points to `cursor`).
    [`offset ${MAX_OFFSET}`, `${base}&offset=${MAX_OFFSET}`],
    [`cursor at row ${middle}`, `${base}&cursor=${cursor}`],
    ['category page', `${base}&category=cat-7`],
  ];
  return measureEach(
    server,
    headers,
    scenarios.map(([name, url]) => [`GET /v1/products ${name} @ ${label} rows`, url]),
    { durationSeconds: options.durationSeconds, connections: options.connections ?? 16 },
  );
}

export async function run(options: ProductsListOptions = {}): Promise<Measurement[]> {
  const total = options.total ?? 1_000_000;
  const small = options.small ?? 1_000;
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir);
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  let server: BenchServer | undefined;
  try {
    const tenant = await unlimitedTenant(deps);
    const key = tenant.apiKey.key;
    const base = deps.clock.now() - total * 1000;

    await bulkLoad(deps, tenant.tenant.id, 0, small, base);
    server = await startProcess(serverEntry(), env);
    const rows = await measure(server, key, small, options);

    const started = Date.now();
    await bulkLoad(deps, tenant.tenant.id, small, total, base);
    const loadSeconds = (Date.now() - started) / 1000;
    process.stderr.write(`loaded ${total - small} products in ${loadSeconds.toFixed(1)} s\n`);
    rows.push(...(await measure(server, key, total, options)));
    return rows;
  } finally {
    await server?.stop();
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
