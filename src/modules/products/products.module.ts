import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import type { CodesOf, ProblemDeclarations } from '../../lib/errors.js';
import { productRoutes } from './products.routes.js';
import { ProductListSchema, ProductSchema } from './products.schemas.js';
import { createProductService, type ProductService } from './products.service.js';
import { variantRoutes } from './variants.routes.js';
import { OptionSchema, VariantListSchema, VariantSchema } from './variants.schemas.js';
import { createVariantService, type VariantService } from './variants.service.js';
import { DETAILS_CHANGE } from './variants.versions.js';
import type { StockLevelsTable } from './products.tables.js';
import * as stockLevels from './migrations/0048_stock_levels.js';
import * as imageAlts from './migrations/0061_image_alts.js';
import * as stockTake from './migrations/0069_stock_take.js';

/** The catalog: products, their options and variants, and the stock each variant holds. */

const PERMISSIONS = ['read:products', 'write:products'] as const;
const EVENTS = ['product.created', 'product.updated', 'product.deleted', 'product.outofstock'] as const;

/** A product as versions before 2027-01-20 show it: without `media`. */
function productWithoutMedia(product: Record<string, unknown>): Record<string, unknown> {
  const { media: _media, ...before } = product;
  return before;
}

/** A product stored before `media` (an event's object): its images, none with alt text. */
function storedWithMedia(product: Record<string, unknown>): Record<string, unknown> {
  if ('media' in product || !Array.isArray(product.images)) return product;
  return { ...product, media: product.images.map((url: unknown) => ({ url, alt: null })) };
}

/** A product as versions before 2027-01-20 show it: without `handle`. */
function productWithoutHandle(product: Record<string, unknown>): Record<string, unknown> {
  const { handle: _handle, ...before } = product;
  return before;
}

const PROBLEMS = {
  invalid_product_code: {
    status: 422,
    title: 'Invalid product code',
    example: {
      detail:
        'barcode is a number in scientific notation (3.65275E+11): a spreadsheet wrote a long number that way and its digits are lost: format the column as text in the original file and export it again.',
      options: {
        errors: [
          {
            field: 'barcode',
            message:
              'is a number in scientific notation (3.65275E+11): a spreadsheet wrote a long number that way and its digits are lost: format the column as text in the original file and export it again',
          },
        ],
      },
    },
  },
} satisfies ProblemDeclarations;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof PROBLEMS> {}
}
declare module '../../db/schema.js' {
  interface Database {
    stock_levels: StockLevelsTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    products: ProductService;
    variants: VariantService;
  }
}

export default defineModule({
  name: 'products',
  position: 40,
  tags: [{ name: 'Products', description: 'The catalog: products, their options and variants' }],
  permissions: PERMISSIONS,
  problems: PROBLEMS,
  migrations: {
    '0048_stock_levels': stockLevels,
    '0061_image_alts': imageAlts,
    '0069_stock_take': stockTake,
  },
  events: [
    {
      types: EVENTS,
      object: ProductSchema,
      // `product.outofstock` fires when a variant's stock reaches 0: the data names that variant.
      data: { 'product.outofstock': { variant: VariantSchema } },
      exampleData: (type, product) => {
        if (type !== 'product.outofstock') return { object: product };
        const [variant] = (product.variants ?? []) as Record<string, unknown>[];
        const soldOut = { ...variant, stock: 0 };
        return { object: { ...product, stock: 0, variants: [soldOut] }, variant: soldOut };
      },
    },
  ],
  operationIds: {
    'GET /v1/products': 'listProducts',
    'POST /v1/products': 'createProduct',
    'GET /v1/products/:id': 'getProduct',
    'PATCH /v1/products/:id': 'updateProduct',
    'DELETE /v1/products/:id': 'deleteProduct',
    'GET /v1/products/:id/variants': 'listVariants',
    'POST /v1/products/:id/variants': 'createVariant',
    'GET /v1/products/:id/variants/:variant_id': 'getVariant',
    'PATCH /v1/products/:id/variants/:variant_id': 'updateVariant',
    'DELETE /v1/products/:id/variants/:variant_id': 'deleteVariant',
  },
  components: () => ({
    Product: ProductSchema,
    ProductOption: OptionSchema,
    Variant: VariantSchema,
    ProductList: ProductListSchema,
    VariantList: VariantListSchema,
  }),
  versionChanges: {
    '2027-01-20': [
      {
        description: 'Products gain `handle`, unique per tenant, which storefront URLs use.',
        toPrevious: { product: productWithoutHandle },
      },
      DETAILS_CHANGE,
      {
        description:
          'Products gain `media`: their `images` with each one’s alt text (`{url, alt}`, in the same order), which `POST` and `PATCH /products` may give instead of `images` (not both: 400 naming `media`); `images` given alone keep the alt text of the URLs that stay. Earlier versions neither see nor send it (400 naming `media`).',
        toPrevious: { product: productWithoutMedia },
        storedFromPrevious: { product: storedWithMedia },
      },
      {
        description:
          'A barcode must be a GTIN, EAN, UPC or ISBN whose check digit holds, and neither a barcode nor a SKU may be a number in scientific notation (`3.65275E+11`, as a spreadsheet writes one): 422 `invalid_product_code` naming the field. Requests in earlier versions are not checked.',
      },
    ],
  },
  needs: ['events'],
  services: (deps) => ({
    products: createProductService(deps),
    variants: createVariantService(deps),
  }),
  routes: [{ plugin: productRoutes }, { plugin: variantRoutes }],
});
