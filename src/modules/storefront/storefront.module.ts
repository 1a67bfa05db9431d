import { defineModule } from '../../kernel/module.js';
import { storefrontRoutes } from './storefront.routes.js';
import {
  StoreProductListSchema,
  StoreProductSchema,
  StoreShippingRateListSchema,
  StoreShippingRateSchema,
  StoreVariantSchema,
} from './storefront.schemas.js';
import { createStorefrontCatalog, type StorefrontCatalog } from './storefront.service.js';

/**
 * The shopper's catalog (`/v1/store/products`, `/v1/store/shipping-rates`): what a storefront
 * shows of the store's active products and the shipping rates a cart may choose, read through the
 * products and pricing modules.
 */

declare module '../../kernel/module.js' {
  interface Services {
    storefrontCatalog: StorefrontCatalog;
  }
}

export default defineModule({
  name: 'storefront',
  position: 70,
  tags: [
    {
      name: 'Storefront catalog',
      description:
        'What a shopper sees of the store: its active products (never stock counts, costs or drafts) and the shipping rates a cart may choose',
    },
  ],
  operationIds: {
    'GET /v1/store/products': 'listStoreProducts',
    'GET /v1/store/products/:id_or_handle': 'getStoreProduct',
    'GET /v1/store/shipping-rates': 'listStoreShippingRates',
  },
  components: () => ({
    StoreProduct: StoreProductSchema,
    StoreVariant: StoreVariantSchema,
    StoreProductList: StoreProductListSchema,
    StoreShippingRate: StoreShippingRateSchema,
    StoreShippingRateList: StoreShippingRateListSchema,
  }),
  needs: ['products'],
  services: (deps) => ({ storefrontCatalog: createStorefrontCatalog(deps) }),
  routes: [{ plugin: storefrontRoutes }],
});
