import type { PriceChange } from '../api/cart.js';
import { money } from '../format.js';
import { Link } from '../router.js';
import type { Cart, CartLine, CartProblem } from '../types.js';

/**
 * A cart's lines, each with what stops it being bought where it is (sold out, no longer sold) and
 * a price the merchant changed since the shopper saw it. Editable in the cart (quantity, remove),
 * read-only in the checkout's summary.
 */

/** What a line's problem means to the shopper. */
function lineProblem(problem: CartProblem, line: CartLine): string {
  if (problem.code === 'insufficient_stock') {
    return line.quantity === 1
      ? 'Sold out: remove it to pay for the rest.'
      : 'Not enough left for this quantity: lower it, or remove the line to pay for the rest.';
  }
  if (problem.code === 'variant_unavailable') return 'No longer sold: remove it to pay for the rest.';
  return problem.message;
}

export interface LineActions {
  setQuantity: (line: CartLine, quantity: number) => void;
  remove: (line: CartLine) => void;
  busy: boolean;
}

function Quantity({ line, actions }: { line: CartLine; actions?: LineActions }) {
  if (!actions) return <span className="line-quantity">Qty {line.quantity}</span>;
  const label = `${line.name}${line.variant_title === 'Default' ? '' : `, ${line.variant_title}`}`;
  return (
    <div className="line-quantity stepper" role="group" aria-label={`Quantity of ${label}`}>
      <button
        type="button"
        className="button button-small"
        aria-label={`One fewer ${label}`}
        disabled={actions.busy || line.quantity <= 1}
        onClick={() => actions.setQuantity(line, line.quantity - 1)}
      >
        −
      </button>
      <output aria-live="polite">{line.quantity}</output>
      <button
        type="button"
        className="button button-small"
        aria-label={`One more ${label}`}
        disabled={actions.busy || line.quantity >= 999}
        onClick={() => actions.setQuantity(line, line.quantity + 1)}
      >
        +
      </button>
      <button
        type="button"
        className="button button-small button-ghost"
        aria-label={`Remove ${label}`}
        disabled={actions.busy}
        onClick={() => actions.remove(line)}
      >
        Remove
      </button>
    </div>
  );
}

export function CartLines({
  cart,
  changes,
  actions,
}: {
  cart: Cart;
  changes: PriceChange[];
  actions?: LineActions;
}) {
  return (
    <ul className="lines" aria-label="Items in your cart">
      {cart.lines.map((line) => {
        const problems = cart.problems.filter((problem) => problem.line_id === line.id);
        const change = changes.find((c) => c.line.id === line.id);
        return (
          <li
            key={line.id}
            className={problems.length > 0 ? 'line line-problem' : 'line'}
            data-line-id={line.id}
          >
            <div className="line-main">
              <Link to={`/products/${encodeURIComponent(line.product_id)}`} className="line-name">
                {line.name}
              </Link>
              {line.variant_title === 'Default' ? null : <span className="muted">{line.variant_title}</span>}
              <span className="line-unit">
                {money(line.unit_price, cart.currency)} each
                {change ? (
                  <strong className="price-change">
                    {' '}
                    Price changed: was {money(change.was, cart.currency)}
                  </strong>
                ) : null}
              </span>
            </div>
            <Quantity line={line} actions={actions} />
            <span className="line-total">{money(line.subtotal, cart.currency)}</span>
            {problems.map((problem) => (
              <p key={problem.code} className="line-alert" role="alert">
                {lineProblem(problem, line)}
              </p>
            ))}
          </li>
        );
      })}
    </ul>
  );
}

/** The cart's figures, as the API priced them. */
export function Totals({ cart }: { cart: Cart }) {
  const m = (amount: number) => money(amount, cart.currency);
  return (
    <dl className="totals" aria-label="Totals">
      <div>
        <dt>Subtotal</dt>
        <dd data-figure="subtotal">{m(cart.subtotal)}</dd>
      </div>
      {cart.discount_total > 0 ? (
        <div>
          <dt>Discount</dt>
          <dd data-figure="discount">−{m(cart.discount_total)}</dd>
        </div>
      ) : null}
      <div>
        <dt>Shipping</dt>
        <dd data-figure="shipping">
          {cart.shipping_address === null ? (
            <span className="muted">After your address</span>
          ) : (
            m(cart.shipping_total)
          )}
        </dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd data-figure="tax">
          {cart.shipping_address === null && cart.tax_total === 0 ? (
            <span className="muted">After your address</span>
          ) : (
            m(cart.tax_total)
          )}
        </dd>
      </div>
      <div className="total">
        <dt>Total</dt>
        <dd data-figure="total">{m(cart.total)}</dd>
      </div>
    </dl>
  );
}
