import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import type { ImportObject } from '../src/modules/imports/imports.schemas.js';
import type { NewProductRow } from '../src/modules/products/products.repository.js';
import type { VariantRow } from '../src/modules/products/variants.repository.js';
import {
  benchEnv,
  type BenchServer,
  formatTable,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * Bulk imports and exports, against the server in a child process (as `npm start` runs it, its
 * import runner in the process, WEBHOOK_WORKER_IN_PROCESS):
 *
 * - import: a CSV of `rows` product rows (products of 4 variants each, sizes S to XL) uploaded to
 *   POST /v1/imports and run to its end: rows per second from the upload to `succeeded`, and the
 *   server's peak RSS;
 * - export: GET /v1/exports/products of a catalog of `exportVariants` variants (bulk-loaded, 4 per
 *   product), read to its end: rows per second, and the server's RSS at rest and at its peak,
 *   which stay close however large the catalog (the export streams).
 *
 * On SQLite always, and on PostgreSQL too when BENCH_DATABASE_URL is set (each run in a schema of
 * its own, dropped afterwards).
 *
 *   BENCH_IMPORT_ROWS=100000        product rows imported
 *   BENCH_EXPORT_VARIANTS=1000000   variants exported
 *   BENCH_DATABASE_URL=postgres://… also measure on PostgreSQL
 */

export interface ImportsOptions {
  /** Product rows imported (default BENCH_IMPORT_ROWS, else 100,000). */
  rows?: number;
  /** Variants in the exported catalog (default BENCH_EXPORT_VARIANTS, else 1,000,000). */
  exportVariants?: number;
  /** PostgreSQL to measure on as well (default BENCH_DATABASE_URL). */
  databaseUrl?: string | undefined;
}

const SIZES = ['S', 'M', 'L', 'XL'];
const ROWS_PER_INSERT = 500;
const ROWS_PER_TRANSACTION = 50_000;

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < SIZES.length) {
    throw new Error(`${name} must be a whole number of at least ${SIZES.length}`);
  }
  return value;
}

/** The import file: `rows` rows, a product per 4 of them. */
function importFile(rows: number): Buffer {
  const lines = [
    'handle,name,description,category,tags,option1_name,option1_value,sku,price,stock,weight_grams',
  ];
  for (let i = 0; i < rows; i++) {
    const product = Math.floor(i / SIZES.length);
    const size = SIZES[i % SIZES.length] as string;
    const first = i % SIZES.length === 0;
    lines.push(
      first
        ? `p${product},Bench Tee ${product},"A soft tee, number ${product}.",apparel,"bench, tees",Size,${size},BT-${product}-${size},${1500 + (i % 700)},${i % 50},180`
        : `p${product},,,,,,${size},BT-${product}-${size},${1500 + (i % 700)},${i % 50},180`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function call<T>(
  server: BenchServer,
  key: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/** Bulk-loads `products` products of 4 variants each, rows as the products service makes them. */
async function loadCatalog(deps: Deps, tenantId: string, products: number): Promise<void> {
  const now = deps.clock.now();
  const db = deps.store.db;
  const options = JSON.stringify([{ name: 'Size', values: SIZES }]);
  for (let start = 0; start < products; start += ROWS_PER_TRANSACTION / SIZES.length) {
    const end = Math.min(products, start + ROWS_PER_TRANSACTION / SIZES.length);
    await deps.store.transaction(async (trx) => {
      for (let from = start; from < end; from += ROWS_PER_INSERT / SIZES.length) {
        const to = Math.min(end, from + ROWS_PER_INSERT / SIZES.length);
        const productRows: NewProductRow[] = [];
        const variantRows: VariantRow[] = [];
        for (let p = from; p < to; p++) {
          const id = `prod_${String(p).padStart(24, '0')}`;
          productRows.push({
            id,
            tenant_id: tenantId,
            handle: `export-tee-${p}`,
            name: `Export Tee ${p}`,
            description: `A soft tee, number ${p}.`,
            sku: null,
            price: 1500,
            price_max: 1800,
            currency: 'USD',
            category: 'apparel',
            stock: 40,
            status: 'active' as const,
            images: '[]',
            image_alts: '{}',
            attributes: '{}',
            tags: '["bench"]',
            options,
            variant_count: SIZES.length,
            seo_title: null,
            seo_description: null,
            search_extra: [...SIZES, ...SIZES.map((size) => `ET-${p}-${size}`)].join('\n'),
            created: now + p,
            updated: now + p,
          });
          SIZES.forEach((size, index) => {
            const sku = `ET-${p}-${size}`;
            variantRows.push({
              id: `var_${String(p * SIZES.length + index).padStart(24, '0')}`,
              tenant_id: tenantId,
              product_id: id,
              sku,
              sku_key: sku.toLowerCase(),
              title: size,
              options: JSON.stringify({ Size: size }),
              option_key: JSON.stringify([['Size', size]]),
              price: 1500 + index * 100,
              compare_at_price: null,
              stock: 10,
              committed: 0,
              spread: 0,
              weight_grams: 180,
              barcode: null,
              image: null,
              cost: null,
              requires_shipping: 1,
              taxable: 1,
              position: index + 1,
              created: now + p,
              updated: now + p,
            });
          });
        }
        await trx.insertInto('products').values(productRows).execute();
        await trx.insertInto('product_variants').values(variantRows).execute();
      }
    });
  }
  await db
    .insertInto('product_counts')
    .values({ tenant_id: tenantId, category: 'apparel', status: 'active', in_stock: 1, n: products })
    .execute();
}

/** A store to measure on: SQLite in a temp dir, or a fresh PostgreSQL schema. */
async function freshStore(databaseUrl: string | undefined) {
  const dataDir = tempDataDir();
  if (databaseUrl === undefined) {
    return {
      label: 'SQLite',
      env: benchEnv(dataDir, { WEBHOOK_WORKER_IN_PROCESS: 'true' }),
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_imports_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    label: 'PostgreSQL',
    env: benchEnv(dataDir, {
      WEBHOOK_WORKER_IN_PROCESS: 'true',
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
    }),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await dropper.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function row(scenario: string, perSecond: number, peakRssMiB: number): Measurement {
  // Rows per second, not requests: no ratio to the baseline (`paired` keeps run.ts from making one).
  return {
    scenario,
    requestsPerSecond: Math.round(perSecond),
    p50: Number.NaN,
    p99: Number.NaN,
    errors: 0,
    peakRssMiB,
    paired: true,
  };
}

async function measureImport(databaseUrl: string | undefined, rows: number): Promise<Measurement> {
  const store = await freshStore(databaseUrl);
  let deps: Deps | undefined;
  let server: BenchServer | undefined;
  try {
    deps = await createDeps(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    const tenant = await unlimitedTenant(deps, { currency: 'USD' });
    await deps.close();
    deps = undefined;
    const file = importFile(rows);
    server = await startProcess(serverEntry(), store.env);
    const started = Date.now();
    const created = await call<ImportObject>(server, tenant.apiKey.key, '/v1/imports?resource=products', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: file,
    });
    if (created.status !== 202)
      throw new Error(`POST /v1/imports: ${created.status} ${JSON.stringify(created.body)}`);
    let done = created.body;
    while (done.status === 'queued' || done.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 250));
      done = (await call<ImportObject>(server, tenant.apiKey.key, `/v1/imports/${done.id}`)).body;
    }
    const seconds = (Date.now() - started) / 1000;
    if (done.status !== 'succeeded' || done.created_count !== rows) {
      throw new Error(
        `the import ended ${done.status} with ${done.created_count} of ${rows} rows: ${JSON.stringify(done.errors.slice(0, 3))}`,
      );
    }
    process.stderr.write(
      `imported ${rows} rows (${store.label}) in ${seconds.toFixed(1)} s, ${(file.length / 2 ** 20).toFixed(1)} MiB\n`,
    );
    return row(`import ${rows} product rows, rows/s (${store.label})`, rows / seconds, server.peakRssMiB());
  } finally {
    await server?.stop();
    await deps?.close();
    await store.drop();
  }
}

async function measureExport(databaseUrl: string | undefined, variants: number): Promise<Measurement[]> {
  const store = await freshStore(databaseUrl);
  let deps: Deps | undefined;
  let server: BenchServer | undefined;
  try {
    deps = await createDeps(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    const tenant = await unlimitedTenant(deps, { currency: 'USD' });
    const loading = Date.now();
    await loadCatalog(deps, tenant.tenant.id, Math.floor(variants / SIZES.length));
    process.stderr.write(`loaded ${variants} variants in ${((Date.now() - loading) / 1000).toFixed(1)} s\n`);
    await deps.close();
    deps = undefined;
    server = await startProcess(serverEntry(), store.env);
    // At rest: started, a small request served.
    await call(server, tenant.apiKey.key, '/v1/products?limit=1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const atRest = server.peakRssMiB();
    const started = Date.now();
    const response = await fetch(`${server.url}/v1/exports/products`, {
      headers: { authorization: `Bearer ${tenant.apiKey.key}` },
    });
    if (response.status !== 200 || !response.body)
      throw new Error(`GET /v1/exports/products: ${response.status}`);
    let lines = 0;
    let bytes = 0;
    for await (const chunk of response.body) {
      const piece = chunk as Uint8Array;
      bytes += piece.length;
      for (const byte of piece) if (byte === 0x0a) lines += 1;
    }
    const seconds = (Date.now() - started) / 1000;
    if (lines !== variants - (variants % SIZES.length) + 1) {
      throw new Error(`the export had ${lines - 1} rows, expected ${variants - (variants % SIZES.length)}`);
    }
    const peak = server.peakRssMiB();
    process.stderr.write(
      `exported ${lines - 1} variants (${store.label}) in ${seconds.toFixed(1)} s, ${(bytes / 2 ** 20).toFixed(0)} MiB; RSS ${atRest} MiB at rest, ${peak} MiB at peak\n`,
    );
    return [
      row(
        `export ${lines - 1} variants, rows/s; peak RSS (at rest ${atRest} MiB) (${store.label})`,
        (lines - 1) / seconds,
        peak,
      ),
    ];
  } finally {
    await server?.stop();
    await deps?.close();
    await store.drop();
  }
}

export async function run(options: ImportsOptions = {}): Promise<Measurement[]> {
  const rows = options.rows ?? count('BENCH_IMPORT_ROWS', 100_000);
  const variants = options.exportVariants ?? count('BENCH_EXPORT_VARIANTS', 1_000_000);
  const databaseUrl = options.databaseUrl ?? process.env.BENCH_DATABASE_URL;
  const out: Measurement[] = [];
  for (const url of [undefined, ...(databaseUrl ? [databaseUrl] : [])]) {
    out.push(await measureImport(url, rows));
    out.push(...(await measureExport(url, variants)));
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const measured = await run();
  process.stdout.write(`${formatTable(measured)}\n\nMachine: ${machine()}\n`);
}
