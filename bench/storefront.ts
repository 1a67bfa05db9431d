import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import {
  benchEnv,
  type BenchServer,
  formatTable,
  type LoadOptions,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';
import { call, group, type Settings } from './rounds.js';

/**
 * The storefront's two hottest reads with a publishable key, against bare Fastify serving the same
 * bytes in the same run: `GET /v1/store/products?limit=20` (the catalog's first page, 20 products
 * of three variants each, from the catalog read cache after the first request) and
 * `GET /v1/store/carts/{id}` (a cart of three lines with a discount code, a shipping address and a
 * tax rate: priced in full at the first request, then answered from the cart answers kept while
 * nothing it was priced from changes, src/modules/carts/carts.answers.ts). Each is answered by our
 * server, by bare Fastify returning the bytes our server answered for that URL
 * (bench/bare-server.ts, BARE_PAGES_FILE), and by bare Fastify returning them with the seven
 * headers the API puts on every authenticated answer (BARE_HEADERS=api). Every request comes from
 * another shopper's address (X-Forwarded-For from a trusted proxy, `TRUST_PROXY=loopback`), as a
 * shop's traffic does, so the storefront's per-address limits count as they would and never
 * refuse. Each ratio is the median of rounds measured back to back at 50 connections.
 *
 *   BENCH_STOREFRONT_PRODUCTS=200   products in the catalog
 *   BENCH_STOREFRONT_ROUNDS=3       rounds per page
 */

export interface StorefrontOptions {
  products?: number;
  rounds?: number;
  durationSeconds?: number;
  connections?: number;
}

/** Shoppers' addresses the requests come from, in turn: 16,384 of them. */
const SHOPPERS = 16_384;

function shopperAddress(n: number): string {
  const i = n % SHOPPERS;
  return `10.77.${i >> 8}.${i & 255}`;
}

/** GETs of `path` with `key`, each from the next shopper's address. */
function shopping(server: BenchServer, key: string, path: string): LoadOptions {
  let n = 0;
  const requests: autocannon.Request[] = [
    {
      method: 'GET',
      path,
      setupRequest: (request) => ({
        ...request,
        headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': shopperAddress(n++) },
      }),
    },
  ];
  return { url: server.url, requests };
}

/** Products of three variants each, priced in USD, through the API as a merchant makes them. */
async function makeCatalog(server: BenchServer, key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await call(server, key, 'POST', '/v1/products', {
      name: `Bench Tee ${i}`,
      description: `A cotton tee, number ${i}.`,
      category: `cat-${i % 10}`,
      images: [`https://images.example.com/tee-${i}.jpg`],
      tags: ['tee', `batch-${i % 5}`],
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: ['S', 'M', 'L'].map((size, k) => ({
        sku: `BT-${i}-${size}`,
        options: { Size: size },
        price: 1900 + k * 100 + (i % 7) * 50,
        stock: 1_000_000,
        weight_grams: 200,
      })),
    });
  }
}

/**
 * The store a shop reads: the catalog, a tax rate for Texas, a shipping rate, a discount code, a
 * publishable key, and a cart of three lines made with it, ready to complete.
 */
export async function prepareStore(
  server: BenchServer,
  secret: string,
  products: number,
): Promise<{ key: string; cartId: string }> {
  await makeCatalog(server, secret, products);
  await call(server, secret, 'POST', '/v1/tax-rates', {
    name: 'Texas sales tax',
    country: 'US',
    state: 'TX',
    rate_bps: 625,
    inclusive: false,
    shipping_taxable: false,
  });
  await call(server, secret, 'POST', '/v1/shipping-rates', {
    name: 'Standard',
    countries: ['US'],
    price: 695,
    currency: 'USD',
  });
  await call(server, secret, 'POST', '/v1/discounts', {
    code: 'WELCOME10',
    type: 'percentage',
    value: 1000,
  });
  const { key } = await call<{ key: string }>(server, secret, 'POST', '/v1/api-keys', {
    type: 'publishable',
    name: 'Bench shop',
    allowed_origins: [],
  });

  const page = await call<{ data: { variants: { id: string }[] }[] }>(
    server,
    key,
    'GET',
    '/v1/store/products?limit=20',
  );
  const lines = page.data.slice(0, 3).map((product, i) => ({
    variant_id: product.variants[i]?.id ?? '',
    quantity: i + 1,
  }));
  const cart = await call<{ id: string; problems: unknown[]; total: number }>(
    server,
    key,
    'POST',
    '/v1/store/carts',
    {
      email: 'shopper@example.com',
      lines,
      discount_codes: ['WELCOME10'],
      shipping_address: {
        line1: '1 Main St',
        city: 'Austin',
        state: 'TX',
        postal_code: '78701',
        country: 'US',
      },
    },
  );
  if (cart.problems.length > 0) throw new Error(`the bench's cart has problems: ${JSON.stringify(cart)}`);
  return { key, cartId: cart.id };
}

export async function run(options: StorefrontOptions = {}): Promise<Measurement[]> {
  const products = options.products ?? Number(process.env.BENCH_STOREFRONT_PRODUCTS ?? 200);
  const settings: Settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_STOREFRONT_ROUNDS ?? 3),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5),
    connections: options.connections ?? 50,
  };
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir, { TRUST_PROXY: 'loopback' });
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  let server: BenchServer | undefined;
  let bare: BenchServer | undefined;
  let bareWithHeaders: BenchServer | undefined;
  try {
    const tenant = await unlimitedTenant(deps);
    const secret = tenant.apiKey.key;
    await deps.close();
    server = await startProcess(serverEntry(), env);

    const { key, cartId } = await prepareStore(server, secret, products);

    const pages: [string, string][] = [
      [`catalog's first page (20 of ${products} products, 3 variants each)`, '/v1/store/products?limit=20'],
      [
        'cart (3 lines, a discount code, shipping and tax: kept while nothing it is priced from changes)',
        `/v1/store/carts/${cartId}`,
      ],
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
      const route = url.startsWith('/v1/store/carts/') ? 'GET /v1/store/carts/{id}' : `GET ${url}`;
      rows.push(
        ...(await group(
          [
            {
              name: `storefront: bare Fastify, the same ${bytes} bytes of the ${name}`,
              server: bare,
              load: shopping(bare, key, url),
            },
            {
              name: `storefront: bare Fastify, the same bytes and the API's seven headers`,
              server: bareWithHeaders,
              load: shopping(bareWithHeaders, key, url),
            },
            {
              name: `storefront: ${route} with a publishable key, each request from another shopper's address`,
              server,
              load: shopping(server, key, url),
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
