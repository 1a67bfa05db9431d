/**
 * The products module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export * as productsInventory from './products.inventory.js';
export * as stockLevels from './products.levels.js';
export { isNotTakenAsRead, stockTakenAsRead } from './products.stock-take.js';
export type { Level, LevelLocation } from './products.levels.js';
export type { StockLine } from './products.inventory.js';
export { productOptions } from './products.presenter.js';
export { altsJson, type ImageAlts, type MediaItem, parseAlts, presentMedia } from './products.media.js';
export { isHandle } from './products.handles.js';
export {
  findProduct,
  findProductByHandle,
  findProductsByIds,
  type ProductRow,
} from './products.repository.js';
export { type ProductPage } from './products.listing.js';
export { emitUpdated, settle } from './products.rollup.js';
export { CreateProductBody, ProductListQuery } from './products.schemas.js';
export {
  type NewProduct,
  type ProductService,
  type TenantRef,
  buildProduct,
  checkImages,
  createProductService,
  insertNewProducts,
  insertProduct,
} from './products.service.js';
export {
  findVariantsByIds,
  firstVariants,
  insertVariants,
  productVariants,
  takenSku,
  updateVariant,
  type VariantRow,
} from './variants.repository.js';
export {
  MAX_OPTIONS,
  MAX_OPTION_VALUES,
  MAX_VARIANTS,
  type OptionValues,
  type ProductOption,
  checkOptions,
  duplicateSku,
  optionKey,
  VARIANTS_SHOWN,
  variantTitle,
} from './variants.rules.js';
export { MAX_PRICE, NewVariantBody, OptionSchema } from './variants.schemas.js';
export { barcodeProblem, codeErrors, skuProblem } from './variants.codes.js';
export { checkImageUrl, newVariantDetails, variantDetailChanges } from './variants.details.js';
export type { VariantService } from './variants.service.js';
