import { useState } from 'react';
import { money } from '../../format.js';
import type { Cart } from '../../types.js';

/**
 * The rates that ship this cart to its address, cheapest first, each with what it costs this cart;
 * the chosen one (the cheapest until the shopper chooses) prices the cart.
 */
export function ShippingChoice({
  cart,
  busy,
  onChoose,
}: {
  cart: Cart;
  busy: boolean;
  onChoose: (rateId: string) => void;
}) {
  const unavailable = cart.problems.find((problem) => problem.code === 'shipping_unavailable');
  /** The rate just clicked, shown chosen while the cart is priced with it. */
  const [choosing, setChoosing] = useState<string>();
  const chosen =
    busy && choosing !== undefined ? choosing : (cart.shipping_rate_id ?? cart.shipping_rates[0]?.id);
  return (
    <section className="panel" aria-labelledby="shipping-heading">
      <h2 id="shipping-heading">Shipping method</h2>
      {cart.shipping_address === null ? (
        <p className="muted">Enter your address to see how your order can be shipped.</p>
      ) : cart.shipping_rates.length === 0 ? (
        <p className="field-error" role="alert">
          {unavailable
            ? 'We cannot ship this order to your address.'
            : 'No shipping rate serves your address.'}
        </p>
      ) : (
        <fieldset className="choices" disabled={busy}>
          <legend className="visually-hidden">Shipping method</legend>
          {cart.shipping_rates.map((rate) => (
            <label key={rate.id} className="choice">
              <input
                type="radio"
                name="shipping-rate"
                value={rate.id}
                checked={rate.id === chosen}
                onChange={() => {
                  setChoosing(rate.id);
                  onChoose(rate.id);
                }}
              />
              <span className="choice-name">{rate.name}</span>
              <span className="choice-amount">
                {rate.amount === 0 ? 'Free' : money(rate.amount, cart.currency)}
              </span>
            </label>
          ))}
          {unavailable && cart.shipping_rate_id !== null ? (
            <p className="field-error" role="alert">
              The method you chose does not ship to this address: choose another.
            </p>
          ) : null}
        </fieldset>
      )}
    </section>
  );
}
