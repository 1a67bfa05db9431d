import { useId, useState } from 'react';
import { formErrors } from '../../api/errors.js';
import { useRefund } from '../../api/store-mutations.js';
import { FormDialog } from '../../components/Dialog.js';
import { Field } from '../../components/Form.js';
import { useToast } from '../../components/Toast.js';
import { formatMoney, formatNumber } from '../../format.js';
import { moneyProblem, parseCount, parseMoney } from '../../money.js';
import type { JsonBody, Order } from '../../types.js';

type Kind = 'all' | 'amount' | 'units';

/** The units of each line not refunded yet, by variant. */
export function unitsLeft(order: Order): Map<string, number> {
  const left = new Map(order.items.map((item) => [item.variant_id, item.quantity]));
  for (const refund of order.refunds) {
    for (const item of refund.items)
      left.set(item.variant_id, (left.get(item.variant_id) ?? 0) - item.quantity);
  }
  return left;
}

const LABELS = { amount: 'Amount', reason: 'Reason', shipping: 'Shipping', restock: 'Restock' };

/**
 * Refunds an order (`POST /v1/orders/{id}/refunds`): all that is left, an amount, or units of its
 * lines and the shipping, with or without putting the units back in stock, and a reason. What the
 * buyer gets back is said before it is sent; it comes out of the store's wallet and cannot be undone.
 */
export function RefundDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const id = useId();
  const refund = useRefund();
  const toast = useToast();
  const [kind, setKind] = useState<Kind>('all');
  const [amount, setAmount] = useState('');
  const [units, setUnits] = useState<Record<string, string>>({});
  const [shipping, setShipping] = useState(false);
  const [restock, setRestock] = useState(false);
  const [reason, setReason] = useState('');
  const [unsent, setUnsent] = useState<string>();
  const left = unitsLeft(order);
  const shippingLeft = order.shipping_total > 0 && order.refunds.every((r) => r.shipping === 0);
  const money = (minor: number) => formatMoney(minor, order.currency);
  const { fields, form } = formErrors(unsent ?? refund.error, LABELS);

  /** The request, or why it cannot be sent. */
  function body(): JsonBody<'createRefund'> | string {
    const note = reason.trim() ? { reason: reason.trim() } : {};
    if (kind === 'all') return { ...(restock ? { restock: true } : {}), ...note };
    if (kind === 'amount') {
      const minor = parseMoney(amount, order.currency);
      if (minor === null || minor === undefined || minor < 1)
        return `Amount ${moneyProblem(order.currency)}.`;
      if (minor > order.refundable_amount)
        return `Amount can be at most ${money(order.refundable_amount)}, what is left.`;
      return { amount: minor, ...note };
    }
    const items: { variant_id: string; quantity: number }[] = [];
    for (const item of order.items) {
      const typed = units[item.variant_id] ?? '';
      const quantity = parseCount(typed);
      if (quantity === undefined) return `Units of ${item.name} must be a whole number.`;
      if (quantity !== null && quantity > (left.get(item.variant_id) ?? 0)) {
        return `At most ${formatNumber(left.get(item.variant_id) ?? 0)} units of ${item.name} are left to refund.`;
      }
      if (quantity) items.push({ variant_id: item.variant_id, quantity });
    }
    if (items.length === 0 && !shipping) return 'Choose units to refund, or the shipping.';
    return {
      ...(items.length > 0 ? { items } : {}),
      ...(shipping ? { shipping: true } : {}),
      ...(restock && items.length > 0 ? { restock: true } : {}),
      ...note,
    };
  }

  function submit() {
    const request = body();
    if (typeof request === 'string') {
      setUnsent(request);
      return;
    }
    setUnsent(undefined);
    refund.mutate(
      { id: order.id, body: request },
      {
        onSuccess: ({ refund: made }) => {
          toast(`Refunded ${money(made.amount)}${made.restocked ? ', units back in stock' : ''}.`);
          onClose();
        },
      },
    );
  }

  const chosen = kind === 'amount' ? parseMoney(amount, order.currency) : undefined;
  const submitLabel =
    kind === 'all'
      ? `Refund ${money(order.refundable_amount)}`
      : kind === 'amount' && typeof chosen === 'number' && chosen > 0
        ? `Refund ${money(chosen)}`
        : 'Refund';

  return (
    <FormDialog
      title="Refund order"
      size="wide"
      onClose={onClose}
      onSubmit={submit}
      submitLabel={submitLabel}
      busyLabel="Refunding…"
      tone="danger"
      busy={refund.isPending}
      error={form}
    >
      <p className="dialog-message">
        {money(order.refundable_amount)} of {money(order.total)} is left to refund. The buyer gets the money
        back on their {order.payment?.method ?? 'payment method'}, it comes out of your wallet, and it cannot
        be undone.
      </p>
      <fieldset className="fieldset">
        <legend>What to refund</legend>
        <label className="check">
          <input type="radio" name={`${id}-kind`} checked={kind === 'all'} onChange={() => setKind('all')} />
          <span>All that is left ({money(order.refundable_amount)})</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={kind === 'amount'}
            onChange={() => setKind('amount')}
          />
          <span>An amount, covering no line (goodwill)</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={kind === 'units'}
            onChange={() => setKind('units')}
          />
          <span>Units of its lines, or the shipping</span>
        </label>
      </fieldset>
      {kind === 'amount' ? (
        <Field
          label={`Amount (${order.currency})`}
          inputMode="decimal"
          autoFocus
          value={amount}
          error={fields.amount}
          onChange={(e) => setAmount(e.target.value)}
        />
      ) : null}
      {kind === 'units' ? (
        <div className="refund-units">
          {order.items.map((item) => (
            <Field
              key={item.variant_id}
              label={`${item.name}${item.variant_title === 'Default' ? '' : ` (${item.variant_title})`}`}
              hint={`${formatNumber(left.get(item.variant_id) ?? 0)} of ${formatNumber(item.quantity)} left to refund`}
              inputMode="numeric"
              placeholder="0"
              disabled={(left.get(item.variant_id) ?? 0) === 0}
              value={units[item.variant_id] ?? ''}
              onChange={(e) => setUnits({ ...units, [item.variant_id]: e.target.value })}
            />
          ))}
          {shippingLeft ? (
            <label className="check">
              <input type="checkbox" checked={shipping} onChange={(e) => setShipping(e.target.checked)} />
              <span>The shipping ({money(order.shipping_total)} before discounts and tax)</span>
            </label>
          ) : null}
        </div>
      ) : null}
      {kind !== 'amount' ? (
        <label className="check check-strong">
          <input type="checkbox" checked={restock} onChange={(e) => setRestock(e.target.checked)} />
          <span>Put the refunded units back in stock</span>
        </label>
      ) : null}
      <Field
        label="Reason"
        hint="Optional: your note, kept with the refund."
        maxLength={500}
        value={reason}
        error={fields.reason}
        onChange={(e) => setReason(e.target.value)}
      />
    </FormDialog>
  );
}
