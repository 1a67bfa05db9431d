/**
 * The orders module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { seedDemoCommerce } from './orders.demo.js';
export type { HeldOrder, OrderCheckout } from './orders.checkout.js';
export { NotTakenAsRead } from './orders.build.js';
export { ORDER_EXAMPLE } from './orders.examples.js';
export { pagePresenter } from './orders.presenter.js';
export type { OrderRow } from './orders.repository.js';
export { type OrderObject, OrderItemSchema, OrderSchema } from './orders.schemas.js';
