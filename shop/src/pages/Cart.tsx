import { setCartId, useCart, useCartActions, usePriceChanges } from '../api/cart.js';
import { CartLines, Totals } from '../components/CartLines.js';
import { usePageTitle } from '../components/Layout.js';
import { ErrorNotice, Loading, Notice } from '../components/States.js';
import { Link } from '../router.js';
import type { Cart as CartData } from '../types.js';

/** A cart another tab (or device) paid for: its order, and a fresh start. */
export function CompletedCart({ cart }: { cart: CartData }) {
  return (
    <Notice tone="success">
      <p>
        This cart has been paid: order <strong className="mono">{cart.order_id}</strong>.
      </p>
      <p>
        <Link to={`/orders/${cart.order_id ?? ''}`}>See the order</Link> ·{' '}
        <Link to="/" onClick={() => setCartId(null)}>
          Start a new cart
        </Link>
      </p>
    </Notice>
  );
}

export function EmptyCart() {
  return (
    <p>
      Your cart is empty. <Link to="/">Find something you like</Link>.
    </p>
  );
}

export function Cart() {
  usePageTitle('Cart');
  const cart = useCart();
  const changes = usePriceChanges(cart.data);
  const { setQuantity, remove } = useCartActions();
  const data = cart.data;
  const busy = setQuantity.isPending || remove.isPending;

  return (
    <>
      <h1>Your cart</h1>
      {cart.isLoading ? <Loading label="Loading your cart" /> : null}
      <ErrorNotice error={cart.error} onRetry={() => void cart.refetch()} />
      {data?.status === 'completed' ? <CompletedCart cart={data} /> : null}
      {cart.isSuccess && (!data || (data.status === 'open' && data.lines.length === 0)) ? (
        <EmptyCart />
      ) : null}
      {data?.status === 'open' && data.lines.length > 0 ? (
        <div className="cart-layout">
          <CartLines
            cart={data}
            changes={changes}
            actions={{
              busy,
              setQuantity: (line, quantity) => setQuantity.mutate({ lineId: line.id, quantity }),
              remove: (line) => remove.mutate(line.id),
            }}
          />
          <ErrorNotice error={setQuantity.error ?? remove.error} />
          <aside className="panel" aria-label="Summary">
            <Totals cart={data} />
            <Link to="/checkout" className="button button-primary button-block">
              Check out
            </Link>
            <Link to="/" className="button-link">
              Keep shopping
            </Link>
          </aside>
        </div>
      ) : null}
    </>
  );
}
