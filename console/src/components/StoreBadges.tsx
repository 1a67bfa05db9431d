import { formatNumber, humanize } from '../format.js';
import type { Order, Product } from '../types.js';

const ORDER_TONES: Record<Order['status'], string> = {
  pending: 'neutral',
  paid: 'info',
  shipped: 'info',
  delivered: 'success',
  cancelled: 'neutral',
  refunded: 'warning',
};

const PAYMENT_TONES: Record<string, string> = {
  pending: 'neutral',
  succeeded: 'success',
  failed: 'danger',
  refunded: 'warning',
};

const PRODUCT_TONES: Record<Product['status'], string> = {
  active: 'success',
  draft: 'neutral',
  archived: 'neutral',
};

function Badge({ tone, label }: { tone: string; label: string }) {
  return (
    <span className={`badge badge-${tone}`}>
      <span className="badge-dot" aria-hidden="true" />
      {label}
    </span>
  );
}

export function OrderStatusBadge({ status }: { status: Order['status'] }) {
  return <Badge tone={ORDER_TONES[status] ?? 'neutral'} label={humanize(status)} />;
}

/** The payment of an order: its status, or "No payment" before one was tried. */
export function PaymentBadge({ payment }: { payment: Order['payment'] }) {
  if (!payment) return <span className="muted">No payment</span>;
  return <Badge tone={PAYMENT_TONES[payment.status] ?? 'neutral'} label={humanize(payment.status)} />;
}

export function ProductStatusBadge({ status }: { status: Product['status'] }) {
  return <Badge tone={PRODUCT_TONES[status] ?? 'neutral'} label={humanize(status)} />;
}

/** Units in stock at a glance: "Sold out", "3 left" (under 5) or the count. */
export function StockLabel({ stock, variants }: { stock: number; variants?: number }) {
  const across = variants !== undefined && variants > 1 ? ` across ${formatNumber(variants)} variants` : '';
  if (stock === 0) return <Badge tone="danger" label="Sold out" />;
  if (stock < 5) return <Badge tone="warning" label={`${formatNumber(stock)} left${across}`} />;
  return (
    <span className="stock">
      {formatNumber(stock)} in stock{across ? <span className="hint">{across}</span> : null}
    </span>
  );
}
