/**
 * The pricing module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export type { CreateDiscountBody } from './discounts.schemas.js';
export { createDiscountService } from './discounts.service.js';
export {
  type LineInput,
  type PricedLine,
  type Pricing,
  calculatePricing,
  spread,
} from './pricing.calculate.js';
export {
  type CheckoutLine,
  type CheckoutPricing,
  type CheckoutRefusal,
  priceCheckout,
} from './pricing.checkout.js';
export { chooseDiscounts, chooseShippingRate, chooseTaxRate } from './pricing.choose.js';
export { ratesFor } from './pricing.rules.js';
export * as pricingService from './pricing.service.js';
export type { CreateShippingRateBody, CreateTaxRateBody } from './rates.schemas.js';
export { createShippingRateService, createTaxRateService } from './rates.service.js';
