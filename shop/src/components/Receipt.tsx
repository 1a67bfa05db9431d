import { day, money } from '../format.js';
import type { Order, StoreOrder } from '../types.js';

/** What an order shows a shopper, from the completion's answer or from their order list. */
export type Receipt = Pick<
  Order & StoreOrder,
  | 'id'
  | 'status'
  | 'items'
  | 'subtotal'
  | 'discount_total'
  | 'shipping_total'
  | 'tax_total'
  | 'total'
  | 'currency'
  | 'shipping_address'
  | 'created'
>;

const STATUS: Record<Receipt['status'], string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  shipped: 'Shipped',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

export function statusText(status: Receipt['status']): string {
  return STATUS[status];
}

export function ReceiptDetails({ order }: { order: Receipt }) {
  const m = (amount: number) => money(amount, order.currency);
  const address = order.shipping_address;
  return (
    <div className="receipt">
      <dl className="facts">
        <div>
          <dt>Order number</dt>
          <dd className="mono" data-testid="order-number">
            {order.id}
          </dd>
        </div>
        <div>
          <dt>Placed</dt>
          <dd>{day(order.created)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{statusText(order.status)}</dd>
        </div>
      </dl>
      <ul className="lines" aria-label="Items">
        {order.items.map((item) => (
          <li key={item.variant_id} className="line">
            <div className="line-main">
              <span className="line-name">{item.name}</span>
              {item.variant_title === 'Default' ? null : <span className="muted">{item.variant_title}</span>}
            </div>
            <span className="line-quantity">Qty {item.quantity}</span>
            <span className="line-total">{m(item.total)}</span>
          </li>
        ))}
      </ul>
      <dl className="totals" aria-label="Totals">
        <div>
          <dt>Subtotal</dt>
          <dd>{m(order.subtotal)}</dd>
        </div>
        {order.discount_total > 0 ? (
          <div>
            <dt>Discount</dt>
            <dd>−{m(order.discount_total)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Shipping</dt>
          <dd>{m(order.shipping_total)}</dd>
        </div>
        <div>
          <dt>Tax</dt>
          <dd>{m(order.tax_total)}</dd>
        </div>
        <div className="total">
          <dt>Total paid</dt>
          <dd data-figure="total">{m(order.total)}</dd>
        </div>
      </dl>
      {address ? (
        <p className="address">
          <strong>Ships to</strong>
          <br />
          {[
            address.name,
            address.line1,
            address.line2,
            [address.postal_code, address.city].filter(Boolean).join(' '),
            address.state,
            address.country,
          ]
            .filter(Boolean)
            .join(', ')}
        </p>
      ) : null}
    </div>
  );
}
