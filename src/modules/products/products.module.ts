import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { productRoutes } from './products.routes.js';
import { ProductListSchema, ProductSchema } from './products.schemas.js';
import { createProductService, type ProductService } from './products.service.js';
import { variantRoutes } from './variants.routes.js';
import { OptionSchema, VariantListSchema, VariantSchema } from './variants.schemas.js';
import { createVariantService, type VariantService } from './variants.service.js';

/** The catalog: products, their options and variants, and the stock each variant holds. */

const PERMISSIONS = ['read:products', 'write:products'] as const;
const EVENTS = ['product.created', 'product.updated', 'product.deleted', 'product.outofstock'] as const;

/** A product as versions before 2027-01-20 show it: without `handle`. */
function productWithoutHandle(product: Record<string, unknown>): Record<string, unknown> {
  const { handle: _handle, ...before } = product;
  return before;
}

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
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
    ],
  },
  needs: ['events'],
  services: (deps) => ({
    products: createProductService(deps),
    variants: createVariantService(deps),
  }),
  routes: [{ plugin: productRoutes }, { plugin: variantRoutes }],
});
