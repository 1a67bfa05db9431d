import { Link } from 'react-router';
import { useOrderEvents } from '../../api/order-events.js';
import { ErrorState, Loading } from '../../components/States.js';
import { formatLogTime, formatMoney } from '../../format.js';
import type { Order, WebhookEvent } from '../../types.js';

interface Step {
  key: string;
  at: string;
  label: string;
  detail?: string;
  /** The event it is, to open on the Events page; none for a step the log no longer keeps. */
  eventId?: string;
  tone: 'info' | 'success' | 'warning' | 'danger' | 'neutral';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What an event of the order says, as a step of its timeline. */
function stepOf(event: WebhookEvent, order: Order): Step {
  const object = event.data.object;
  const money = (amount: unknown) =>
    typeof amount === 'number' ? formatMoney(amount, order.currency) : undefined;
  const base = { key: event.id, at: event.created, eventId: event.id };
  switch (event.type) {
    case 'order.created':
      return {
        ...base,
        label: 'Order placed',
        detail: money(object.total),
        tone: 'info',
      };
    case 'order.paid':
      return { ...base, label: 'Paid', tone: 'success' };
    case 'payment.received':
      return {
        ...base,
        label: 'Payment received',
        detail: [money(object.amount), text(object.method)].filter(Boolean).join(' · '),
        tone: 'success',
      };
    case 'payment.failed':
      return {
        ...base,
        label: 'Payment failed',
        detail: text(object.failure_code) ?? text(object.failure_message),
        tone: 'danger',
      };
    case 'order.shipped':
      return {
        ...base,
        label: 'Shipped',
        detail: [text(object.carrier), text(object.tracking_number)].filter(Boolean).join(' · ') || undefined,
        tone: 'info',
      };
    case 'order.delivered':
      return { ...base, label: 'Delivered', tone: 'success' };
    case 'order.cancelled':
      return {
        ...base,
        label: object.cancel_reason === 'expired' ? 'Cancelled: unpaid past the store’s expiry' : 'Cancelled',
        tone: 'neutral',
      };
    case 'order.refunded':
      return { ...base, label: 'Refunded in full', tone: 'warning' };
    case 'refund.created':
      return {
        ...base,
        label: `Refund of ${money(object.amount) ?? 'an amount'}`,
        detail: text(object.reason),
        tone: 'warning',
      };
    default:
      return { ...base, label: event.type, tone: 'neutral' };
  }
}

/** The steps the order records itself, for those the event log no longer has (past its retention). */
function recorded(order: Order): { type: string; step: Omit<Step, 'key'> }[] {
  const steps: { type: string; step: Omit<Step, 'key'> }[] = [
    { type: 'order.created', step: { at: order.created, label: 'Order placed', tone: 'info' } },
  ];
  if (order.paid_at)
    steps.push({ type: 'order.paid', step: { at: order.paid_at, label: 'Paid', tone: 'success' } });
  if (order.shipped_at)
    steps.push({ type: 'order.shipped', step: { at: order.shipped_at, label: 'Shipped', tone: 'info' } });
  if (order.delivered_at) {
    steps.push({
      type: 'order.delivered',
      step: { at: order.delivered_at, label: 'Delivered', tone: 'success' },
    });
  }
  if (order.cancelled_at) {
    steps.push({
      type: 'order.cancelled',
      step: { at: order.cancelled_at, label: 'Cancelled', tone: 'neutral' },
    });
  }
  if (order.refunded_at) {
    steps.push({
      type: 'order.refunded',
      step: { at: order.refunded_at, label: 'Refunded in full', tone: 'warning' },
    });
  }
  for (const refund of order.refunds) {
    steps.push({
      type: `refund.created ${refund.id}`,
      step: {
        at: refund.created,
        label: `Refund of ${formatMoney(refund.amount, refund.currency)}`,
        tone: 'warning',
        ...(refund.reason ? { detail: refund.reason } : {}),
      },
    });
  }
  return steps;
}

const RANKS = ['Order placed', 'Payment', 'Paid'];

function rank(step: Step): number {
  const index = RANKS.findIndex((label) => step.label.startsWith(label));
  return index === -1 ? RANKS.length : index;
}

/** The timeline: the order's events, oldest first, and what the order records that no event shows. */
function timeline(order: Order, events: WebhookEvent[]): Step[] {
  const seen = new Set(
    events.map((event) =>
      event.type === 'refund.created' ? `refund.created ${String(event.data.object.id)}` : event.type,
    ),
  );
  const steps = events.map((event) => stepOf(event, order));
  for (const { type, step } of recorded(order)) {
    if (!seen.has(type)) steps.push({ ...step, key: type });
  }
  // Events of one commit share their time: the order first, its payment, then what they made of it.
  return steps.sort((a, b) => a.at.localeCompare(b.at) || rank(a) - rank(b));
}

/** The order's history: its events from the event log, each opening on the Events page. */
export function OrderTimeline({ order }: { order: Order }) {
  const events = useOrderEvents(order);
  let body;
  if (events.data === undefined) {
    body =
      events.error !== undefined ? (
        <ErrorState error={events.error} onRetry={events.reload} title="The events could not be loaded" />
      ) : (
        <Loading label="Loading the events" rows={2} />
      );
  } else {
    body = (
      <ol className="timeline">
        {timeline(order, events.data).map((step) => (
          <li
            key={step.key}
            className={`timeline-step timeline-${step.tone}`}
            data-event-type={step.eventId ? undefined : 'recorded'}
          >
            <time dateTime={step.at} className="timeline-time">
              {formatLogTime(step.at)}
            </time>
            <div className="timeline-body">
              <span className="timeline-label">
                {step.eventId ? <Link to={`/events?event=${step.eventId}`}>{step.label}</Link> : step.label}
              </span>
              {step.detail ? <span className="hint"> · {step.detail}</span> : null}
              {step.eventId ? null : (
                <span className="hint"> · from the order (its event is no longer kept)</span>
              )}
            </div>
          </li>
        ))}
      </ol>
    );
  }
  return (
    <section className="card card-last-narrow" aria-labelledby="timeline-title">
      <div className="card-header">
        <h2 id="timeline-title">Timeline</h2>
        <span className="hint">Its events, oldest first: open one for its payload and deliveries</span>
      </div>
      {body}
    </section>
  );
}
