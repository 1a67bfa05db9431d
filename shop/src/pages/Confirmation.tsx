import { lastOrder } from '../api/cart.js';
import { useOrders } from '../api/queries.js';
import { useCustomerToken } from '../api/session.js';
import { usePageTitle } from '../components/Layout.js';
import { ReceiptDetails, type Receipt } from '../components/Receipt.js';
import { ErrorNotice, Loading } from '../components/States.js';
import { Link } from '../router.js';

/**
 * An order's confirmation: the one this browser just paid for (kept from the completion's answer),
 * or one of the signed-in shopper's orders. Another order's number is all a page without an
 * account can show (the storefront shows orders only to their shopper).
 */
export function Confirmation({ id }: { id: string }) {
  usePageTitle('Order confirmed');
  const signedIn = useCustomerToken() !== null;
  const orders = useOrders();
  const kept = lastOrder();
  const order: Receipt | undefined = kept?.id === id ? kept : orders.data?.find((o) => o.id === id);

  return (
    <>
      <h1>Thank you for your order</h1>
      {order ? (
        <>
          <p className="lead">
            Your order number is <strong className="mono">{order.id}</strong>.
            {kept?.id === id ? ` Ordered as ${kept.customer.email}.` : ''}
          </p>
          <ReceiptDetails order={order} />
        </>
      ) : signedIn && orders.isPending ? (
        <Loading label="Loading your order" />
      ) : (
        <>
          <p className="lead">
            Your order number is <strong className="mono">{id}</strong>.
          </p>
          <ErrorNotice error={orders.error} onRetry={() => void orders.refetch()} />
          {signedIn ? null : (
            <p>
              <Link to="/account">Sign in</Link> to see your orders.
            </p>
          )}
        </>
      )}
      <p>
        <Link to="/" className="button">
          Continue shopping
        </Link>
      </p>
    </>
  );
}
