import { type FormEvent, useState } from 'react';
import { money } from '../../format.js';
import type { Cart } from '../../types.js';

/**
 * The sandbox's test cards (the store's payment provider in sandbox mode): a shopper pays with one
 * of these, and nothing real is charged.
 */
export const TEST_CARDS: { method: string; label: string; outcome: string }[] = [
  { method: 'pm_card_visa', label: 'Visa', outcome: 'pays' },
  { method: 'pm_card_mastercard', label: 'Mastercard', outcome: 'pays' },
  { method: 'pm_card_declined', label: 'Declined card', outcome: 'is declined (card_declined)' },
  {
    method: 'pm_card_insufficient_funds',
    label: 'Card without funds',
    outcome: 'is declined (insufficient_funds)',
  },
];

/** The card choice and the Pay button, which pays exactly the total shown on it. */
export function Payment({
  cart,
  blockers,
  busy,
  onPay,
}: {
  cart: Cart;
  /** Why the cart cannot be paid yet; the button waits for none. */
  blockers: string[];
  busy: boolean;
  onPay: (paymentMethod: string) => void;
}) {
  const [method, setMethod] = useState(TEST_CARDS[0]?.method ?? 'pm_card_visa');

  function submit(event: FormEvent) {
    event.preventDefault();
    if (blockers.length === 0 && !busy) onPay(method);
  }

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="payment-heading">
      <h2 id="payment-heading">Payment</h2>
      <fieldset className="choices">
        <legend>Test card (sandbox: nothing is charged)</legend>
        {TEST_CARDS.map((card) => (
          <label key={card.method} className="choice">
            <input
              type="radio"
              name="payment-method"
              value={card.method}
              checked={method === card.method}
              onChange={() => setMethod(card.method)}
            />
            <span className="choice-name">
              {card.label}
              <span className="choice-detail">
                <code>{card.method}</code> {card.outcome}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {blockers.length > 0 ? (
        <ul className="blockers" id="pay-blockers">
          {blockers.map((blocker) => (
            <li key={blocker}>{blocker}</li>
          ))}
        </ul>
      ) : null}
      <button
        type="submit"
        className="button button-primary button-block"
        disabled={busy || blockers.length > 0}
        aria-describedby={blockers.length > 0 ? 'pay-blockers' : undefined}
      >
        {busy ? 'Paying…' : `Pay ${money(cart.total, cart.currency)}`}
      </button>
    </form>
  );
}
