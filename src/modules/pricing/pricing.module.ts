import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { discountRoutes } from './discounts.routes.js';
import { DiscountListSchema, DiscountSchema } from './discounts.schemas.js';
import { createDiscountService, type DiscountService } from './discounts.service.js';
import { rateRoutes } from './rates.routes.js';
import {
  ShippingRateListSchema,
  ShippingRateSchema,
  TaxRateListSchema,
  TaxRateSchema,
} from './rates.schemas.js';
import {
  createShippingRateService,
  createTaxRateService,
  type ShippingRateService,
  type TaxRateService,
} from './rates.service.js';

/** The rules that price orders: discounts, shipping rates and tax rates (pricing.calculate.ts). */

const PERMISSIONS = ['read:pricing', 'write:pricing'] as const;
const EVENTS = ['discount.created', 'discount.updated', 'discount.deleted'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    discounts: DiscountService;
    shippingRates: ShippingRateService;
    taxRates: TaxRateService;
  }
}

export default defineModule({
  name: 'pricing',
  position: 60,
  tags: [{ name: 'Pricing', description: 'Discounts, shipping rates and tax rates that price orders' }],
  permissions: PERMISSIONS,
  events: [{ types: EVENTS, object: DiscountSchema }],
  operationIds: {
    'GET /v1/discounts': 'listDiscounts',
    'POST /v1/discounts': 'createDiscount',
    'GET /v1/discounts/:id': 'getDiscount',
    'PATCH /v1/discounts/:id': 'updateDiscount',
    'DELETE /v1/discounts/:id': 'deleteDiscount',
    'GET /v1/shipping-rates': 'listShippingRates',
    'POST /v1/shipping-rates': 'createShippingRate',
    'GET /v1/shipping-rates/:id': 'getShippingRate',
    'PATCH /v1/shipping-rates/:id': 'updateShippingRate',
    'DELETE /v1/shipping-rates/:id': 'deleteShippingRate',
    'GET /v1/tax-rates': 'listTaxRates',
    'POST /v1/tax-rates': 'createTaxRate',
    'GET /v1/tax-rates/:id': 'getTaxRate',
    'PATCH /v1/tax-rates/:id': 'updateTaxRate',
    'DELETE /v1/tax-rates/:id': 'deleteTaxRate',
  },
  components: () => ({
    Discount: DiscountSchema,
    DiscountList: DiscountListSchema,
    ShippingRate: ShippingRateSchema,
    ShippingRateList: ShippingRateListSchema,
    TaxRate: TaxRateSchema,
    TaxRateList: TaxRateListSchema,
  }),
  needs: ['events', 'audit'],
  services: (deps) => ({
    discounts: createDiscountService(deps),
    shippingRates: createShippingRateService(deps),
    taxRates: createTaxRateService(deps),
  }),
  routes: [{ plugin: discountRoutes }, { plugin: rateRoutes }],
});
