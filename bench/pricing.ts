import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
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
import { call, group, posting, type Settings } from './rounds.js';

/**
 * What checkout pricing costs an order, against the server in a child process: `POST /v1/orders`
 * with two discounts (a percentage code with a usage limit, whose use the order reserves, and an
 * automatic fixed amount over a minimum), a shipping rate and an exclusive tax rate, against an
 * order of the same store with none of them (no address, no code, under the automatic discount's
 * minimum: the store's rules are still looked up, and none apply), and
 * `POST /v1/orders/preview` of the priced order. Same product, same customer, measured back to
 * back in rounds (bench/rounds.ts); the target is a priced order at no less than 0.8 × the plain
 * one's throughput (pricing costing under 20% more).
 *
 * The bench checks the priced order's figures before it measures: a pricing path that silently
 * applied nothing would look cheap.
 *
 *   BENCH_ROUNDS=3  rounds of each comparison
 *   BENCH_SECONDS=4 seconds per measurement
 */

export interface PricingOptions {
  rounds?: number;
  durationSeconds?: number;
  connections?: number;
}

interface OrderFigures {
  subtotal: number;
  discount_total: number;
  shipping_total: number;
  tax_total: number;
  total: number;
  discounts: unknown[];
}

export async function run(options: PricingOptions = {}): Promise<Measurement[]> {
  const settings: Settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 4),
    connections: options.connections ?? 16,
  };
  const dir = tempDataDir();
  const env = benchEnv(dir);
  let server: BenchServer | undefined;
  try {
    const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    const tenant = await unlimitedTenant(deps);
    await deps.close();
    const key = tenant.apiKey.key;
    server = await startProcess(serverEntry(), env);
    const up = server;
    const post = <T>(path: string, body: unknown) => call<T>(up, key, 'POST', path, body);

    const product = await post<{ id: string }>('/v1/products', {
      name: 'Bench lamp',
      price: 4_999,
      stock: 1_000_000_000,
      category: 'lighting',
    });
    const customer = await post<{ id: string }>('/v1/customers', { email: 'bench.buyer@example.com' });
    await post('/v1/discounts', {
      code: 'BENCH15',
      type: 'percentage',
      value: 1_500,
      usage_limit: 1_000_000_000,
      combinable: true,
    });
    await post('/v1/discounts', {
      automatic: true,
      type: 'fixed_amount',
      value: 300,
      currency: 'USD',
      minimum_subtotal: 9_000,
      combinable: true,
    });
    await post('/v1/shipping-rates', { name: 'Ground', countries: ['US'], price: 795, currency: 'USD' });
    await post('/v1/tax-rates', {
      name: 'California',
      country: 'US',
      state: 'CA',
      rate_bps: 725,
      inclusive: false,
      shipping_taxable: true,
    });

    // The plain order (one lamp) is under the automatic discount's minimum; the priced one (two) is not.
    const plain = JSON.stringify({
      items: [{ product_id: product.id, quantity: 1 }],
      customer_id: customer.id,
    });
    const items = [{ product_id: product.id, quantity: 2 }];
    const pricedBody = {
      items,
      customer_id: customer.id,
      discount_codes: ['BENCH15'],
      shipping_address: { line1: '1 Main St', city: 'Los Angeles', state: 'CA', country: 'US' },
    };
    const priced = JSON.stringify(pricedBody);
    const check = await post<OrderFigures>('/v1/orders', pricedBody);
    if (check.discounts.length !== 2 || check.shipping_total !== 795 || check.tax_total === 0) {
      throw new Error(`the priced order was not priced: ${JSON.stringify(check)}`);
    }

    return await group(
      [
        {
          name: 'POST /v1/orders, plain (no code, no address)',
          server,
          load: posting(server, key, '/v1/orders', () => plain),
        },
        {
          name: 'POST /v1/orders, two discounts, shipping and tax',
          server,
          load: posting(server, key, '/v1/orders', () => priced),
        },
        {
          name: 'POST /v1/orders/preview of that order',
          server,
          load: posting(server, key, '/v1/orders/preview', () => priced),
        },
      ],
      'the plain order',
      settings,
    );
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${machine()}\n\n${formatTable(rows)}\n`);
}
