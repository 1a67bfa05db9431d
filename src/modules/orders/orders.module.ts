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
import { createSandboxProvider, type PaymentProvider } from './payments.provider.js';
import { PaymentSchema } from './payments.schemas.js';
import { createPaymentService, type PaymentService } from './payments.service.js';
import { refundRoutes } from './refunds.routes.js';
import { RefundListSchema, RefundSchema } from './refunds.schemas.js';
import { createRefundService, type RefundService } from './refunds.service.js';
import { CANCEL_REASON_CHANGE, FULFILLMENT_CHANGE, SOURCE_CHANGE } from './orders.versions.js';
import type { CodesOf } from '../../lib/errors.js';
import { FULFILLMENT_PROBLEMS } from './fulfillments.problems.js';
import { fulfillmentRoutes } from './fulfillments.routes.js';
import { FulfillmentSchema, ReturnSchema } from './fulfillments.schemas.js';
import { createFulfillmentService, type FulfillmentService } from './fulfillments.service.js';
import type { FulfillmentsTable, ReturnsTable } from './fulfillments.tables.js';
import * as fulfillmentsMigration from './migrations/0049_fulfillments.js';
import { createOrderCheckout, type OrderCheckout } from './orders.checkout.js';

/**
 * The order aggregate: an order (priced and stock reserved at creation, then paid, shipped,
 * delivered, cancelled), its payments through the provider (charged, settled, refunded, and the
 * sweeps that finish what a crash left) and its refunds (a part or all that is left, in one
 * transaction for money, stock and figures). The three change each other's rows in one
 * transaction, so they are one module with one face.
 */

const PERMISSIONS = ['read:orders', 'write:orders'] as const;
const EVENTS = [
  'order.created',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
] as const;
const PAYMENT_EVENTS = ['payment.received', 'payment.failed'] as const;
const REFUND_EVENTS = ['refund.created'] as const;
const FULFILLMENT_EVENTS = ['fulfillment.created'] as const;
const RETURN_EVENTS = ['return.created', 'return.received'] as const;
/** A fulfilment's id (`ful_...`) and a return's (`ret_...`). */
const ID_PREFIXES = ['ful', 'ret'] as const;
const SWEEP_EVERY_MS = 60_000;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
  interface EventTypeNames extends Names<typeof PAYMENT_EVENTS> {}
  interface EventTypeNames extends Names<typeof REFUND_EVENTS> {}
  interface EventTypeNames extends Names<typeof FULFILLMENT_EVENTS> {}
  interface EventTypeNames extends Names<typeof RETURN_EVENTS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof FULFILLMENT_PROBLEMS> {}
}
declare module '../../lib/ids.js' {
  interface IdPrefixNames extends Names<typeof ID_PREFIXES> {}
}
declare module '../../db/schema.js' {
  interface Database {
    fulfillments: FulfillmentsTable;
    returns: ReturnsTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    orders: OrderService;
    paymentProvider: PaymentProvider;
    /** Charges, settles and refunds orders' payments; owns the stale payment and owed refund sweeps. */
    payments: PaymentService;
    /** Refunds of orders: a part, or all that is left (`POST /orders/{id}/refunds`). */
    refunds: RefundService;
    /** An order held while its payment is charged, then placed paid or released (a cart's completion). */
    orderCheckout: OrderCheckout;
    /** Fulfilments and returns of orders. */
    fulfillments: FulfillmentService;
  }
  interface Overrides {
    /** The payment provider; the built-in `sandbox` by default. */
    paymentProvider?: PaymentProvider;
  }
}

export default defineModule({
  name: 'orders',
  position: 70,
  tags: [{ name: 'Orders', description: 'Orders, their lifecycle and payments' }],
  permissions: PERMISSIONS,
  events: [
    { types: EVENTS, object: OrderSchema },
    { types: PAYMENT_EVENTS, object: PaymentSchema },
    { types: REFUND_EVENTS, object: RefundSchema },
    { types: FULFILLMENT_EVENTS, object: FulfillmentSchema },
    { types: RETURN_EVENTS, object: ReturnSchema },
  ],
  problems: FULFILLMENT_PROBLEMS,
  idPrefixes: ID_PREFIXES,
  migrations: { '0049_fulfillments': fulfillmentsMigration },
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
    'GET /v1/orders/:id/refunds': 'listOrderRefunds',
    'POST /v1/orders/:id/refunds': 'createRefund',
    'POST /v1/orders/:id/fulfillments': 'createFulfillment',
    'POST /v1/orders/:id/returns': 'createReturn',
    'POST /v1/returns/:id/receive': 'receiveReturn',
    'POST /v1/returns/:id/cancel': 'cancelReturn',
  },
  components: () => ({
    Order: OrderSchema,
    OrderItem: OrderItemSchema,
    OrderDiscount: DiscountApplied,
    OrderShipping: ShippingApplied,
    OrderTax: TaxApplied,
    OrderPayment: PaymentSummarySchema,
    OrderList: OrderListSchema,
    Refund: RefundSchema,
    RefundList: RefundListSchema,
    Payment: PaymentSchema,
    Fulfillment: FulfillmentSchema,
    Return: ReturnSchema,
  }),
  versionChanges: {
    '2027-01-20': [CANCEL_REASON_CHANGE, SOURCE_CHANGE, FULFILLMENT_CHANGE],
  },
  needs: ['events', 'wallet', 'orderCustomers', 'customers', 'audit'],
  services: (deps) => {
    const paymentProvider =
      deps.overrides.paymentProvider ?? createSandboxProvider(deps.config.paymentSandbox);
    const payments = createPaymentService({ ...deps, provider: paymentProvider });
    const refunds = createRefundService({ ...deps, payments });
    const fulfillments = createFulfillmentService({ ...deps, refunds });
    const orders = createOrderService({
      ...deps,
      payments,
      refunds,
      fulfillments,
      customers: deps.orderCustomers,
    });
    const orderCheckout = createOrderCheckout({ ...deps, payments, customers: deps.orderCustomers });
    return { orders, paymentProvider, payments, refunds, orderCheckout, fulfillments };
  },
  routes: [{ plugin: orderRoutes }, { plugin: refundRoutes }, { plugin: fulfillmentRoutes }],
  // Attempts left pending past their lease are settled, refunds the provider has not confirmed
  // are sent again, and pending orders past their store's unpaid_order_expiry_minutes expire; the
  // timers stop when the house closes.
  start: ({ payments, orders }, every) => {
    every(SWEEP_EVERY_MS, () => payments.settleStalePayments(), 'stale payment sweep failed');
    every(SWEEP_EVERY_MS, () => payments.returnOwedRefunds(), 'owed refund sweep failed');
    every(SWEEP_EVERY_MS, () => orders.expireUnpaid(), 'unpaid order expiry sweep failed');
  },
});
