import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { searchFold } from '../src/db/store.js';
import { createDeps, type Deps } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import * as repo from '../src/modules/customers/customers.repository.js';
import { countDeltas } from '../src/modules/customers/customers.service.js';
import type { Address } from '../src/modules/customers/customers.address.js';
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
import { call, getting, group, label, type Settings } from './rounds.js';

/**
 * GET /v1/customers at 1,000,000 customers against 1,000, against the server in a child process:
 * every page the list serves (the first page, a deep page by cursor, `tag` filters of 2% and 20%
 * of the customers, `sort=-total_spent`, `sort=email` and a deep page of it, `q` matching one
 * customer and 2% of them, `created_from`/`created_to` windows of 100 customers and of a tenth of
 * the store), `total` included. Each store has its own server; a row is the large store's
 * throughput over the small one's, both measured back to back in rounds (bench/rounds.ts).
 *
 * The customers are bulk-inserted through Kysely in big transactions, rows made as the service
 * makes them (`email_key` the lower-cased email, one `customer_tags` row per tag, the kept counts'
 * +n rows; SQLite's triggers fill the search table), and the bench stops if a customer
 * created through POST /v1/customers is stored differently, or if a page's `total` is not what the
 * generated customers say it must be.
 *
 *   BENCH_CUSTOMERS=1000000 customers in the large store (through npm run bench)
 *   BENCH_ROUNDS=3          rounds of each comparison
 *   BENCH_SECONDS=4         seconds per measurement
 */

export interface CustomersOptions {
  /** Customers in the large store (default 1,000,000). */
  total?: number;
  /** Customers in the small store (default 1,000). */
  small?: number;
  /** Rounds of each comparison (default BENCH_ROUNDS, else 3). */
  rounds?: number;
  /** Seconds per measurement (default BENCH_SECONDS, else 4). */
  durationSeconds?: number;
  connections?: number;
}

const ROWS_PER_INSERT = 500;
const ROWS_PER_TRANSACTION = 50_000;
/** Customer i was created i seconds after the first. */
const SPACING_MS = 1_000;
/** Customers in the narrow `created_from`/`created_to` window, whatever the store's size. */
const NARROW_WINDOW = 100;

const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Margaret',
  'Dennis',
  'Radia',
  'John',
  'Sophie',
  'Niklaus',
  'Hedy',
  'Tony',
  'Karen',
  'Leslie',
  'Shafi',
  'Butler',
];
const SURNAME_STARTS = ['Bram', 'Cors', 'Dall', 'Fenn', 'Gorm', 'Hask', 'Jorv', 'Kell', 'Lund', 'Mosk'];
const SURNAME_ENDS = ['ley', 'ton', 'berg', 'wick', 'dale'];
/** 50 surnames, each on 2% of the customers: a surname as `q` matches 2% of them. */
const SURNAMES = SURNAME_STARTS.flatMap((start) => SURNAME_ENDS.map((end) => `${start}${end}`));
const CITIES = ['Lisbon', 'Oslo', 'Leeds', 'Lyon', 'Graz', 'Turin', 'Ghent', 'Cork'];
const COUNTRIES = ['PT', 'NO', 'GB', 'FR', 'AT', 'IT', 'BE', 'IE'];

/** A customer as POST /v1/customers takes it, with the figures its orders would have given it. */
interface CustomerSpec {
  email: string;
  name: string;
  phone: string;
  addresses: Address[];
  tags: string[];
  marketing_consent: boolean;
  /** Captured USD minus refunds; 0 with no orders. */
  spent: number;
  orders: number;
}

/** MurmurHash3's 32-bit finalizer: i's bits spread over the whole word. */
function mix(i: number): number {
  let h = i + 1;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Customer number i: 2% tagged `vip`, 20% `wholesale`, about 70% with orders. The rarer tag and the
 * surnames are on 2%, not 1%, so that the store of 1,000 has a full page of 20 of them: a page of
 * 10 against one of 20 would measure the page's size, not the store's.
 */
export function customerSpec(i: number): CustomerSpec {
  const first = FIRST_NAMES[i % FIRST_NAMES.length] as string;
  const last = SURNAMES[Math.floor(i / 3) % SURNAMES.length] as string;
  // The newest customer of a store of 1,000 or 1,000,000 (n - 1, created through the API) has both.
  const tags = [...(i % 50 === 49 ? ['vip'] : []), ...(i % 5 === 4 ? ['wholesale'] : [])];
  // Figures from a hash of i, not from i itself: no tag or surname goes with a band of total_spent.
  const hash = mix(i);
  const orders = hash % 10 < 7 ? 1 + ((hash >>> 8) % 6) : 0;
  return {
    email: `${first}.${last}.${i}@Example.com`,
    name: `${first} ${last}`,
    phone: `+1555${String(i).padStart(7, '0')}`,
    addresses: [
      {
        name: `${first} ${last}`,
        line1: `${1 + (i % 300)} Harbour Street`,
        city: CITIES[i % CITIES.length] as string,
        postal_code: String(10_000 + (i % 89_999)),
        country: COUNTRIES[i % COUNTRIES.length] as string,
      },
    ],
    tags,
    marketing_consent: i % 2 === 0,
    spent: orders === 0 ? 0 : 500 + ((hash >>> 4) % 250_000),
    orders,
  };
}

/** What POST /v1/customers sends for `spec` (the figures come from orders, not from the body). */
function createBody(spec: CustomerSpec): Record<string, unknown> {
  const { spent: _spent, orders: _orders, ...body } = spec;
  return body;
}

/** The row of `spec`, made as customers.service.ts `newCustomerRow` and the order figures make it. */
export function rowOf(tenantId: string, spec: CustomerSpec, created: number): repo.CustomerRow {
  return {
    id: newId('cus'),
    tenant_id: tenantId,
    email: spec.email,
    email_key: spec.email.toLowerCase(),
    name: spec.name,
    phone: spec.phone,
    addresses: JSON.stringify(spec.addresses),
    tags: JSON.stringify(spec.tags),
    note: null,
    metadata: '{}',
    marketing_consent: spec.marketing_consent ? 1 : 0,
    orders_count: spec.orders,
    total_spent: spec.spent === 0 ? '{}' : JSON.stringify({ USD: spec.spent }),
    total_spent_sort: spec.spent,
    last_order_at: spec.orders === 0 ? null : created + 60_000,
    redacted: 0,
    created,
    updated: created,
  };
}

/** When customer i was created in a store whose customer 0 was created at `base`. */
function createdAt(base: number, i: number): number {
  return base + i * SPACING_MS;
}

/**
 * Inserts customers `from..to-1` with their tag rows and kept counts, in transactions of
 * ROWS_PER_TRANSACTION customers.
 */
export async function loadCustomers(
  deps: Deps,
  tenantId: string,
  from: number,
  to: number,
  base: number,
): Promise<void> {
  let i = from;
  while (i < to) {
    await deps.store.transaction(async (trx) => {
      const deltas = new Map<string, number>();
      let customers: repo.CustomerRow[] = [];
      let tags: { tenant_id: string; tag: string; customer_id: string; created: number }[] = [];
      const flush = async () => {
        if (customers.length > 0) await trx.insertInto('customers').values(customers).execute();
        if (tags.length > 0) await trx.insertInto('customer_tags').values(tags).execute();
        customers = [];
        tags = [];
      };
      const end = Math.min(to, i + ROWS_PER_TRANSACTION);
      while (i < end) {
        const spec = customerSpec(i);
        const row = rowOf(tenantId, spec, createdAt(base, i++));
        customers.push(row);
        for (const tag of spec.tags)
          tags.push({ tenant_id: tenantId, tag, customer_id: row.id, created: row.created });
        countDeltas(spec.tags, 1, deltas);
        if (customers.length >= ROWS_PER_INSERT) await flush();
      }
      await flush();
      await repo.adjustCounts(trx, tenantId, deltas);
    });
  }
}

/**
 * The row and tag rows the API stored for a customer against those `rowOf` makes from its spec
 * (id and times aside): the bulk-loaded store is only worth measuring if it is what the service writes.
 */
async function checkRules(deps: Deps, tenantId: string, spec: CustomerSpec): Promise<void> {
  const stored = await repo.findByEmail(deps.store.db, tenantId, spec.email);
  if (!stored) throw new Error(`the API stored no customer ${spec.email}`);
  const made = rowOf(tenantId, { ...spec, spent: 0, orders: 0 }, stored.created);
  const differences: string[] = [];
  for (const [field, value] of Object.entries(made)) {
    if (field === 'id' || field === 'updated') continue;
    const actual = (stored as Record<string, unknown>)[field];
    // Kysely's SQLite driver reads bigints as numbers; pg reads them as strings.
    if (actual !== value && !(typeof value === 'number' && Number(actual) === value))
      differences.push(`customers.${field}: API ${JSON.stringify(actual)}, bench ${JSON.stringify(value)}`);
  }
  const tagRows = await deps.store.db
    .selectFrom('customer_tags')
    .select(['tag', 'created'])
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', stored.id)
    .orderBy('tag')
    .execute();
  const madeTags = [...spec.tags].sort().map((tag) => ({ tag, created: stored.created }));
  const storedTags = tagRows.map((row) => ({ tag: row.tag, created: Number(row.created) }));
  if (JSON.stringify(storedTags) !== JSON.stringify(madeTags)) {
    differences.push(`customer_tags: API ${JSON.stringify(storedTags)}, bench ${JSON.stringify(madeTags)}`);
  }
  if (differences.length > 0) {
    throw new Error(`bulk rows differ from the API's:\n${differences.slice(0, 10).join('\n')}`);
  }
}

interface CustomerPage {
  data: { id: string; email: string; tags: string[] }[];
  total: number;
  next_cursor: string | null;
}

/** One store: its size, server, key, and the customers' creation times. */
interface Store {
  n: number;
  server: BenchServer;
  key: string;
  base: number;
}

/** A page the list serves, as a path for each store, and the `total` each store must answer. */
interface PageSpec {
  name: string;
  path: (store: Store) => Promise<string>;
  total: (n: number) => number;
}

/** How many of customers 0..n-1 `pick` selects. */
function countOf(n: number, pick: (spec: CustomerSpec, i: number) => boolean): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (pick(customerSpec(i), i)) count++;
  return count;
}

/** A cursor to the page after the middle row of the list `path` (walked to it in the setup). */
async function middleCursor(store: Store, path: string): Promise<string> {
  return cursorAfter(store.server, store.key, path, Math.floor(store.n / 200) * 100);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The pages measured, with what their `total` must be in a store of n customers. */
function pages(): PageSpec[] {
  // Customers 21-23 of every 150: 21 of the first 1,000.
  const surname = SURNAMES[7] as string;
  const oneOf = (n: number) => Math.floor(n * 0.37);
  const oneEmail = (n: number) => {
    const spec = customerSpec(oneOf(n));
    return spec.email.slice(0, spec.email.indexOf('@') + 1);
  };
  const matches = (q: string) => (spec: CustomerSpec) =>
    searchFold(`${spec.email}\n${spec.name}\n${spec.phone}`).includes(searchFold(q));
  const window = (from: (n: number) => number, to: (n: number) => number): PageSpec['path'] => {
    return async ({ n, base }) =>
      `/v1/customers?created_from=${iso(createdAt(base, from(n)))}&created_to=${iso(createdAt(base, to(n)))}`;
  };
  const tenth = (n: number) => Math.floor(n / 10);
  return [
    { name: 'first page', path: async () => '/v1/customers', total: (n) => n },
    {
      name: 'by cursor at the middle',
      path: async (store) => `/v1/customers?cursor=${await middleCursor(store, '/v1/customers')}`,
      total: (n) => n,
    },
    {
      name: 'tag=vip (2%)',
      path: async () => '/v1/customers?tag=vip',
      total: (n) => countOf(n, (spec) => spec.tags.includes('vip')),
    },
    {
      name: 'tag=wholesale (20%)',
      path: async () => '/v1/customers?tag=wholesale',
      total: (n) => countOf(n, (spec) => spec.tags.includes('wholesale')),
    },
    { name: 'sort=-total_spent', path: async () => '/v1/customers?sort=-total_spent', total: (n) => n },
    { name: 'sort=email', path: async () => '/v1/customers?sort=email', total: (n) => n },
    {
      name: 'sort=email by cursor at the middle',
      path: async (store) =>
        `/v1/customers?sort=email&cursor=${await middleCursor(store, '/v1/customers?sort=email')}`,
      total: (n) => n,
    },
    {
      name: 'q matching one customer',
      path: async ({ n }) => `/v1/customers?q=${encodeURIComponent(oneEmail(n))}`,
      total: (n) => countOf(n, matches(oneEmail(n))),
    },
    {
      name: `q=${surname} (2%)`,
      path: async () => `/v1/customers?q=${surname}`,
      total: (n) => countOf(n, matches(surname)),
    },
    {
      name: `created_from/created_to, ${NARROW_WINDOW} customers`,
      path: window(
        (n) => Math.floor(n / 2),
        (n) => Math.floor(n / 2) + NARROW_WINDOW - 1,
      ),
      total: () => NARROW_WINDOW,
    },
    {
      name: 'created_from/created_to, a tenth of the store',
      path: window(
        (n) => Math.floor(n / 2) - tenth(n),
        (n) => Math.floor(n / 2) - 1,
      ),
      total: (n) => tenth(n),
    },
  ];
}

export async function run(options: CustomersOptions = {}): Promise<Measurement[]> {
  const total = options.total ?? 1_000_000;
  const small = options.small ?? Math.min(1_000, total);
  if (small < 2 * NARROW_WINDOW + 100 || total < small) {
    throw new Error(
      `the stores need at least ${2 * NARROW_WINDOW + 100} customers, the large one no fewer than the small`,
    );
  }
  const settings: Settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 4),
    connections: options.connections ?? 16,
  };
  if (!Number.isSafeInteger(settings.rounds) || settings.rounds < 1) {
    throw new Error('BENCH_ROUNDS must be a positive whole number');
  }
  const smallDir = tempDataDir();
  const largeDir = tempDataDir();
  const smallEnv = benchEnv(smallDir);
  const largeEnv = benchEnv(largeDir);
  let deps: Deps | undefined;
  let smallServer: BenchServer | undefined;
  let largeServer: BenchServer | undefined;
  try {
    // Each store: customers 0..n-2 bulk-loaded, customer n-1 (the newest) created through the API.
    const seed = async (into: Deps, n: number) => {
      const tenant = await unlimitedTenant(into);
      const base = into.clock.now() - (n + 1) * SPACING_MS;
      const started = Date.now();
      await loadCustomers(into, tenant.tenant.id, 0, n - 1, base);
      process.stderr.write(`loaded ${n - 1} customers in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      return { tenantId: tenant.tenant.id, key: tenant.apiKey.key, base };
    };
    deps = await createDeps(loadConfig({ ...smallEnv, LOG_LEVEL: 'silent' }));
    const smallSeed = await seed(deps, small);
    await deps.close();
    deps = await createDeps(loadConfig({ ...largeEnv, LOG_LEVEL: 'silent' }));
    const largeSeed = await seed(deps, total);
    largeServer = await startProcess(serverEntry(), largeEnv);
    smallServer = await startProcess(serverEntry(), smallEnv);
    const stores: [Store, Store] = [
      { n: small, server: smallServer, key: smallSeed.key, base: smallSeed.base },
      { n: total, server: largeServer, key: largeSeed.key, base: largeSeed.base },
    ];
    for (const store of stores) {
      await call(store.server, store.key, 'POST', '/v1/customers', createBody(customerSpec(store.n - 1)));
    }
    await checkRules(deps, largeSeed.tenantId, customerSpec(total - 1));

    const rows: Measurement[] = [];
    const smallLabel = `${label(small)} customers`;
    const largeLabel = `${label(total)} customers`;
    for (const page of pages()) {
      const paths: string[] = [];
      for (const store of stores) {
        const path = await page.path(store);
        const answer = await call<CustomerPage>(store.server, store.key, 'GET', path);
        const expected = page.total(store.n);
        if (answer.total !== expected || answer.data.length !== Math.min(20, expected)) {
          throw new Error(
            `${page.name} @ ${label(store.n)}: total ${answer.total} and ${answer.data.length} rows, expected ${expected}`,
          );
        }
        paths.push(path);
      }
      const [smallStore, largeStore] = stores;
      rows.push(
        ...(await group(
          [
            {
              name: `GET /v1/customers ${page.name} @ ${smallLabel}`,
              server: smallStore.server,
              load: getting(smallStore.server, smallStore.key, paths[0] as string),
            },
            {
              name: `GET /v1/customers ${page.name} @ ${largeLabel}`,
              server: largeStore.server,
              load: getting(largeStore.server, largeStore.key, paths[1] as string),
            },
          ],
          `@ ${smallLabel}`,
          settings,
        )),
      );
    }
    return rows;
  } finally {
    await smallServer?.stop();
    await largeServer?.stop();
    await deps?.close();
    fs.rmSync(smallDir, { recursive: true, force: true });
    fs.rmSync(largeDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const total = Number(process.env.BENCH_CUSTOMERS ?? 1_000_000);
  const rows = await run({ total });
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
