/**
 * What the export routes stream, for the OpenAPI document: the store of the other examples (the
 * running shoe, two of the T-shirt's variants, Ada and her order) as CSV and as JSON Lines. A CSV
 * cell a spreadsheet would run as a formula (a phone's `+`) starts with `'`.
 */

const csv = (lines: string[]): string => `${lines.join('\r\n')}\r\n`;
const jsonLines = (rows: Record<string, unknown>[]): string =>
  rows.map((row) => `${JSON.stringify(row)}\n`).join('');

const PRODUCT_ROWS = [
  {
    handle: 'trail-runner-3',
    name: 'Trail Runner 3',
    description: 'Grippy lugs and a rock plate for technical trails.',
    category: 'shoes',
    status: 'active',
    tags: ['running'],
    currency: 'USD',
    images: ['https://cdn.example.com/products/trail-runner-3.jpg'],
    image_alts: { 'https://cdn.example.com/products/trail-runner-3.jpg': 'Trail Runner 3, side view' },
    attributes: { color: 'black' },
    seo_title: 'Trail Runner 3 | Acme',
    seo_description: null,
    option1_name: null,
    option1_value: null,
    option2_name: null,
    option2_value: null,
    option3_name: null,
    option3_value: null,
    sku: 'TR3-42',
    price: 11999,
    compare_at_price: 12999,
    stock: 4,
    stock_by_location: { 'Default location': 3, Warehouse: 1 },
    weight_grams: 620,
    barcode: null,
    image: null,
    cost: 5400,
    requires_shipping: true,
    taxable: true,
  },
];

const CUSTOMER_ROWS = [
  {
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    phone: '+14155550123',
    tags: ['vip'],
    note: 'Prefers deliveries after 5 pm.',
    marketing_consent: true,
    metadata: { crm_id: 'C-10442' },
    address_name: 'Ada Lovelace',
    address_line1: '500 Howard St',
    address_line2: 'Suite 300',
    address_city: 'San Francisco',
    address_state: 'CA',
    address_postal_code: '94105',
    address_country: 'US',
    address_phone: '+14155550123',
  },
];

const ORDER = {
  order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  created: '2026-11-21T10:15:00.000Z',
  status: 'delivered',
  currency: 'USD',
  customer_id: 'cus_edm8Zq6mpEr6ql9bxIuE5gyZ',
  customer_email: 'ada@example.com',
  customer_name: 'Ada Lovelace',
  subtotal: 16999,
  discount_total: 1700,
  shipping_total: 0,
  tax_total: 1109,
  total: 16408,
  refunded_amount: 2413,
  shipping_name: 'Ada Lovelace',
  shipping_line1: '500 Howard St',
  shipping_line2: 'Suite 300',
  shipping_city: 'San Francisco',
  shipping_state: 'CA',
  shipping_postal_code: '94105',
  shipping_country: 'US',
  shipping_phone: '+14155550123',
  carrier: 'UPS',
  tracking_number: '1Z999AA10123456784',
};

const ORDER_ROWS = [
  {
    ...ORDER,
    line: 0,
    product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
    variant_id: 'var_trcJqGp8M3fWM6610Ac4ER3Q',
    sku: 'TR3-42',
    item_name: 'Trail Runner 3',
    variant_title: 'Default',
    quantity: 1,
    unit_price: 11999,
    line_total: 11999,
    line_discount: 1200,
    line_tax: 783,
  },
  {
    ...ORDER,
    line: 1,
    product_id: 'prod_UJCge5s3ZsDvyd79x11NeKpp',
    variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7',
    sku: 'TEE-M-BLK',
    item_name: 'Logo T-shirt',
    variant_title: 'M / Black',
    quantity: 2,
    unit_price: 2500,
    line_total: 5000,
    line_discount: 500,
    line_tax: 326,
  },
];

const ORDER_CSV_COLUMNS =
  'order_id,created,status,currency,customer_id,customer_email,customer_name,subtotal,discount_total,shipping_total,tax_total,total,refunded_amount,shipping_name,shipping_line1,shipping_line2,shipping_city,shipping_state,shipping_postal_code,shipping_country,shipping_phone,carrier,tracking_number,line,product_id,variant_id,sku,item_name,variant_title,quantity,unit_price,line_total,line_discount,line_tax';
const ORDER_CSV_PREFIX =
  "ord_s11dd1TIuPzPnu7E29AlKVTk,2026-11-21T10:15:00.000Z,delivered,USD,cus_edm8Zq6mpEr6ql9bxIuE5gyZ,ada@example.com,Ada Lovelace,16999,1700,0,1109,16408,2413,Ada Lovelace,500 Howard St,Suite 300,San Francisco,CA,94105,US,'+14155550123,UPS,1Z999AA10123456784";

/** Each export's file, as CSV and as JSON Lines. */
export const EXPORT_EXAMPLES = {
  products: {
    csv: csv([
      'handle,name,description,category,status,tags,currency,images,image_alts,attributes,seo_title,seo_description,option1_name,option1_value,option2_name,option2_value,option3_name,option3_value,sku,price,compare_at_price,stock,stock_by_location,weight_grams,barcode,image,cost,requires_shipping,taxable',
      'trail-runner-3,Trail Runner 3,Grippy lugs and a rock plate for technical trails.,shoes,active,running,USD,https://cdn.example.com/products/trail-runner-3.jpg,"{""https://cdn.example.com/products/trail-runner-3.jpg"":""Trail Runner 3, side view""}","{""color"":""black""}",Trail Runner 3 | Acme,,,,,,,,TR3-42,11999,12999,4,"{""Default location"":3,""Warehouse"":1}",620,,,5400,true,true',
    ]),
    jsonl: jsonLines(PRODUCT_ROWS),
  },
  customers: {
    csv: csv([
      'email,name,phone,tags,note,marketing_consent,metadata,address_name,address_line1,address_line2,address_city,address_state,address_postal_code,address_country,address_phone',
      `ada@example.com,Ada Lovelace,'+14155550123,vip,Prefers deliveries after 5 pm.,true,"{""crm_id"":""C-10442""}",Ada Lovelace,500 Howard St,Suite 300,San Francisco,CA,94105,US,'+14155550123`,
    ]),
    jsonl: jsonLines(CUSTOMER_ROWS),
  },
  orders: {
    csv: csv([
      ORDER_CSV_COLUMNS,
      `${ORDER_CSV_PREFIX},0,prod_NUM03sM4JHrY5j5OPiOa7rZU,var_trcJqGp8M3fWM6610Ac4ER3Q,TR3-42,Trail Runner 3,Default,1,11999,11999,1200,783`,
      `${ORDER_CSV_PREFIX},1,prod_UJCge5s3ZsDvyd79x11NeKpp,var_RzZ3unAXTTuVdMLmj0ZuOFd7,TEE-M-BLK,Logo T-shirt,M / Black,2,2500,5000,500,326`,
    ]),
    jsonl: jsonLines(ORDER_ROWS),
  },
} as const;
