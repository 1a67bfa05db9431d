import type { Platform, Services } from '../../kernel/module.js';
import { isAppError } from '../../lib/errors.js';
import { ManualClock } from '../../lib/clock.js';
import { createOrderCustomers, createCustomerService } from '../customers/index.js';
import { createPaymentService } from './payments.service.js';
import { createProductService } from '../products/index.js';
import type { CreatedTenant } from '../tenants/index.js';
import { createWalletService } from '../wallet/index.js';
import type { CreateOrderBody } from './orders.schemas.js';
import {
  createDiscountService,
  type CreateDiscountBody,
  createShippingRateService,
  createTaxRateService,
  type CreateShippingRateBody,
  type CreateTaxRateBody,
} from '../pricing/index.js';
import { createFulfillmentService } from './fulfillments.service.js';
import { createRefundService } from './refunds.service.js';
import { createOrderService } from './orders.service.js';

/**
 * The demo tenant's catalog (part of it in sizes and colours, a few of them sold out) and a month of
 * orders in every state, for analytics and the console.
 * Everything goes through the real product and order services, so stock, payments, counts and
 * events hold exactly as in live use; only their clock is a seeding clock that walks through the
 * last four weeks in order, which is how the rows get `created` timestamps in the past.
 *
 * All of it stays inside the default event retention (30 days), so the first purge after a start
 * leaves the demo's events alone.
 */

const DAY = 24 * 3600 * 1000;
const MINUTE = 60 * 1000;
/** Orders span this long before now; the catalog is created in the day and a half before that. */
const HISTORY = 28 * DAY;

type Spec = [name: string, sku: string, price: number, stock: number, description: string];

const CATALOG: Record<string, Spec[]> = {
  apparel: [
    ['Organic Cotton Tee', 'APP-TEE-01', 2400, 140, 'Soft, breathable everyday tee in organic cotton.'],
    ['Merino Crew Sweater', 'APP-SWT-02', 8900, 35, 'Fine-gauge merino wool that regulates temperature.'],
    ['Selvedge Denim Jeans', 'APP-JNS-03', 11900, 48, 'Raw selvedge denim, straight fit.'],
    ['Packable Rain Jacket', 'APP-JKT-04', 12900, 22, 'Waterproof shell that folds into its own pocket.'],
    ['Linen Button Shirt', 'APP-SHT-05', 6900, 3, 'Lightweight linen for warm days.'],
    ['Fleece Half-Zip', 'APP-FLC-06', 5900, 60, 'Recycled polyester fleece with a half zip.'],
    ['Wool Beanie', 'APP-BNE-07', 2900, 0, 'Rib-knit beanie in lambswool.'],
    ['Chino Shorts', 'APP-SHO-08', 4900, 75, 'Stretch cotton chinos cut above the knee.'],
  ],
  shoes: [
    ['Trail Runner 2', 'SHO-TRL-01', 12999, 30, 'Grippy lugs and a rock plate for technical trails.'],
    ['Court Classic Sneaker', 'SHO-CRT-02', 7999, 90, 'Leather low-top with a cupsole.'],
    ['Chelsea Boot', 'SHO-CHB-03', 17900, 14, 'Suede Chelsea boot with elastic gussets.'],
    ['Canvas Slip-On', 'SHO-SLP-04', 4500, 7, 'Vulcanised canvas slip-on.'],
    ['Road Racer Flat', 'SHO-RRF-05', 14900, 25, 'Featherweight racer with a carbon plate.'],
    ['Wool Slippers', 'SHO-WSL-06', 5500, 40, 'Boiled wool house slippers.'],
    ['Hiking Boot Mid', 'SHO-HKB-07', 16900, 9, 'Waterproof mid-cut boot for long days out.'],
  ],
  electronics: [
    ['Wireless Earbuds', 'ELE-EAR-01', 9900, 120, 'Noise-cancelling earbuds with 24h case battery.'],
    ['Mechanical Keyboard', 'ELE-KBD-02', 13900, 45, 'Hot-swappable switches, aluminium case.'],
    ['USB-C Charger 65W', 'ELE-CHG-03', 4900, 200, 'GaN charger with two USB-C ports.'],
    ['Smart Desk Lamp', 'ELE-LMP-04', 7900, 33, 'Adjustable colour temperature and app control.'],
    ['Portable SSD 1TB', 'ELE-SSD-05', 11900, 8, 'Pocket-sized NVMe drive, 1,050 MB/s.'],
    ['4K Webcam', 'ELE-CAM-06', 15900, 18, 'Autofocus webcam with dual microphones.'],
    ['Bluetooth Speaker', 'ELE-SPK-07', 6900, 0, 'Rugged speaker, IP67, 12h playback.'],
    ['E-Reader', 'ELE-ERD-08', 12900, 27, 'Glare-free 7" display with warm light.'],
  ],
  home: [
    ['Pour-Over Coffee Set', 'HOM-COF-01', 5900, 55, 'Glass dripper, carafe and reusable filter.'],
    ['Cast Iron Skillet', 'HOM-SKL-02', 4500, 38, 'Pre-seasoned 10" skillet.'],
    ['Linen Duvet Cover', 'HOM-DUV-03', 18900, 12, 'Stonewashed French linen, queen size.'],
    ['Ceramic Mug Set', 'HOM-MUG-04', 3600, 80, 'Four hand-glazed stoneware mugs.'],
    ['Chef Knife 8"', 'HOM-KNF-05', 8900, 6, 'High-carbon steel chef knife.'],
    ['Scented Candle', 'HOM-CDL-06', 2800, 150, 'Soy wax candle, cedar and fig.'],
    ['Bamboo Cutting Board', 'HOM-BRD-07', 3200, 64, 'Reversible board with juice groove.'],
  ],
  beauty: [
    ['Daily Moisturiser', 'BEA-MST-01', 3200, 95, 'Lightweight moisturiser with hyaluronic acid.'],
    ['Vitamin C Serum', 'BEA-SRM-02', 4200, 60, 'Brightening serum, 15% vitamin C.'],
    ['Mineral Sunscreen SPF 50', 'BEA-SPF-03', 2600, 110, 'Reef-safe zinc sunscreen.'],
    ['Clay Face Mask', 'BEA-MSK-04', 2200, 1, 'Kaolin clay mask for oily skin.'],
    ['Shea Body Butter', 'BEA-BDY-05', 2400, 70, 'Rich body butter with shea and cocoa.'],
    ['Bamboo Toothbrush Pack', 'BEA-TBR-06', 1200, 300, 'Four compostable toothbrushes.'],
  ],
  sports: [
    ['Yoga Mat 5mm', 'SPO-YGA-01', 6800, 44, 'Natural rubber mat with alignment lines.'],
    ['Adjustable Dumbbells', 'SPO-DMB-02', 29900, 8, 'Pair of dumbbells from 2 to 24 kg.'],
    ['Insulated Bottle 750ml', 'SPO-BTL-03', 3400, 160, 'Keeps drinks cold for 24 hours.'],
    ['Resistance Bands Set', 'SPO-BND-04', 2900, 85, 'Five bands from light to extra heavy.'],
    ['Cycling Gloves', 'SPO-GLV-05', 3900, 8, 'Padded half-finger gloves.'],
    ['Trail Running Vest', 'SPO-VST-06', 11900, 16, '12 l vest with two soft flasks.'],
  ],
};

/**
 * Part of the catalog comes in sizes and colours: option values, and the stock of each combination
 * (by the SKU of the product above), some sold out. `surcharge` raises the price of a value.
 */
interface VariantSpec {
  options: {
    name: string;
    values: string[];
    code: (value: string) => string;
    surcharge?: Record<string, number>;
  }[];
  /** Units per combination, in the order the combinations are listed (first option slowest). */
  stock: number[];
  weightGrams: number;
  compareAt?: number;
}

/** Where the demo products are made (`attributes.origin`), as ISO 3166-1 codes: one at random each. */
export const DEMO_ORIGINS = ['PT', 'IT', 'DE', 'US', 'VN'] as const;

const upper = (value: string) => value.toUpperCase().replaceAll(' ', '');
const colour = (value: string) => value.slice(0, 3).toUpperCase();

const VARIANTS: Record<string, VariantSpec> = {
  'APP-TEE-01': {
    options: [
      { name: 'Size', values: ['S', 'M', 'L', 'XL'], code: upper },
      { name: 'Color', values: ['Black', 'White', 'Sage'], code: colour },
    ],
    stock: [12, 14, 6, 18, 20, 9, 15, 16, 4, 8, 10, 0],
    weightGrams: 180,
  },
  'APP-SWT-02': {
    options: [
      { name: 'Size', values: ['S', 'M', 'L'], code: upper },
      { name: 'Color', values: ['Navy', 'Oatmeal'], code: colour },
    ],
    stock: [0, 5, 9, 8, 7, 6],
    weightGrams: 420,
    compareAt: 10900,
  },
  'APP-JNS-03': {
    options: [
      { name: 'Waist', values: ['28', '30', '32', '34', '36'], code: upper },
      { name: 'Length', values: ['30', '32', '34'], code: upper },
    ],
    stock: [2, 3, 0, 4, 6, 3, 5, 7, 4, 3, 5, 2, 1, 2, 0],
    weightGrams: 850,
  },
  'APP-FLC-06': {
    options: [
      { name: 'Color', values: ['Forest', 'Charcoal', 'Rust'], code: colour },
      { name: 'Size', values: ['S', 'M', 'L'], code: upper },
    ],
    stock: [6, 8, 5, 9, 11, 7, 4, 6, 0],
    weightGrams: 390,
  },
  'SHO-TRL-01': {
    options: [{ name: 'Size', values: ['EU 40', 'EU 41', 'EU 42', 'EU 43', 'EU 44', 'EU 45'], code: upper }],
    stock: [4, 6, 7, 6, 5, 0],
    weightGrams: 620,
  },
  'SHO-CRT-02': {
    options: [
      { name: 'Size', values: ['EU 40', 'EU 41', 'EU 42', 'EU 43', 'EU 44', 'EU 45'], code: upper },
      { name: 'Color', values: ['White', 'Black'], code: colour, surcharge: { Black: 500 } },
    ],
    stock: [8, 5, 9, 7, 10, 8, 9, 6, 7, 4, 3, 0],
    weightGrams: 780,
  },
};

/** Every combination of the options, first option slowest: [values by option name, title codes]. */
function combinations(spec: VariantSpec): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const option of spec.options) {
    out = out.flatMap((partial) => option.values.map((value) => ({ ...partial, [option.name]: value })));
  }
  return out;
}

/** The `POST /products` fields of a product sold in variants: its options and one variant per combination. */
function variantFields(sku: string, price: number, spec: VariantSpec) {
  return {
    options: spec.options.map(({ name, values }) => ({ name, values })),
    variants: combinations(spec).map((values, index) => ({
      sku: [sku, ...spec.options.map((option) => option.code(values[option.name] ?? ''))].join('-'),
      options: values,
      price: price + spec.options.reduce((sum, o) => sum + (o.surcharge?.[values[o.name] ?? ''] ?? 0), 0),
      ...(spec.compareAt === undefined ? {} : { compare_at_price: spec.compareAt }),
      stock: spec.stock[index] ?? 0,
      weight_grams: spec.weightGrams,
    })),
  };
}

const CUSTOMERS: [string, string, string, string][] = [
  ['Ava Thompson', 'ava.thompson@example.com', 'Portland', 'US'],
  ['Liam Carter', 'liam.carter@example.com', 'Austin', 'US'],
  ['Sofia Rossi', 'sofia.rossi@example.com', 'Milano', 'IT'],
  ['Noah Fischer', 'noah.fischer@example.com', 'Berlin', 'DE'],
  ['Mia Dubois', 'mia.dubois@example.com', 'Lyon', 'FR'],
  ['Ethan Nguyen', 'ethan.nguyen@example.com', 'Seattle', 'US'],
  ['Olivia Smith', 'olivia.smith@example.com', 'London', 'GB'],
  ['Lucas Silva', 'lucas.silva@example.com', 'Lisboa', 'PT'],
  ['Emma Johansson', 'emma.johansson@example.com', 'Stockholm', 'SE'],
  ['James Wilson', 'james.wilson@example.com', 'Toronto', 'CA'],
  ['Chloe Martin', 'chloe.martin@example.com', 'Chicago', 'US'],
  ['Mateo Garcia', 'mateo.garcia@example.com', 'Madrid', 'ES'],
  ['Hannah Becker', 'hannah.becker@example.com', 'Hamburg', 'DE'],
  ['Daniel Kim', 'daniel.kim@example.com', 'New York', 'US'],
];

/** The states of the demo customers' US cities: their sales tax is by state. */
const STATES: Record<string, string> = {
  Portland: 'OR',
  Austin: 'TX',
  Seattle: 'WA',
  Chicago: 'IL',
  'New York': 'NY',
};

const DISCOUNTS: ((now: number) => CreateDiscountBody)[] = [
  () => ({ code: 'WELCOME10', type: 'percentage', value: 1000, usage_limit_per_customer: 1 }),
  () => ({ code: 'FREESHIP', type: 'free_shipping', minimum_subtotal: 5000 }),
  () => ({ automatic: true, type: 'fixed_amount', value: 1500, currency: 'USD', minimum_subtotal: 25000 }),
  (now) => ({
    code: 'SUMMER25',
    type: 'percentage',
    value: 2500,
    starts_at: new Date(now - 200 * DAY).toISOString(),
    ends_at: new Date(now - 110 * DAY).toISOString(),
  }),
  () => ({
    code: 'VIP50',
    type: 'fixed_amount',
    value: 5000,
    currency: 'USD',
    usage_limit: 20,
    enabled: false,
  }),
];

const SHIPPING_RATES: CreateShippingRateBody[] = [
  { name: 'Standard', countries: ['US'], price: 695, currency: 'USD', free_over: 7500 },
  { name: 'Express', countries: ['US'], price: 1995, currency: 'USD' },
  { name: 'Canada', countries: ['CA'], price: 1295, currency: 'USD', free_over: 15000 },
  {
    name: 'Europe',
    countries: ['DE', 'FR', 'IT', 'ES', 'PT', 'SE', 'GB'],
    price: 1495,
    currency: 'USD',
    max_weight_grams: 4999,
  },
  {
    name: 'Europe',
    countries: ['DE', 'FR', 'IT', 'ES', 'PT', 'SE', 'GB'],
    price: 2995,
    currency: 'USD',
    min_weight_grams: 5000,
  },
  { name: 'International', countries: ['*'], price: 2495, currency: 'USD' },
];

const TAX_RATES: CreateTaxRateBody[] = [
  {
    name: 'New York sales tax',
    country: 'US',
    state: 'NY',
    rate_bps: 888,
    inclusive: false,
    shipping_taxable: true,
  },
  {
    name: 'Texas sales tax',
    country: 'US',
    state: 'TX',
    rate_bps: 625,
    inclusive: false,
    shipping_taxable: false,
  },
  {
    name: 'Illinois sales tax',
    country: 'US',
    state: 'IL',
    rate_bps: 625,
    inclusive: false,
    shipping_taxable: false,
  },
  {
    name: 'Washington sales tax',
    country: 'US',
    state: 'WA',
    rate_bps: 650,
    inclusive: false,
    shipping_taxable: true,
  },
  { name: 'MwSt', country: 'DE', rate_bps: 1900, inclusive: true, shipping_taxable: true },
  { name: 'TVA', country: 'FR', rate_bps: 2000, inclusive: true, shipping_taxable: true },
  { name: 'VAT', country: 'GB', rate_bps: 2000, inclusive: true, shipping_taxable: true },
];

/** Where an order's story ends; the steps before it happen at realistic delays. */
type Fate =
  | 'pending'
  | 'declined'
  | 'paid'
  | 'shipped'
  | 'delivered'
  | 'cancelled'
  | 'cancelled_paid'
  | 'refunded'
  | 'partly_refunded';
const FATES: Fate[] = [
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'shipped',
  'shipped',
  'paid',
  'paid',
  'pending',
  'declined',
  'cancelled',
  'cancelled_paid',
  'refunded',
  'refunded',
  'partly_refunded',
];

/** A small deterministic generator, so every demo store looks the same. */
function random(seed: number) {
  let state = seed;
  return (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
}

interface Step {
  at: number;
  run: () => Promise<void>;
}

export async function seedDemoCommerce(
  deps: Pick<Platform, 'clock' | 'logger' | 'store'> & Pick<Services, 'events' | 'paymentProvider' | 'audit'>,
  created: CreatedTenant,
  orderCount = 80,
): Promise<void> {
  const now = deps.clock.now();
  const clock = new ManualClock(now - HISTORY - 36 * 60 * MINUTE);
  const events = deps.events.withClock(clock);
  const products = createProductService({ store: deps.store, clock, events });
  const payments = createPaymentService({
    store: deps.store,
    clock,
    events,
    provider: deps.paymentProvider,
    logger: deps.logger,
    wallet: createWalletService({ store: deps.store, clock, events }),
  });
  const refunds = createRefundService({ store: deps.store, clock, events, payments });
  const orders = createOrderService({
    store: deps.store,
    clock,
    events,
    logger: deps.logger,
    payments,
    refunds,
    fulfillments: createFulfillmentService({ store: deps.store, clock, events, refunds }),
    customers: createOrderCustomers({ store: deps.store, events }),
  });
  const tenant = { id: created.tenant.id, currency: created.tenant.currency };
  const rand = random(20261121);

  // The store's customers, with their details; every one of them orders several times below.
  const customers = createCustomerService({ store: deps.store, clock, events });
  for (const [index, [name, email, city, country]] of CUSTOMERS.entries()) {
    clock.advance(11 * MINUTE);
    await customers.create(tenant.id, {
      email,
      name,
      phone: `+1555010${String(index).padStart(4, '0')}`,
      addresses: [{ name, line1: `${10 + index * 7} Market Street`, city, country }],
      tags: index % 4 === 0 ? ['vip'] : index % 3 === 0 ? ['wholesale'] : [],
      marketing_consent: index % 2 === 0,
    });
  }

  // Checkout pricing: discount codes, an automatic discount, shipping by country and weight, and
  // tax (VAT included in European prices, US state sales tax added on top).
  const discounts = createDiscountService({ store: deps.store, clock, events });
  for (const discount of DISCOUNTS) await discounts.create(tenant.id, discount(now));
  const shippingRates = createShippingRateService({ store: deps.store, clock, audit: deps.audit });
  for (const rate of SHIPPING_RATES) await shippingRates.create(tenant.id, rate);
  const taxRates = createTaxRateService({ store: deps.store, clock, audit: deps.audit });
  for (const rate of TAX_RATES) await taxRates.create(tenant.id, rate);

  /** What an order line can name: each product's variants (its one Default variant, or its sizes and colours). */
  const catalog: { variants: string[] }[] = [];
  for (const [category, specs] of Object.entries(CATALOG)) {
    for (const [name, sku, price, stock, description] of specs) {
      clock.advance(37 * MINUTE);
      const spec = VARIANTS[sku];
      const product = await products.create(tenant, {
        name,
        ...(spec === undefined ? { sku, price, stock } : variantFields(sku, price, spec)),
        description,
        category,
        images: [`https://picsum.photos/seed/${sku.toLowerCase()}/640/640`],
        attributes: { brand: 'Northwind', origin: DEMO_ORIGINS[rand(DEMO_ORIGINS.length)] ?? 'PT' },
        tags: [category],
      });
      catalog.push({ variants: (product.variants ?? []).map((variant) => variant.id) });
    }
  }

  const steps: Step[] = [];
  const start = now - HISTORY;
  const expiry = created.tenant.unpaid_order_expiry_minutes * MINUTE;
  for (let i = 0; i < orderCount; i++) {
    // One order of every fate early enough to have got there; after that later days get more
    // orders (a growing store), and recent ones are naturally still at an earlier stage.
    const forced = i < FATES.length;
    let at = forced
      ? start + rand(21 * DAY)
      : start + Math.floor(Math.sqrt(rand(1_000_000) / 1_000_000) * HISTORY) - rand(60) * MINUTE;
    const fate = FATES[forced ? i : rand(FATES.length)] ?? 'delivered';
    // An unpaid order expires within a day: the one that must still be pending is a recent one.
    if (forced && fate === 'pending') at = now - 3 * 60 * MINUTE;
    const [name, email, city, country] = CUSTOMERS[rand(CUSTOMERS.length)] ??
      CUSTOMERS[0] ?? ['', '', '', ''];
    const lines = new Map<string, number>();
    for (let n = 1 + rand(3); n > 0; n--) {
      const variants = catalog[rand(catalog.length)]?.variants ?? [];
      const variant = variants[rand(variants.length)];
      if (variant !== undefined) lines.set(variant, 1 + rand(2));
    }
    const code = rand(10);
    const body: CreateOrderBody = {
      items: [...lines].map(([variant_id, quantity]) => ({ variant_id, quantity })),
      customer: { email, name },
      shipping_address: {
        name,
        line1: `${10 + rand(990)} Market Street`,
        city,
        ...(STATES[city] === undefined ? {} : { state: STATES[city] }),
        country,
      },
      ...(code < 2 ? { discount_codes: ['WELCOME10'] } : code === 2 ? { discount_codes: ['FREESHIP'] } : {}),
      metadata: { channel: ['web', 'mobile', 'pos'][rand(3)] ?? 'web' },
      ...(fate === 'pending' || fate === 'cancelled'
        ? {}
        : { payment_method: fate === 'declined' ? 'pm_card_declined' : 'pm_card_visa' }),
    };
    const holder = { id: '' };
    steps.push({
      at,
      run: async () => {
        try {
          holder.id = (await orders.create(tenant.id, body)).id;
        } catch (error) {
          // A demo order for an item that sold out is simply not placed; one whose code does not
          // apply (used once already, under its minimum) is placed without it, as a buyer would.
          if (isAppError(error) && error.code === 'discount_invalid') {
            holder.id = (await orders.create(tenant.id, { ...body, discount_codes: [] })).id;
          } else if (!isAppError(error) || error.code !== 'insufficient_stock') throw error;
        }
      },
    });
    const later = (delay: number, run: (id: string) => Promise<unknown>) => {
      if (at + delay > now - MINUTE) return;
      steps.push({
        at: at + delay,
        run: async () => {
          if (holder.id !== '') await run(holder.id);
        },
      });
    };
    if (fate === 'cancelled' || fate === 'cancelled_paid')
      later(2 * 3600 * 1000, (id) => orders.cancel(tenant.id, id));
    // Unpaid past the store's setting, the expiry sweep cancels it then (`cancel_reason: "expired"`).
    if ((fate === 'pending' || fate === 'declined') && expiry > 0) later(expiry, () => orders.expireUnpaid());
    if (fate === 'shipped' || fate === 'delivered' || fate === 'refunded' || fate === 'partly_refunded') {
      later(DAY, (id) => orders.ship(tenant.id, id, { carrier: 'UPS', tracking_number: `1Z${rand(1e9)}` }));
    }
    if (fate === 'delivered' || fate === 'refunded' || fate === 'partly_refunded') {
      later(3 * DAY, (id) => orders.deliver(tenant.id, id));
    }
    // One unit of the first line comes back, and goes back on the shelf.
    if (fate === 'partly_refunded') {
      later(6 * DAY, async (id) => {
        const order = await orders.get(tenant.id, id);
        const first = order.items[0];
        if (first === undefined) return;
        await refunds.create(tenant.id, id, {
          items: [{ variant_id: first.variant_id, quantity: 1 }],
          restock: true,
          reason: 'Returned: wrong size',
        });
      });
    }
    if (fate === 'refunded') later(5 * DAY, (id) => orders.refund(tenant.id, id, rand(2) === 0));
  }
  for (const step of steps.sort((a, b) => a.at - b.at)) {
    clock.set(Math.max(step.at, clock.now() + 1));
    await step.run();
  }
}
