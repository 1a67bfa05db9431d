import { useState } from 'react';
import { type OrderAction, useOrderAction } from '../../api/store-mutations.js';
import { ConfirmDialog, FormDialog } from '../../components/Dialog.js';
import { Field, SelectField } from '../../components/Form.js';
import { useToast } from '../../components/Toast.js';
import { formatMoney } from '../../format.js';
import type { Order } from '../../types.js';
import { FulfilDialog } from './FulfilDialog.js';
import { RefundDialog } from './RefundDialog.js';

type Action = 'pay' | 'fulfil' | 'ship' | 'deliver' | 'cancel' | 'refund';

/** What an order in each status allows (the API's lifecycle). */
const ALLOWED: Record<Order['status'], Action[]> = {
  pending: ['pay', 'cancel'],
  paid: ['fulfil', 'ship', 'refund', 'cancel'],
  shipped: ['deliver', 'refund'],
  delivered: ['refund'],
  cancelled: [],
  refunded: [],
};

const BUTTONS: Record<Action, string> = {
  pay: 'Take payment',
  fulfil: 'Ship units',
  ship: 'Mark shipped',
  deliver: 'Mark delivered',
  cancel: 'Cancel order',
  refund: 'Refund',
};

/** The sandbox provider's test cards: the first two succeed, the others are declined. */
const PAYMENT_METHODS = [
  { value: 'pm_card_visa', label: 'Visa (test card, succeeds)' },
  { value: 'pm_card_mastercard', label: 'Mastercard (test card, succeeds)' },
  { value: 'pm_card_declined', label: 'Declined card (test)' },
  { value: 'pm_card_insufficient_funds', label: 'Insufficient funds (test)' },
];

function useAction(order: Order, onDone: () => void, done: string) {
  const action = useOrderAction();
  const toast = useToast();
  return {
    action,
    run: (change: OrderAction) =>
      action.mutate(
        { id: order.id, change },
        {
          onSuccess: () => {
            toast(done);
            onDone();
          },
        },
      ),
  };
}

function PayDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const [method, setMethod] = useState('pm_card_visa');
  const { action, run } = useAction(order, onClose, 'Payment taken.');
  return (
    <FormDialog
      title="Take payment"
      onClose={onClose}
      onSubmit={() => run({ action: 'pay', payment_method: method })}
      submitLabel={`Charge ${formatMoney(order.total, order.currency)}`}
      busyLabel="Charging…"
      busy={action.isPending}
      error={action.error}
    >
      <p className="dialog-message">
        Charges {formatMoney(order.total, order.currency)} to {order.customer.email} and marks the order paid.
        A declined card leaves it pending.
      </p>
      <SelectField label="Payment method" value={method} onChange={(e) => setMethod(e.target.value)}>
        {PAYMENT_METHODS.map(({ value, label }) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
    </FormDialog>
  );
}

function ShipDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const { action, run } = useAction(order, onClose, 'Order marked shipped.');
  return (
    <FormDialog
      title="Mark shipped"
      onClose={onClose}
      onSubmit={() =>
        run({
          action: 'ship',
          ...(carrier.trim() ? { carrier: carrier.trim() } : {}),
          ...(tracking.trim() ? { tracking_number: tracking.trim() } : {}),
        })
      }
      submitLabel="Mark shipped"
      busyLabel="Saving…"
      busy={action.isPending}
      error={action.error}
    >
      <p className="dialog-message">
        Ships everything left from the default location, in one parcel, and marks the order shipped (the first
        parcel emits <code>order.shipped</code>: your endpoints may mail the customer).
      </p>
      <Field
        label="Carrier"
        placeholder="Optional, e.g. UPS"
        value={carrier}
        onChange={(e) => setCarrier(e.target.value)}
      />
      <Field
        label="Tracking number"
        placeholder="Optional"
        value={tracking}
        onChange={(e) => setTracking(e.target.value)}
      />
    </FormDialog>
  );
}

/** The order's actions: the buttons its status allows, each opening its confirmation. */
export function OrderActions({ order }: { order: Order }) {
  const [open, setOpen] = useState<Action | null>(null);
  const close = () => setOpen(null);
  const deliver = useAction(order, close, 'Order marked delivered.');
  const cancel = useAction(order, close, 'Order cancelled.');
  // An order with a parcel shipped cannot be cancelled: it is refunded.
  const allowed = ALLOWED[order.status].filter(
    (action) => action !== 'cancel' || order.fulfillments.length === 0,
  );
  const captured = order.payment?.status === 'succeeded';

  return (
    <>
      {allowed.length > 0 ? (
        <div className="order-actions" role="group" aria-label="Order actions">
          {allowed.map((action) => (
            <button
              key={action}
              type="button"
              className={`button${action === allowed[0] ? ' button-primary' : ''}${action === 'cancel' ? ' button-danger-ghost' : ''}`}
              onClick={() => {
                deliver.action.reset();
                cancel.action.reset();
                setOpen(action);
              }}
            >
              {BUTTONS[action]}
            </button>
          ))}
        </div>
      ) : null}
      {open === 'pay' ? <PayDialog order={order} onClose={close} /> : null}
      {open === 'fulfil' ? <FulfilDialog order={order} onClose={close} /> : null}
      {open === 'ship' ? <ShipDialog order={order} onClose={close} /> : null}
      {open === 'refund' ? <RefundDialog order={order} onClose={close} /> : null}
      {open === 'deliver' ? (
        <ConfirmDialog
          title="Mark delivered?"
          tone="primary"
          confirmLabel="Mark delivered"
          busy={deliver.action.isPending}
          error={deliver.action.error}
          onClose={close}
          onConfirm={() => deliver.run({ action: 'deliver' })}
          message={
            <p>
              The order is marked delivered and emits <code>order.delivered</code>.
            </p>
          }
        />
      ) : null}
      {open === 'cancel' ? (
        <ConfirmDialog
          title="Cancel this order?"
          confirmLabel="Cancel order"
          busy={cancel.action.isPending}
          error={cancel.action.error}
          onClose={close}
          onConfirm={() => cancel.run({ action: 'cancel' })}
          message={
            <>
              <p>
                Its units go back in stock and its discount codes’ uses are given back.
                {captured
                  ? ` The ${formatMoney(order.refundable_amount, order.currency)} left of its payment is refunded to the buyer, from your wallet.`
                  : ' Nothing was charged, so nothing is refunded.'}
              </p>
              <p>A cancelled order cannot be reopened.</p>
            </>
          }
        />
      ) : null}
    </>
  );
}
