import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { createSandboxProvider, type PaymentProvider } from './payments.provider.js';
import { PaymentSchema } from './payments.schemas.js';
import { createPaymentService, type PaymentService } from './payments.service.js';

/** Charging, settling and refunding orders' payments through the provider, and their sweeps. */

const EVENTS = ['payment.received', 'payment.failed'] as const;
const SWEEP_EVERY_MS = 60_000;

declare module '../../kernel/vocabulary.js' {
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    paymentProvider: PaymentProvider;
    /** Charges, settles and refunds orders' payments; owns the stale payment and owed refund sweeps. */
    payments: PaymentService;
  }
  interface Overrides {
    /** The payment provider; the built-in `sandbox` by default. */
    paymentProvider?: PaymentProvider;
  }
}

export default defineModule({
  name: 'payments',
  position: 72,
  events: [{ types: EVENTS, object: PaymentSchema }],
  components: () => ({ Payment: PaymentSchema }),
  needs: ['events', 'wallet'],
  services: (deps) => {
    const paymentProvider = deps.overrides.paymentProvider ?? createSandboxProvider();
    return { paymentProvider, payments: createPaymentService({ ...deps, provider: paymentProvider }) };
  },
  // Attempts left pending past their lease are settled, and refunds the provider has not
  // confirmed are sent again; the timers stop when the house closes.
  start: ({ payments }, every) => {
    every(SWEEP_EVERY_MS, () => payments.settleStalePayments(), 'stale payment sweep failed');
    every(SWEEP_EVERY_MS, () => payments.returnOwedRefunds(), 'owed refund sweep failed');
  },
});
