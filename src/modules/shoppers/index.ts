/**
 * The shoppers module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 *
 * Another module that acts for a signed-in shopper (a cart made or read with `X-Customer-Token`)
 * needs the `shopperSessions` service and asks it `customerForToken(tenantId, token)`.
 */
export { type ShopperSessions, invalidCustomerToken } from './shoppers.sessions.js';
export { CustomerTokenHeaders } from './shoppers.schemas.js';
