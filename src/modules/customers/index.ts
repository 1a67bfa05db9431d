/**
 * The customers module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { ADDRESS_EXAMPLE, type Address, AddressSchema } from './customers.address.js';
export { type OrderCustomers, createOrderCustomers } from './customers.orders.js';
export * as customerLogins from './customers.logins.repository.js';
export {
  CUSTOMER_COLUMNS,
  type CustomerRow,
  findByEmail as findCustomerByEmail,
  findCustomer,
} from './customers.repository.js';
export {
  CreateCustomerBody,
  CustomerIdParams,
  type CustomerObject,
  CustomerSchema,
  type UpdateCustomerBody,
} from './customers.schemas.js';
export {
  changedColumns,
  createCustomerService,
  customerChanges,
  insertCustomer,
  newCustomerRow,
  normaliseAddresses,
  presentCustomer,
  updateCustomerIn,
} from './customers.service.js';
