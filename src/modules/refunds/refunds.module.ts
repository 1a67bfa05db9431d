import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { refundRoutes } from './refunds.routes.js';
import { RefundListSchema, RefundSchema } from './refunds.schemas.js';
import { createRefundService, type RefundService } from './refunds.service.js';

/** Refunds of orders, a part or all that is left: one transaction for money, stock and figures. */

const EVENTS = ['refund.created'] as const;

declare module '../../kernel/vocabulary.js' {
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Refunds of orders: a part, or all that is left (`POST /orders/{id}/refunds`). */
    refunds: RefundService;
  }
}

export default defineModule({
  name: 'refunds',
  position: 74,
  events: [{ types: EVENTS, object: RefundSchema }],
  operationIds: {
    'GET /v1/orders/:id/refunds': 'listOrderRefunds',
    'POST /v1/orders/:id/refunds': 'createRefund',
  },
  components: () => ({ Refund: RefundSchema, RefundList: RefundListSchema }),
  needs: ['events', 'payments'],
  services: (deps) => ({ refunds: createRefundService(deps) }),
  routes: [{ plugin: refundRoutes }],
});
