import { useState } from 'react';
import { formErrors } from '../../api/errors.js';
import { useFulfil } from '../../api/store-mutations.js';
import { useLocations } from '../../api/store-queries.js';
import { FormDialog } from '../../components/Dialog.js';
import { Field, SelectField } from '../../components/Form.js';
import { useToast } from '../../components/Toast.js';
import { formatNumber } from '../../format.js';
import { parseCount } from '../../money.js';
import type { JsonBody, Order } from '../../types.js';
import { unitsLeft } from './RefundDialog.js';

const LABELS = { carrier: 'Carrier', tracking_number: 'Tracking number', tracking_url: 'Tracking URL' };

/** The units of each line shipped so far, by variant. */
export function unitsShipped(order: Order): Map<string, number> {
  const shipped = new Map<string, number>();
  if (order.fulfillment_status === 'fulfilled' && order.fulfillments.length === 0) {
    // Shipped whole before fulfilments were recorded.
    for (const item of order.items) shipped.set(item.variant_id, item.quantity);
    return shipped;
  }
  for (const fulfillment of order.fulfillments) {
    for (const item of fulfillment.items)
      shipped.set(item.variant_id, (shipped.get(item.variant_id) ?? 0) + item.quantity);
  }
  return shipped;
}

/** The units of each line left to ship (the server has the last word: units refunded before shipping are not). */
export function unitsToShip(order: Order): Map<string, number> {
  const shipped = unitsShipped(order);
  const notRefunded = unitsLeft(order);
  return new Map(
    order.items.map((item) => [
      item.variant_id,
      Math.max(
        0,
        Math.min(item.quantity - (shipped.get(item.variant_id) ?? 0), notRefunded.get(item.variant_id) ?? 0),
      ),
    ]),
  );
}

/**
 * Ships units of a paid order (`POST /v1/orders/{id}/fulfillments`): how many of each line, from
 * which location, with the carrier's tracking. The rest can ship later, in another parcel.
 */
export function FulfilDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const fulfil = useFulfil();
  const locations = useLocations();
  const toast = useToast();
  const left = unitsToShip(order);
  const [units, setUnits] = useState<Record<string, string>>(() =>
    Object.fromEntries(order.items.map((item) => [item.variant_id, String(left.get(item.variant_id) ?? 0)])),
  );
  const [location, setLocation] = useState('');
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const [url, setUrl] = useState('');
  const [unsent, setUnsent] = useState<string>();
  const { fields, form } = formErrors(unsent ?? fulfil.error, LABELS);

  function body(): JsonBody<'createFulfillment'> | string {
    const items: { variant_id: string; quantity: number }[] = [];
    for (const item of order.items) {
      const quantity = parseCount(units[item.variant_id] ?? '');
      if (quantity === undefined) return `Units of ${item.name} must be a whole number.`;
      if (quantity) items.push({ variant_id: item.variant_id, quantity });
    }
    if (items.length === 0) return 'Choose units to ship.';
    return {
      items,
      ...(location ? { location_id: location } : {}),
      ...(carrier.trim() ? { carrier: carrier.trim() } : {}),
      ...(tracking.trim() ? { tracking_number: tracking.trim() } : {}),
      ...(url.trim() ? { tracking_url: url.trim() } : {}),
    };
  }

  function submit() {
    const request = body();
    if (typeof request === 'string') {
      setUnsent(request);
      return;
    }
    setUnsent(undefined);
    fulfil.mutate(
      { id: order.id, body: request },
      {
        onSuccess: ({ fulfillment }) => {
          const count = fulfillment.items.reduce((n, item) => n + item.quantity, 0);
          toast(`Shipped ${formatNumber(count)} unit${count === 1 ? '' : 's'}.`);
          onClose();
        },
      },
    );
  }

  return (
    <FormDialog
      title="Ship units"
      size="wide"
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Ship"
      busyLabel="Shipping…"
      busy={fulfil.isPending}
      error={form}
    >
      <p className="dialog-message">
        Ships these units in one parcel and emits <code>fulfillment.created</code> (the first parcel also{' '}
        <code>order.shipped</code>). What is left can ship later; the order is shipped once nothing is left.
      </p>
      <div className="refund-units">
        {order.items.map((item) => (
          <Field
            key={item.variant_id}
            label={`${item.name}${item.variant_title === 'Default' ? '' : ` (${item.variant_title})`}`}
            hint={`${formatNumber(left.get(item.variant_id) ?? 0)} of ${formatNumber(item.quantity)} left to ship`}
            inputMode="numeric"
            placeholder="0"
            disabled={(left.get(item.variant_id) ?? 0) === 0}
            value={units[item.variant_id] ?? ''}
            onChange={(e) => setUnits({ ...units, [item.variant_id]: e.target.value })}
          />
        ))}
      </div>
      <SelectField label="From" value={location} onChange={(e) => setLocation(e.target.value)}>
        <option value="">The default location</option>
        {(locations.data?.data ?? [])
          .filter((row) => !row.default)
          .map((row) => (
            <option key={row.id} value={row.id}>
              {row.name}
            </option>
          ))}
      </SelectField>
      <Field
        label="Carrier"
        placeholder="Optional, e.g. UPS"
        value={carrier}
        error={fields.carrier}
        onChange={(e) => setCarrier(e.target.value)}
      />
      <Field
        label="Tracking number"
        placeholder="Optional"
        value={tracking}
        error={fields.tracking_number}
        onChange={(e) => setTracking(e.target.value)}
      />
      <Field
        label="Tracking URL"
        placeholder="Optional, https://…"
        inputMode="url"
        value={url}
        error={fields.tracking_url}
        onChange={(e) => setUrl(e.target.value)}
      />
    </FormDialog>
  );
}
