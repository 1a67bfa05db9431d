/**
 * The exports module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export {
  ADDRESS_FIELDS,
  CUSTOMER_COLUMNS,
  CUSTOMER_OWN_COLUMNS,
  type CellValue,
  PRODUCT_COLUMNS,
  PRODUCT_OWN_COLUMNS,
  splitList,
  unescapeFormula,
} from './exports.columns.js';
