import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
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
  /** The payment the money goes back from. */
  paymentId: string;
  /** The provider's reference of that payment's charge. */
  reference: string;
  /**
   * The idempotency key of this refund: our refund id (`re_...`). A refund of a whole payment that
   * release v2.4 may already have sent keyed by its payment (one carried over by migration 0022, or
   * the return of a charge that landed after its order was cancelled) gives the payment id, as then.
   */
  refundId: string;
  /** What this refund returns, minor units: all of the payment or a part of it. */
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
  /**
   * Returns `amount` of a succeeded charge; a payment may have several refunds. Idempotent per
   * `refundId`: the same refund sent again returns nothing more.
   */
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

/** How the sandbox behaves in a rehearsal (the configuration's `paymentSandbox`). */
export interface SandboxOptions {
  /** Answers each charge this many milliseconds late: a slow provider. */
  delayMs?: number;
  /**
   * Appends each charge it makes to this file (a JSON line `{payment_id, amount, currency,
   * reference}`, written before it answers), as a provider keeps its own record: what a crash
   * test compares with the store's orders.
   */
  journal?: string | undefined;
}

/** The built-in `sandbox` provider: no network, deterministic outcomes per test method. */
export function createSandboxProvider(options: SandboxOptions = {}): PaymentProvider {
  const { delayMs = 0, journal } = options;
  return {
    name: 'sandbox',
    accepts: (method) => Object.hasOwn(SANDBOX_METHODS, method),
    describeMethods: () => Object.keys(SANDBOX_METHODS).join(', '),
    async charge(input) {
      if (delayMs > 0) await sleep(delayMs);
      const failure = SANDBOX_METHODS[input.method];
      if (failure === undefined) {
        return { status: 'failed', failureCode: 'invalid_payment_method', message: 'Unknown test method.' };
      }
      if (failure !== null) return { status: 'failed', ...failure };
      const reference = `ch_sandbox_${randomBase62(20)}`;
      if (journal !== undefined) {
        const { paymentId, amount, currency } = input;
        appendFileSync(
          journal,
          `${JSON.stringify({ payment_id: paymentId, amount, currency, reference })}\n`,
        );
      }
      return { status: 'succeeded', reference };
    },
    async refund() {
      return { reference: `re_sandbox_${randomBase62(20)}` };
    },
  };
}
