/**
 * What the catalog's routes answer, for the OpenAPI document: the running shoe (a product without
 * options, its one variant `Default`) and a variant of the logo T-shirt (sizes and colours). Ids,
 * times and figures are those a store gets; src/http/openapi-document.test.ts checks each against
 * its schema.
 */

export const VARIANT_EXAMPLE = {
  id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7',
  product_id: 'prod_UJCge5s3ZsDvyd79x11NeKpp',
  sku: 'TEE-M-BLK',
  title: 'M / Black',
  options: { Size: 'M', Color: 'Black' },
  price: 2500,
  compare_at_price: 3000,
  currency: 'USD',
  stock: 11,
  weight_grams: 180,
  barcode: '0012345678905',
  position: 2,
  created: '2026-11-02T09:14:27.512Z',
  updated: '2026-11-26T09:30:12.481Z',
};

export const PRODUCT_EXAMPLE = {
  id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
  handle: 'trail-runner-3',
  name: 'Trail Runner 3',
  description: 'Grippy lugs and a rock plate for technical trails.',
  sku: 'TR3-42',
  price: 11999,
  price_max: 11999,
  currency: 'USD',
  category: 'shoes',
  stock: 4,
  status: 'active',
  images: ['https://cdn.example.com/products/trail-runner-3.jpg'],
  attributes: { color: 'black' },
  tags: ['running'],
  options: [],
  variant_count: 1,
  variants: [
    {
      id: 'var_trcJqGp8M3fWM6610Ac4ER3Q',
      product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
      sku: 'TR3-42',
      title: 'Default',
      options: {},
      price: 11999,
      compare_at_price: 12999,
      currency: 'USD',
      stock: 4,
      weight_grams: 620,
      barcode: null,
      position: 1,
      created: '2026-11-02T09:20:03.144Z',
      updated: '2026-11-21T10:15:00.000Z',
    },
  ],
  variants_has_more: false,
  created: '2026-11-02T09:20:03.144Z',
  updated: '2026-11-21T10:15:00.000Z',
};
