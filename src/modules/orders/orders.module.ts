import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { orderRoutes } from './orders.routes.js';
import {
  DiscountApplied,
  OrderItemSchema,
  OrderListSchema,
  OrderSchema,
  PaymentSummarySchema,
  ShippingApplied,
  TaxApplied,
} from './orders.schemas.js';
import { createOrderService, type OrderService } from './orders.service.js';

/** Orders: priced and stock reserved at creation, then paid, shipped, delivered, cancelled or refunded. */

const PERMISSIONS = ['read:orders', 'write:orders'] as const;
const EVENTS = [
  'order.created',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    orders: OrderService;
  }
}

export default defineModule({
  name: 'orders',
  position: 70,
  tags: [{ name: 'Orders', description: 'Orders, their lifecycle and payments' }],
  permissions: PERMISSIONS,
  events: [{ types: EVENTS, object: OrderSchema }],
  operationIds: {
    'GET /v1/orders': 'listOrders',
    'POST /v1/orders': 'createOrder',
    'POST /v1/orders/preview': 'previewOrder',
    'GET /v1/orders/:id': 'getOrder',
    'POST /v1/orders/:id/pay': 'payOrder',
    'POST /v1/orders/:id/ship': 'shipOrder',
    'POST /v1/orders/:id/deliver': 'deliverOrder',
    'POST /v1/orders/:id/cancel': 'cancelOrder',
    'POST /v1/orders/:id/refund': 'refundOrder',
    'GET /v1/customers/:id/orders': 'listCustomerOrders',
  },
  components: () => ({
    Order: OrderSchema,
    OrderItem: OrderItemSchema,
    OrderDiscount: DiscountApplied,
    OrderShipping: ShippingApplied,
    OrderTax: TaxApplied,
    OrderPayment: PaymentSummarySchema,
    OrderList: OrderListSchema,
  }),
  needs: ['events', 'payments', 'refunds', 'orderCustomers', 'customers'],
  services: (deps) => ({
    orders: createOrderService({
      store: deps.store,
      clock: deps.clock,
      events: deps.events,
      logger: deps.logger,
      payments: deps.payments,
      refunds: deps.refunds,
      customers: deps.orderCustomers,
    }),
  }),
  routes: [{ plugin: orderRoutes }],
});
