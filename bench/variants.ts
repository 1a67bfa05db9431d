import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import * as products from '../src/modules/products/products.repository.js';
import * as variants from '../src/modules/products/variants.repository.js';
import {
  DEFAULT_TITLE,
  MAX_VARIANTS,
  type OptionValues,
  optionKey,
  type ProductOption,
  searchExtra,
  variantTitle,
  VARIANTS_SHOWN,
} from '../src/modules/products/variants.rules.js';
import { MAX_STOCK } from '../src/modules/products/variants.schemas.js';
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
import { call, getting, group, label, posting, type Settings } from './rounds.js';

/**
 * Options and variants at scale, against the server in a child process: the product list
 * (without `expand`) on a catalog of 1,000 variants and on one of 1,000,000 (each in its own store
 * and server); a page of a 2,048-variant product's variants reached by cursor or offset against its
 * first page; a 2,048-variant product against a 100-variant one; an order of one of its variants
 * against an order of a one-variant product; and creating a 2,048-variant product in one request
 * against creating one-variant products, per variant.
 *
 * Every row is compared with a baseline of the same run, and the targets of a comparison are
 * measured in rounds, back to back, each round in another order: the ratio in a row's name is the
 * median of its rounds' ratios (the table's ratio column stays the one to bare Fastify that
 * `npm run bench` gives every row). On a 2-core machine shared with the load generator, two
 * measurements of one route minutes apart differ more than the effects measured here.
 *
 * The catalogs are bulk-inserted through Kysely in big transactions, rows made by the rules the
 * service creates products with (variants.rules.ts), `product_counts` kept; the products the rows
 * are measured on are created through the API, and the bench checks that the API stored what its
 * own rows would have been.
 *
 *   BENCH_VARIANTS=1000000 variants in the large catalog (through npm run bench)
 *   BENCH_ROUNDS=3         rounds of each comparison
 *   BENCH_SECONDS=4        seconds per measurement
 */

export interface VariantsOptions {
  /** Variants in the large catalog (default 1,000,000). */
  total?: number;
  /** One-variant products of the small catalog, its variants too (default 1,000). */
  small?: number;
  /** Rounds of each group of rows (default BENCH_ROUNDS, else 3). */
  rounds?: number;
  /** Seconds per measurement (default BENCH_SECONDS, else 4). */
  durationSeconds?: number;
  connections?: number;
}

/** Variants of each bulk-loaded product of the large catalog. */
const BULK_VARIANTS = 2_000;
/** The product the variant rows are measured on: as many variants as a product may have. */
const BIG = MAX_VARIANTS;
/** The product a 2,048-variant product is compared with: all of its variants shown in the object. */
const MID = VARIANTS_SHOWN;
const PRODUCTS_PER_INSERT = 1_000;
const VARIANTS_PER_TRANSACTION = 50_000;
/** Colors per product: a product of n variants has min(n, 64) colors and enough sizes for n. */
const COLORS = 64;
const CATEGORIES = 20;
/** The category of the multi-variant products: a category page of the others holds one-variant products only. */
const VARIANT_CATEGORY = 'variants';
/** The variant ordered, 1-based: deep in the product, not its first. */
const ORDERED_POSITION = 1_500;
/** The cursor page starts after this position (positions 1,901-2,000 of 2,048). */
const DEEP_POSITION = 1_900;

interface VariantSpec {
  sku: string | null;
  options: OptionValues;
  price: number;
  stock: number;
}

/** A product as POST /v1/products takes it; `price`/`sku`/`stock` of a product without options are its variant's. */
interface ProductSpec {
  name: string;
  description: string;
  category: string;
  options: ProductOption[];
  variants: VariantSpec[];
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A product of `n` variants: Size × Color, combinations in order, prices varying, SKUs from `sku`. */
function multiVariant(
  name: string,
  n: number,
  sku: (i: number) => string | null,
  stock: (i: number) => number = () => 100,
): ProductSpec {
  const colors = Math.min(n, COLORS);
  const sizes = Math.ceil(n / colors);
  const sizeValue = (k: number) => `S${pad(k + 1)}`;
  const colorValue = (k: number) => `Color ${pad(k + 1)}`;
  return {
    name,
    description: `Generated product with ${n} variants.`,
    category: VARIANT_CATEGORY,
    options: [
      { name: 'Size', values: Array.from({ length: sizes }, (_, k) => sizeValue(k)) },
      { name: 'Color', values: Array.from({ length: colors }, (_, k) => colorValue(k)) },
    ],
    variants: Array.from({ length: n }, (_, i) => ({
      sku: sku(i),
      options: { Size: sizeValue(Math.floor(i / colors)), Color: colorValue(i % colors) },
      price: 1_000 + (i % 97) * 25,
      stock: stock(i),
    })),
  };
}

function oneVariant(i: number, stock: number, sku = `ONE-${i}`): ProductSpec {
  return {
    name: `Plain product ${i}`,
    description: `Generated product number ${i}.`,
    category: `cat-${i % CATEGORIES}`,
    options: [],
    variants: [{ sku, options: {}, price: 100 + ((i * 7919) % 100_000), stock }],
  };
}

/** The body that creates `spec` through POST /v1/products. */
function createBody(spec: ProductSpec): Record<string, unknown> {
  const common = { name: spec.name, description: spec.description, category: spec.category };
  if (spec.options.length > 0) return { ...common, options: spec.options, variants: spec.variants };
  const [only] = spec.variants as [VariantSpec];
  return { ...common, sku: only.sku, price: only.price, stock: only.stock };
}

/** The rows of `spec`, made as products.service.ts `create` makes them. */
function rowsOf(
  tenantId: string,
  spec: ProductSpec,
  created: number,
): { product: products.NewProductRow; variants: variants.VariantRow[] } {
  const productId = newId('prod');
  const rows: variants.VariantRow[] = spec.variants.map((variant, index) => ({
    id: newId('var'),
    tenant_id: tenantId,
    product_id: productId,
    sku: variant.sku,
    sku_key: variant.sku?.toLowerCase() ?? null,
    title: spec.options.length === 0 ? DEFAULT_TITLE : variantTitle(spec.options, variant.options),
    options: JSON.stringify(variant.options),
    option_key: optionKey(variant.options),
    price: variant.price,
    compare_at_price: null,
    stock: variant.stock,
    committed: 0,
    spread: 0,
    weight_grams: null,
    barcode: null,
    image: null,
    cost: null,
    requires_shipping: 1,
    taxable: 1,
    position: index + 1,
    created,
    updated: created,
  }));
  let price = Infinity;
  let priceMax = -Infinity;
  let stock = 0;
  for (const row of rows) {
    price = Math.min(price, row.price);
    priceMax = Math.max(priceMax, row.price);
    stock += row.stock;
  }
  const product: products.NewProductRow = {
    id: productId,
    tenant_id: tenantId,
    handle: productId.toLowerCase().replace('_', '-'),
    name: spec.name,
    description: spec.description,
    sku: spec.options.length === 0 ? (rows[0]?.sku ?? null) : null,
    price,
    price_max: priceMax,
    currency: 'USD',
    category: spec.category,
    stock,
    status: 'active',
    images: '[]',
    image_alts: '{}',
    attributes: '{}',
    tags: '[]',
    options: JSON.stringify(spec.options),
    variant_count: rows.length,
    seo_title: null,
    seo_description: null,
    search_extra: searchExtra(
      spec.options,
      rows.map((row) => row.sku),
    ),
    created,
    updated: created,
  };
  return { product, variants: rows };
}

/**
 * Inserts the products `make(0..count-1)`, with their variants and counts, in transactions of
 * about VARIANTS_PER_TRANSACTION variants. Returns the rows of the first product (for its ids).
 */
async function bulkLoad(
  deps: Deps,
  tenantId: string,
  count: number,
  make: (i: number) => { product: products.NewProductRow; variants: variants.VariantRow[] },
): Promise<{ product: products.NewProductRow; variants: variants.VariantRow[] } | undefined> {
  let first: ReturnType<typeof make> | undefined;
  let i = 0;
  while (i < count) {
    await deps.store.transaction(async (trx) => {
      const deltas: products.CountDelta[] = [];
      let productRows: products.NewProductRow[] = [];
      let variantRows: variants.VariantRow[] = [];
      const flush = async () => {
        await products.insertProducts(trx, productRows);
        await variants.insertVariants(trx, variantRows);
        productRows = [];
        variantRows = [];
      };
      let inTransaction = 0;
      while (i < count && inTransaction < VARIANTS_PER_TRANSACTION) {
        const made = make(i++);
        first ??= made;
        productRows.push(made.product);
        variantRows.push(...made.variants);
        deltas.push({ ...products.bucketOf(made.product), delta: 1 });
        inTransaction += made.variants.length;
        if (productRows.length >= PRODUCTS_PER_INSERT || variantRows.length >= VARIANTS_PER_TRANSACTION / 4) {
          await flush();
        }
      }
      await flush();
      await products.adjustCounts(trx, tenantId, deltas);
    });
  }
  return first;
}

interface ProductPage {
  data: { id: string; variant_count?: number }[];
  total: number;
}
interface VariantPage {
  data: { id: string; position: number }[];
  total: number;
  next_cursor: string | null;
}

/**
 * The rows the API stored for a product against the rows `rowsOf` makes from its spec (ids and
 * times aside): the bulk-loaded catalog is only worth measuring if it is what the service writes.
 */
async function checkRules(deps: Deps, tenantId: string, productId: string, spec: ProductSpec): Promise<void> {
  const found = await products.findProduct(deps.store.db, tenantId, productId);
  // Reads leave the searched text out; it is compared too.
  const stored = found && {
    ...found,
    search_extra: await products.searchExtraOf(deps.store.db, tenantId, productId),
  };
  const storedVariants = await variants.productVariants(deps.store.db, tenantId, productId);
  const made = rowsOf(tenantId, spec, 0);
  const ignored = new Set(['id', 'product_id', 'created', 'updated']);
  const differences: string[] = [];
  const compare = (what: string, a: object | undefined, b: object) => {
    for (const [field, value] of Object.entries(b)) {
      if (ignored.has(field)) continue;
      const actual = (a as Record<string, unknown> | undefined)?.[field];
      if (actual !== value)
        differences.push(`${what}.${field}: API ${JSON.stringify(actual)}, bench ${JSON.stringify(value)}`);
    }
  };
  compare('product', stored, made.product);
  if (storedVariants.length !== made.variants.length) {
    differences.push(`variants: API ${storedVariants.length}, bench ${made.variants.length}`);
  }
  made.variants.forEach((variant, i) => compare(`variants[${i}]`, storedVariants[i], variant));
  if (differences.length > 0) {
    throw new Error(`bulk rows differ from the API's:\n${differences.slice(0, 10).join('\n')}`);
  }
}

export async function run(options: VariantsOptions = {}): Promise<Measurement[]> {
  const total = options.total ?? 1_000_000;
  const small = options.small ?? 1_000;
  const rest = total - small - BIG - MID;
  if (rest < 0) throw new Error(`the large catalog needs at least ${small + BIG + MID} variants`);
  const settings: Settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 4),
    connections: options.connections ?? 16,
  };
  if (!Number.isSafeInteger(settings.rounds) || settings.rounds < 1) {
    throw new Error('BENCH_ROUNDS must be a positive whole number');
  }
  // Two stores, each with its own server: the catalog of `small` variants, and the large one.
  const smallDir = tempDataDir();
  const largeDir = tempDataDir();
  const smallEnv = benchEnv(smallDir);
  const largeEnv = benchEnv(largeDir);
  let deps: Deps | undefined;
  let smallServer: BenchServer | undefined;
  let largeServer: BenchServer | undefined;
  try {
    const fullProducts = Math.floor(rest / BULK_VARIANTS);
    const remainder = rest % BULK_VARIANTS;
    const bigProducts = fullProducts + (remainder > 0 ? 1 : 0);
    /** The one-variant products of both catalogs; the first has the stock the order rows take from. */
    const seedPlain = async (into: Deps, tenantId: string, base: number) =>
      bulkLoad(into, tenantId, small, (i) =>
        rowsOf(tenantId, oneVariant(i, i === 0 ? MAX_STOCK : 1 + ((i * 31) % 500)), base + i * 1000),
      );

    deps = await createDeps(loadConfig({ ...smallEnv, LOG_LEVEL: 'silent' }));
    const smallTenant = await unlimitedTenant(deps);
    await seedPlain(deps, smallTenant.tenant.id, deps.clock.now() - (small + 1) * 1000);
    await deps.close();

    deps = await createDeps(loadConfig({ ...largeEnv, LOG_LEVEL: 'silent' }));
    const tenant = await unlimitedTenant(deps);
    const tenantId = tenant.tenant.id;
    const key = tenant.apiKey.key;
    const base = deps.clock.now() - (small + bigProducts + 1) * 1000;
    const started = Date.now();
    const plain = await seedPlain(deps, tenantId, base);
    // Products of 2,000 variants (and one of the remainder), newer than the one-variant ones.
    await bulkLoad(deps, tenantId, bigProducts, (j) => {
      const n = j < fullProducts ? BULK_VARIANTS : remainder;
      const spec = multiVariant(`Variant tee ${j}`, n, (i) => `P${j}-${i}`);
      return rowsOf(tenantId, spec, base + (small + j) * 1000);
    });
    process.stderr.write(
      `loaded ${small + bigProducts} products of ${small + rest} variants in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    largeServer = await startProcess(serverEntry(), largeEnv);
    smallServer = await startProcess(serverEntry(), smallEnv);
    const large = largeServer;
    const smallKey = smallTenant.apiKey.key;

    // The measured products, through the API (and checked against the rules the bulk rows follow).
    const midSpec = multiVariant(
      'Hundred-variant tee',
      MID,
      (i) => `MID-${i}`,
      (i) => (i === MID / 2 ? MAX_STOCK : 100),
    );
    const bigSpec = multiVariant(
      'Big tee',
      BIG,
      (i) => `BIG-${i}`,
      (i) => (i === ORDERED_POSITION - 1 ? MAX_STOCK : 100),
    );
    const mid = await call<{ id: string }>(large, key, 'POST', '/v1/products', createBody(midSpec));
    const big = await call<{ id: string }>(large, key, 'POST', '/v1/products', createBody(bigSpec));
    await checkRules(deps, tenantId, big.id, bigSpec);

    const { n: stored } = await deps.store.db
      .selectFrom('product_variants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(stored) !== total) throw new Error(`${stored} variants stored, not ${total}`);
    const smallPage = await call<ProductPage>(smallServer, smallKey, 'GET', '/v1/products?limit=20');
    const largePage = await call<ProductPage>(large, key, 'GET', '/v1/products?limit=20');
    if (smallPage.total !== small || smallPage.data.some((item) => item.variant_count !== 1)) {
      throw new Error(`unexpected small listing (total ${smallPage.total}); is dist/ stale? npm run build`);
    }
    if (largePage.total !== small + bigProducts + 2) {
      throw new Error(`unexpected large listing: ${largePage.total} products`);
    }
    const counts = largePage.data.map((item) => item.variant_count ?? 0);
    const spread = [Math.min(...counts), Math.max(...counts)].map((n) => n.toLocaleString('en-US')).join('-');
    const smallLabel = `${label(small)} variants`;
    const largeLabel = `${label(total)} variants`;
    const list = '/v1/products?limit=20';
    const category = `${list}&category=cat-7`;
    const rows: Measurement[] = [];

    // The list without `expand`: its first page (the newest products, of 2,000 variants and so on
    // at the large size), and a page of one-variant products only.
    rows.push(
      ...(await group(
        [
          {
            name: `GET /v1/products first page, 20 one-variant products @ ${smallLabel}`,
            server: smallServer,
            load: getting(smallServer, smallKey, list),
          },
          {
            name: `GET /v1/products first page, 20 products of ${spread} variants @ ${largeLabel}`,
            server: large,
            load: getting(large, key, list),
          },
        ],
        `the page @ ${smallLabel}`,
        settings,
      )),
      ...(await group(
        [
          {
            name: `GET /v1/products category page, one-variant products @ ${smallLabel}`,
            server: smallServer,
            load: getting(smallServer, smallKey, category),
          },
          {
            name: `GET /v1/products category page, one-variant products @ ${largeLabel}`,
            server: large,
            load: getting(large, key, category),
          },
        ],
        `the page @ ${smallLabel}`,
        settings,
      )),
    );
    await smallServer.stop();

    // A page deep in the 2,048 variants, by cursor and by offset, against the first page.
    const variantsPath = `/v1/products/${big.id}/variants?limit=100`;
    const before = await call<VariantPage>(
      large,
      key,
      'GET',
      `${variantsPath}&offset=${DEEP_POSITION - 100}`,
    );
    if (before.total !== BIG || before.next_cursor === null) {
      throw new Error(`unexpected variants page (total ${before.total})`);
    }
    const bigLabel = BIG.toLocaleString('en-US');
    const deep = DEEP_POSITION.toLocaleString('en-US');
    rows.push(
      ...(await group(
        [
          {
            name: `GET /v1/products/{id}/variants?limit=100 first page of ${bigLabel}`,
            server: large,
            load: getting(large, key, variantsPath),
          },
          {
            name: `GET /v1/products/{id}/variants?limit=100 by cursor after position ${deep} of ${bigLabel}`,
            server: large,
            load: getting(large, key, `${variantsPath}&cursor=${before.next_cursor}`),
          },
          {
            name: `GET /v1/products/{id}/variants?limit=100 offset ${deep} of ${bigLabel}`,
            server: large,
            load: getting(large, key, `${variantsPath}&offset=${DEEP_POSITION}`),
          },
        ],
        'the first page',
        settings,
      )),
    );

    // One product: 2,048 variants (the object carries the first 100) against 100 variants.
    rows.push(
      ...(await group(
        [
          {
            name: `GET /v1/products/{id}, ${MID} variants`,
            server: large,
            load: getting(large, key, `/v1/products/${mid.id}`),
          },
          {
            name: `GET /v1/products/{id}, ${bigLabel} variants (the first ${VARIANTS_SHOWN} in it)`,
            server: large,
            load: getting(large, key, `/v1/products/${big.id}`),
          },
        ],
        `the ${MID}-variant product`,
        settings,
      )),
    );

    // Orders of one unit of one variant: of a one-variant product, of the 100- and 2,048-variant ones.
    const variantAt = async (productId: string, position: number) => {
      const page = await call<VariantPage>(
        large,
        key,
        'GET',
        `/v1/products/${productId}/variants?limit=1&offset=${position - 1}`,
      );
      const variant = page.data[0];
      if (variant?.position !== position) throw new Error(`no variant at position ${position}`);
      return variant.id;
    };
    const order = (variantId: string) => {
      const body = JSON.stringify({
        items: [{ variant_id: variantId, quantity: 1 }],
        customer: { email: 'bench@example.com' },
      });
      return posting(large, key, '/v1/orders', () => body);
    };
    rows.push(
      ...(await group(
        [
          {
            name: 'POST /v1/orders, the variant of a one-variant product',
            server: large,
            load: order(plain?.variants[0]?.id ?? ''),
          },
          {
            name: `POST /v1/orders, a variant of the ${MID}-variant product`,
            server: large,
            load: order(await variantAt(mid.id, MID / 2 + 1)),
          },
          {
            name: `POST /v1/orders, a variant of the ${bigLabel}-variant product`,
            server: large,
            load: order(await variantAt(big.id, ORDERED_POSITION)),
          },
        ],
        'the one-variant order',
        { ...settings, connections: 8 },
      )),
    );

    // Creating: one-variant products one by one, and 2,048-variant products in one request each,
    // compared per variant created.
    const tag = Date.now().toString(36);
    const plainSpec = (n: number) => oneVariant(small + n, 5, `C1-${tag}-${n}`);
    const template = JSON.stringify(
      createBody(multiVariant('Created tee @N@', BIG, (i) => `C${BIG}-@N@-${i}`)),
    );
    const created = await group(
      [
        {
          name: 'POST /v1/products, one variant (products/s)',
          server: large,
          load: posting(large, key, '/v1/products', (n) => JSON.stringify(createBody(plainSpec(n)))),
        },
        {
          name: `POST /v1/products, ${bigLabel} variants in one request (products/s)`,
          server: large,
          load: posting(large, key, '/v1/products', (n) => template.replaceAll('@N@', `${tag}-${n}`)),
        },
      ],
      'one-variant products/s, in variants/s',
      { ...settings, connections: 4 },
      (target) => (target.name.includes(`${bigLabel} variants`) ? BIG : 1),
    );
    rows.push(...created);

    // The one-variant rows of the catalogs, against a one-variant product the API created.
    const createdOne = await deps.store.db
      .selectFrom('product_variants')
      .select('product_id')
      .where('tenant_id', '=', tenantId)
      .where('sku_key', '=', `c1-${tag}-0`)
      .executeTakeFirstOrThrow();
    await checkRules(deps, tenantId, createdOne.product_id, plainSpec(0));
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
  const total = Number(process.env.BENCH_VARIANTS ?? 1_000_000);
  const rows = await run({ total, small: Math.min(1_000, Math.max(1, Math.floor(total / 10))) });
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
