import { randomBase62 } from '../../lib/ids.js';

/**
 * The payment-provider interface. A provider is called outside any database transaction: the
 * caller records the attempt first, calls the provider, then records the outcome.
 */

export interface ChargeInput {
  /** Our payment id; a provider should treat it as the idempotency key of the charge. */
  paymentId: string;
  amount: number;
  currency: string;
  method: string;
}

export type ChargeResult =
  { status: 'succeeded'; reference: string } | { status: 'failed'; failureCode: string; message: string };

export interface RefundInput {
  paymentId: string;
  reference: string;
  amount: number;
  currency: string;
}

export interface PaymentProvider {
  readonly name: string;
  /** Whether `method` names a payment method this provider can charge. */
  accepts(method: string): boolean;
  /** The methods to mention when a method is refused. */
  describeMethods(): string;
  charge(input: ChargeInput): Promise<ChargeResult>;
  /** Returns the money of a succeeded charge. Idempotent per payment. */
  refund(input: RefundInput): Promise<{ reference: string }>;
}

/** The sandbox's test payment methods and what it does with each (docs/products-and-orders.md). */
export const SANDBOX_METHODS: Readonly<Record<string, { failureCode: string; message: string } | null>> = {
  pm_card_visa: null,
  pm_card_mastercard: null,
  pm_card_declined: { failureCode: 'card_declined', message: 'The card was declined.' },
  pm_card_insufficient_funds: {
    failureCode: 'insufficient_funds',
    message: 'The card has insufficient funds to complete the purchase.',
  },
};

/** The built-in `sandbox` provider: no network, deterministic outcomes per test method. */
export function createSandboxProvider(): PaymentProvider {
  return {
    name: 'sandbox',
    accepts: (method) => Object.hasOwn(SANDBOX_METHODS, method),
    describeMethods: () => Object.keys(SANDBOX_METHODS).join(', '),
    async charge(input) {
      const failure = SANDBOX_METHODS[input.method];
      if (failure === undefined) {
        return { status: 'failed', failureCode: 'invalid_payment_method', message: 'Unknown test method.' };
      }
      if (failure !== null) return { status: 'failed', ...failure };
      return { status: 'succeeded', reference: `ch_sandbox_${randomBase62(20)}` };
    },
    async refund() {
      return { reference: `re_sandbox_${randomBase62(20)}` };
    },
  };
}
