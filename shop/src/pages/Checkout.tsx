import { useState } from 'react';
import { acceptPrices, type PriceChange, useCart, useCartActions, usePriceChanges } from '../api/cart.js';
import { isProblem } from '../api/errors.js';
import { useCustomer } from '../api/queries.js';
import { CartLines, Totals } from '../components/CartLines.js';
import { AddressForm } from '../components/checkout/AddressForm.js';
import { DiscountForm } from '../components/checkout/DiscountForm.js';
import { Payment } from '../components/checkout/Payment.js';
import { ShippingChoice } from '../components/checkout/ShippingChoice.js';
import { usePageTitle } from '../components/Layout.js';
import { ErrorNotice, Loading } from '../components/States.js';
import { money } from '../format.js';
import type { Cart } from '../types.js';
import { CompletedCart, EmptyCart } from './Cart.js';

/**
 * The checkout: the shopper's email and address, a shipping method, discount codes, and a test
 * card. Each change is sent to the cart and the API answers it priced, so every figure shown is
 * the API's. Paying sends the total shown (`expected_total`): a total that changed meanwhile is
 * refused (`409 cart_changed`) and shown, to be accepted before paying again.
 */

const LINE_PROBLEMS = new Set(['insufficient_stock', 'variant_unavailable']);

/** Why the cart cannot be paid yet, in the order the page asks for things. */
function blockersOf(cart: Cart, changes: PriceChange[], totalChanged: boolean): string[] {
  const has = (code: string) => cart.problems.some((problem) => problem.code === code);
  const out: string[] = [];
  if (cart.problems.some((problem) => LINE_PROBLEMS.has(problem.code))) {
    out.push('Some items cannot be bought as they are: see the marked lines.');
  }
  if (has('email_required')) out.push('Enter your email.');
  if (cart.shipping_address === null) out.push('Enter your shipping address.');
  else if (has('shipping_unavailable')) out.push('Choose a shipping method that ships to your address.');
  if (has('discount_invalid')) out.push('Remove the discount code that does not apply.');
  if (has('total_too_large')) out.push('The order is too large to pay at once: remove some items.');
  if (changes.length > 0 || totalChanged) out.push('Accept the new prices.');
  return out;
}

function PriceChanges({
  cart,
  changes,
  totalChanged,
  onAccept,
}: {
  cart: Cart;
  changes: PriceChange[];
  totalChanged: boolean;
  onAccept: () => void;
}) {
  if (changes.length === 0 && !totalChanged) return null;
  return (
    <div className="notice notice-warning" role="alert">
      <p>
        <strong>{changes.length > 0 ? 'Prices changed' : 'Your total changed'}</strong> since you saw them.
      </p>
      <ul>
        {changes.map(({ line, was }) => (
          <li key={line.id}>
            {line.name}
            {line.variant_title === 'Default' ? '' : ` (${line.variant_title})`}: was{' '}
            {money(was, cart.currency)}, now {money(line.unit_price, cart.currency)}
          </li>
        ))}
      </ul>
      <p>The total is now {money(cart.total, cart.currency)}.</p>
      <button type="button" className="button" onClick={onAccept}>
        Accept the new prices
      </button>
    </div>
  );
}

type Section = 'address' | 'shipping' | 'discount';

function CheckoutFor({ cart }: { cart: Cart }) {
  const customer = useCustomer().data;
  const changes = usePriceChanges(cart);
  const { update, complete } = useCartActions();
  const [section, setSection] = useState<Section>();
  const [totalChanged, setTotalChanged] = useState(false);
  const errorOf = (of: Section) => (section === of ? update.error : null);
  const change = (of: Section, body: Parameters<typeof update.mutate>[0], done?: () => void) => {
    setSection(of);
    update.mutate(body, { onSuccess: () => done?.() });
  };

  function pay(paymentMethod: string) {
    complete.mutate(
      { cart, paymentMethod },
      { onError: (error) => setTotalChanged(isProblem(error, 'cart_changed')) },
    );
  }

  return (
    <div className="checkout">
      <div className="checkout-steps">
        <AddressForm
          cart={cart}
          customer={customer}
          busy={update.isPending}
          error={errorOf('address')}
          onSave={(body) => change('address', body)}
        />
        <ShippingChoice
          cart={cart}
          busy={update.isPending}
          onChoose={(rateId) => change('shipping', { shipping_rate_id: rateId })}
        />
        <ErrorNotice error={errorOf('shipping')} />
        <DiscountForm
          cart={cart}
          busy={update.isPending}
          error={errorOf('discount')}
          onCodes={(codes, done) => change('discount', { discount_codes: codes }, done)}
        />
        <PriceChanges
          cart={cart}
          changes={changes}
          totalChanged={totalChanged}
          onAccept={() => {
            acceptPrices(cart);
            setTotalChanged(false);
          }}
        />
        <Payment
          cart={cart}
          blockers={blockersOf(cart, changes, totalChanged)}
          busy={complete.isPending || update.isPending}
          onPay={pay}
        />
        <ErrorNotice error={complete.error} />
      </div>
      <aside className="panel summary" aria-labelledby="summary-heading">
        <h2 id="summary-heading">Order summary</h2>
        <CartLines cart={cart} changes={changes} />
        <Totals cart={cart} />
      </aside>
    </div>
  );
}

export function Checkout() {
  usePageTitle('Checkout');
  const cart = useCart();
  const data = cart.data;
  return (
    <>
      <h1>Checkout</h1>
      {cart.isLoading ? <Loading label="Loading your cart" /> : null}
      <ErrorNotice error={cart.error} onRetry={() => void cart.refetch()} />
      {data?.status === 'completed' ? <CompletedCart cart={data} /> : null}
      {cart.isSuccess && (!data || (data.status === 'open' && data.lines.length === 0)) ? (
        <EmptyCart />
      ) : null}
      {data?.status === 'open' && data.lines.length > 0 ? <CheckoutFor key={data.id} cart={data} /> : null}
    </>
  );
}
