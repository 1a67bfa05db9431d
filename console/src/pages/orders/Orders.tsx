import { Link } from 'react-router';
import {
  type OrderFilters,
  type OrderFulfillmentStatus,
  type OrderPaymentStatus,
  type OrderStatus,
  STORE_PAGE,
  useOrderList,
} from '../../api/store-queries.js';
import { SelectFilter, TextFilter, useAddressFilters } from '../../components/Filters.js';
import { PageHeader } from '../../components/Layout.js';
import { Pager, useCursorPaging } from '../../components/Pager.js';
import { Empty, ErrorState, Loading } from '../../components/States.js';
import { OrderStatusBadge, PaymentBadge } from '../../components/StoreBadges.js';
import { formatDateTime, formatMoney, plural, timeAgo } from '../../format.js';
import { useNow } from '../../timing.js';
import { usePageTitle } from '../../title.js';
import type { Order } from '../../types.js';

const FILTERS = ['status', 'payment', 'fulfillment', 'email'] as const;

/** The statuses, in lifecycle order, as the filter offers them ("paid": paid, not shipped yet). */
export const ORDER_STATUSES: { value: OrderStatus; label: string }[] = [
  { value: 'pending', label: 'Pending (unpaid)' },
  { value: 'paid', label: 'Paid, to ship' },
  { value: 'shipped', label: 'Shipped' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'cancelled', label: 'Cancelled' },
  { value: 'refunded', label: 'Refunded' },
];

/** What the order list's payment filter offers: what was paid and refunded of an order. */
export const PAYMENT_STATUSES: { value: OrderPaymentStatus; label: string }[] = [
  { value: 'unpaid', label: 'Unpaid' },
  { value: 'paid', label: 'Paid' },
  { value: 'partially_refunded', label: 'Partly refunded' },
  { value: 'refunded', label: 'Refunded' },
];

/** What the order list's fulfilment filter offers. */
export const FULFILLMENT_STATUSES: { value: OrderFulfillmentStatus; label: string }[] = [
  { value: 'unfulfilled', label: 'Unfulfilled' },
  { value: 'partial', label: 'Partly fulfilled' },
  { value: 'fulfilled', label: 'Fulfilled' },
];

/** `value` when it is one of `options` (a hand-edited address may hold anything), else undefined. */
function known<T extends string>(options: readonly { value: T }[], value: string): T | undefined {
  return options.find((option) => option.value === value)?.value;
}

/** The customer an order is for: its name with the email under it, or the email. */
export function OrderCustomer({ order }: { order: Order }) {
  return order.customer.name ? (
    <div>
      {order.customer.name}
      <div className="hint">{order.customer.email}</div>
    </div>
  ) : (
    <span>{order.customer.email}</span>
  );
}

export function OrderTable({
  orders,
  caption,
  withCustomer = true,
}: {
  orders: Order[];
  caption: string;
  /** False where the orders are one customer's. */
  withCustomer?: boolean;
}) {
  const now = useNow();
  return (
    <div className="table-wrap">
      <table className="table table-store-orders">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            {withCustomer ? <th scope="col">Customer</th> : null}
            <th scope="col">Status</th>
            <th scope="col">Payment</th>
            <th scope="col">Total</th>
            <th scope="col">Placed</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.id} data-order-id={order.id}>
              <th scope="row" data-label="Order">
                <Link to={`/orders/${order.id}`} className="mono">
                  {order.id}
                </Link>
              </th>
              {withCustomer ? (
                <td data-label="Customer" className="break-anywhere">
                  <OrderCustomer order={order} />
                </td>
              ) : null}
              <td data-label="Status">
                <OrderStatusBadge status={order.status} />
              </td>
              <td data-label="Payment">
                <PaymentBadge payment={order.payment} />
              </td>
              <td data-label="Total" className="numeric nowrap">
                {formatMoney(order.total, order.currency)}
                {order.refunded_amount > 0 ? (
                  <div className="hint">{formatMoney(order.refunded_amount, order.currency)} refunded</div>
                ) : null}
              </td>
              <td data-label="Placed" className="nowrap">
                <time dateTime={order.created} title={formatDateTime(order.created)}>
                  {timeAgo(order.created, now)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Orders() {
  usePageTitle('Orders');
  const [values, update] = useAddressFilters(FILTERS);
  const status = known(ORDER_STATUSES, values.status);
  const payment = known(PAYMENT_STATUSES, values.payment);
  const fulfillment = known(FULFILLMENT_STATUSES, values.fulfillment);
  const filters: OrderFilters = {
    ...(status ? { status } : {}),
    ...(payment ? { payment_status: payment } : {}),
    ...(fulfillment ? { fulfillment_status: fulfillment } : {}),
    ...(values.email ? { customer_email: values.email } : {}),
  };
  const filtered = Object.keys(filters).length > 0;
  const paging = useCursorPaging(JSON.stringify(filters));
  const list = useOrderList(filters, paging.cursor);

  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="Orders could not be loaded" />
      ) : (
        <Loading label="Loading orders" />
      );
  } else if (list.data.data.length === 0) {
    body = filtered ? (
      <Empty
        title="No orders match"
        action={
          <button
            type="button"
            className="button"
            onClick={() => update({ status: '', payment: '', fulfillment: '', email: '' })}
          >
            Clear filters
          </button>
        }
      >
        {values.email ? 'The email must match the order’s whole address (in any case). ' : ''}Change the
        filters to see more.
      </Empty>
    ) : (
      <Empty title="No orders yet">
        Orders come from your shop (a publishable key on the <Link to="/keys">API keys</Link> page) and from{' '}
        <code>POST /v1/orders</code>. Each shows here as it is placed; open one to take payment, ship or
        refund it.
      </Empty>
    );
  } else {
    body = (
      <>
        <OrderTable orders={list.data.data} caption="Orders, newest first" />
        <Pager
          page={paging.page}
          limit={STORE_PAGE}
          shown={list.data.data.length}
          total={list.data.total}
          noun="orders"
          nextCursor={list.data.has_more ? list.data.next_cursor : null}
          onNext={paging.next}
          onPrevious={paging.previous}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="Orders"
        description="Every order, newest first: take payment, ship, cancel or refund each on its page."
      />
      <section className="card" aria-labelledby="orders-title">
        <div className="card-header">
          <h2 id="orders-title">All orders</h2>
          <span className="hint">{list.data ? plural(list.data.total, 'order') : null}</span>
        </div>
        <div className="filters" role="search" aria-label="Filter orders">
          <SelectFilter label="Status" value={status ?? ''} onChange={(status) => update({ status })}>
            <option value="">All statuses</option>
            {ORDER_STATUSES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectFilter>
          <SelectFilter label="Payment" value={payment ?? ''} onChange={(payment) => update({ payment })}>
            <option value="">Any payment</option>
            {PAYMENT_STATUSES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectFilter>
          <SelectFilter
            label="Fulfilment"
            value={fulfillment ?? ''}
            onChange={(fulfillment) => update({ fulfillment })}
          >
            <option value="">Any fulfilment</option>
            {FULFILLMENT_STATUSES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectFilter>
          <TextFilter
            label="Customer email"
            type="email"
            grow
            placeholder="ada@example.com"
            value={values.email}
            onSettled={(email) => update({ email })}
          />
        </div>
        {body}
      </section>
    </>
  );
}
