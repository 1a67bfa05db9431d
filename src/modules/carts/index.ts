/**
 * The carts module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export type { CartCheckout, Completion } from './carts.checkout.js';
export { type CartObject, CartSchema } from './carts.schemas.js';
export type { CartService } from './carts.service.js';
