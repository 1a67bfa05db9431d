import { Link, useParams } from 'react-router';
import { useOrder } from '../../api/store-queries.js';
import { Breadcrumb, DetailPending } from '../../components/Detail.js';
import { PageHeader } from '../../components/Layout.js';
import { OrderStatusBadge, PaymentBadge } from '../../components/StoreBadges.js';
import { formatDateTime, formatMoney, formatNumber, humanize } from '../../format.js';
import { usePageTitle } from '../../title.js';
import type { Address, Order } from '../../types.js';
import { OrderActions } from './OrderActions.js';
import { OrderTimeline } from './OrderTimeline.js';
import { unitsLeft } from './RefundDialog.js';
import { unitsShipped } from './FulfilDialog.js';

/** Where an order was placed, as the page says it. */
const SOURCES: Record<string, string> = {
  api: 'The API',
  storefront: 'Your shop (a cart)',
  console: 'The console',
  import: 'An import',
};

/** An address on its lines, as a label would print it. */
export function AddressLines({ address }: { address: Address }) {
  const lines = [
    address.name,
    address.line1,
    address.line2,
    [address.postal_code, address.city].filter(Boolean).join(' '),
    [address.state, address.country].filter(Boolean).join(', '),
    address.phone,
  ].filter((line): line is string => Boolean(line));
  return (
    <address className="address">
      {lines.map((line, i) => (
        <span key={i}>{line}</span>
      ))}
    </address>
  );
}

function Lines({ order }: { order: Order }) {
  const money = (minor: number) => formatMoney(minor, order.currency);
  const left = unitsLeft(order);
  const shipped = unitsShipped(order);
  return (
    <section className="card" aria-labelledby="lines-title">
      <h2 id="lines-title">Lines</h2>
      <div className="table-wrap">
        <table className="table table-lines">
          <caption className="visually-hidden">What the order sold, line by line</caption>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Quantity</th>
              <th scope="col">Unit price</th>
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {order.items.map((item) => {
              const refunded = item.quantity - (left.get(item.variant_id) ?? item.quantity);
              const notes = [
                item.discount > 0 ? `−${money(item.discount)} discount` : '',
                item.tax > 0 ? `${money(item.tax)} tax` : '',
              ].filter(Boolean);
              return (
                <tr key={item.variant_id} data-variant-id={item.variant_id}>
                  <th scope="row" data-label="Product" className="break-anywhere">
                    <div>
                      <Link to={`/products/${item.product_id}`}>{item.name}</Link>
                      <div className="hint">
                        {[item.variant_title === 'Default' ? '' : item.variant_title, item.sku ?? '']
                          .filter(Boolean)
                          .join(' · ')}
                      </div>
                    </div>
                  </th>
                  <td data-label="Quantity" className="numeric">
                    <span>
                      {formatNumber(item.quantity)}
                      {refunded > 0 ? (
                        <span className="hint"> ({formatNumber(refunded)} refunded)</span>
                      ) : null}
                      {(shipped.get(item.variant_id) ?? 0) > 0 ? (
                        <span className="hint">
                          {' '}
                          ({formatNumber(shipped.get(item.variant_id) ?? 0)} shipped)
                        </span>
                      ) : null}
                    </span>
                  </td>
                  <td data-label="Unit price" className="numeric nowrap">
                    {money(item.unit_price)}
                  </td>
                  <td data-label="Total" className="numeric nowrap">
                    <span>
                      {money(item.total)}
                      {notes.length > 0 ? <span className="hint line-notes">{notes.join(' · ')}</span> : null}
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The order's figures, as the API priced it: subtotal, each discount, shipping, each tax, total, refunds. */
function Figures({ order }: { order: Order }) {
  const money = (minor: number) => formatMoney(minor, order.currency);
  const rows: { label: string; value: string; strong?: boolean; testid?: string }[] = [
    { label: 'Subtotal', value: money(order.subtotal) },
    ...order.discounts.map((discount) => ({
      label: `Discount ${discount.code ?? '(automatic)'}${discount.type === 'free_shipping' ? ', free shipping' : ''}`,
      value: `−${money(discount.amount)}`,
    })),
    ...(order.shipping
      ? [{ label: `Shipping (${order.shipping.name})`, value: money(order.shipping_total) }]
      : order.shipping_total > 0
        ? [{ label: 'Shipping', value: money(order.shipping_total) }]
        : []),
    ...order.taxes.map((tax) => ({
      label: `${tax.name} (${(tax.rate_bps / 100).toLocaleString('en')}%${tax.inclusive ? ', included' : ''})`,
      value: money(tax.amount),
    })),
    { label: 'Total', value: money(order.total), strong: true },
  ];
  if (order.refunded_amount > 0) {
    rows.push({ label: 'Refunded', value: `−${money(order.refunded_amount)}`, testid: 'refunded' });
    rows.push({ label: 'Left to refund', value: money(order.refundable_amount) });
  }
  return (
    <section className="card" aria-labelledby="figures-title">
      <h2 id="figures-title">Summary</h2>
      <dl className="figures">
        {rows.map((row) => (
          <div key={row.label} className={row.strong ? 'figures-total' : undefined} data-testid={row.testid}>
            <dt>{row.label}</dt>
            <dd className="numeric">{row.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Customer({ order }: { order: Order }) {
  return (
    <section className="card" aria-labelledby="customer-title">
      <h2 id="customer-title">Customer</h2>
      <dl className="details-grid details-one">
        <div>
          <dt>Customer</dt>
          <dd>
            <Link to={`/customers/${order.customer.id}`}>{order.customer.name ?? order.customer.email}</Link>
            {order.customer.name ? <div className="hint">{order.customer.email}</div> : null}
          </dd>
        </div>
        <div>
          <dt>Ship to</dt>
          <dd>
            {order.shipping_address ? (
              <AddressLines address={order.shipping_address} />
            ) : (
              <span className="muted">No address</span>
            )}
          </dd>
        </div>
        {order.carrier || order.tracking_number ? (
          <div>
            <dt>Tracking</dt>
            <dd>{[order.carrier, order.tracking_number].filter(Boolean).join(' · ')}</dd>
          </div>
        ) : null}
        <div>
          <dt>Placed through</dt>
          <dd>
            {SOURCES[order.source] ?? humanize(order.source)}
            {order.cart_id ? <div className="hint mono">{order.cart_id}</div> : null}
          </dd>
        </div>
      </dl>
    </section>
  );
}

function Payment({ order }: { order: Order }) {
  const money = (minor: number) => formatMoney(minor, order.currency);
  return (
    <section className="card" aria-labelledby="payment-title">
      <h2 id="payment-title">Payment and refunds</h2>
      <dl className="details-grid details-two">
        <div>
          <dt>Payment</dt>
          <dd>
            <PaymentBadge payment={order.payment} />
            {order.payment?.failure_code ? (
              <div className="hint">{humanize(order.payment.failure_code)}</div>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Method</dt>
          <dd className="mono">{order.payment?.method ?? '—'}</dd>
        </div>
      </dl>
      {order.refunds.length === 0 ? (
        <p className="muted">No refunds.</p>
      ) : (
        <ul className="refund-list" aria-label="Refunds, oldest first">
          {order.refunds.map((refund) => (
            <li key={refund.id} data-refund-id={refund.id}>
              <strong>{money(refund.amount)}</strong>
              <span className="hint">
                {' '}
                · {formatDateTime(refund.created)}
                {refund.items.length > 0
                  ? ` · ${formatNumber(refund.items.reduce((n, i) => n + i.quantity, 0))} units`
                  : ''}
                {refund.shipping > 0 ? ` · shipping ${money(refund.shipping)}` : ''}
                {refund.restocked ? ' · back in stock' : ''}
              </span>
              {refund.reason ? <div className="hint">“{refund.reason}”</div> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const FULFILLMENT_STATUSES: Record<Order['fulfillment_status'], string> = {
  unfulfilled: 'Nothing shipped yet',
  partial: 'Partly shipped',
  fulfilled: 'Everything shipped',
};

/** The order's parcels and returns, oldest first. */
function Fulfilments({ order }: { order: Order }) {
  const names = new Map(order.items.map((item) => [item.variant_id, item.name]));
  const units = (items: readonly { variant_id: string; quantity: number }[]) =>
    items
      .map((item) => `${formatNumber(item.quantity)} × ${names.get(item.variant_id) ?? item.variant_id}`)
      .join(', ');
  return (
    <section className="card" aria-labelledby="fulfilments-title">
      <h2 id="fulfilments-title">Fulfilments and returns</h2>
      <p data-testid="fulfillment-status">{FULFILLMENT_STATUSES[order.fulfillment_status]}</p>
      {order.fulfillments.length === 0 ? (
        <p className="muted">No parcels recorded.</p>
      ) : (
        <ul className="refund-list" aria-label="Fulfilments, oldest first">
          {order.fulfillments.map((fulfillment) => (
            <li key={fulfillment.id} data-fulfillment-id={fulfillment.id}>
              <strong>{units(fulfillment.items)}</strong>
              <span className="hint">
                {' '}
                · {formatDateTime(fulfillment.created)}
                {fulfillment.tracking.carrier ? ` · ${fulfillment.tracking.carrier}` : ''}
                {fulfillment.tracking.number ? ` · ${fulfillment.tracking.number}` : ''}
              </span>
              {fulfillment.tracking.url ? (
                <div className="hint break-anywhere">
                  <a href={fulfillment.tracking.url} target="_blank" rel="noreferrer noopener">
                    Track the parcel
                  </a>
                </div>
              ) : null}
              <div className="hint mono">{fulfillment.location_id}</div>
            </li>
          ))}
        </ul>
      )}
      {order.returns.length > 0 ? (
        <ul className="refund-list" aria-label="Returns, oldest first">
          {order.returns.map((ret) => (
            <li key={ret.id} data-return-id={ret.id}>
              <strong>Return of {units(ret.items)}</strong>
              <span className="hint">
                {' '}
                · {humanize(ret.status)} · {formatDateTime(ret.created)}
                {ret.restocked ? ' · back in stock' : ''}
                {ret.refund_id ? ' · refunded' : ''}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export function OrderPage() {
  const { id = '' } = useParams();
  const order = useOrder(id);
  usePageTitle(order.data ? `Order ${order.data.id}` : 'Order');
  if (order.data === undefined) {
    return <DetailPending resource={order} noun="order" list="/orders" listLabel="orders" />;
  }
  const data = order.data;
  return (
    <>
      <Breadcrumb to="/orders" label="Orders" here="Order" />
      <PageHeader
        title={`${formatMoney(data.total, data.currency)} from ${data.customer.name ?? data.customer.email}`}
        description={
          <span className="header-facts">
            <OrderStatusBadge status={data.status} />
            <span className="mono">{data.id}</span>
            <span>Placed {formatDateTime(data.created)}</span>
            {data.cancel_reason === 'expired' ? <span>Cancelled: unpaid past the store’s expiry</span> : null}
          </span>
        }
        actions={<OrderActions order={data} />}
      />
      <div className="split split-wide">
        <div className="stack">
          <Lines order={data} />
          <Fulfilments order={data} />
          <OrderTimeline order={data} />
        </div>
        <div className="stack">
          <Figures order={data} />
          <Payment order={data} />
          <Customer order={data} />
        </div>
      </div>
    </>
  );
}
