import { useState } from 'react';

const TONES: Record<string, string> = {
  Active: 'success',
  Expiring: 'warning',
  Degraded: 'warning',
  Disabled: 'neutral',
  succeeded: 'success',
  failed: 'danger',
  pending: 'info',
  queued: 'info',
  running: 'info',
  Installed: 'success',
};

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`badge badge-${TONES[status] ?? 'neutral'}`}>
      <span className="badge-dot" aria-hidden="true" />
      {label ?? status}
    </span>
  );
}

/**
 * Items as chips; with `max`, the first `max` and a "+N more" button that shows the rest in place
 * (and "Show less" to fold them again), by click, tap or keyboard alike.
 */
export function Chips({ items, max }: { items: readonly string[]; max?: number }) {
  const [expanded, setExpanded] = useState(false);
  const folds = max !== undefined && items.length > max;
  const shown = folds && !expanded ? items.slice(0, max) : items;
  const rest = items.length - shown.length;
  return (
    <ul className="chips" aria-label={`${items.length} item${items.length === 1 ? '' : 's'}`}>
      {shown.map((item) => (
        <li key={item} className="chip">
          {item}
        </li>
      ))}
      {folds ? (
        <li className="chip-toggle">
          <button
            type="button"
            className="chip chip-more"
            aria-expanded={expanded}
            onClick={() => setExpanded(!expanded)}
          >
            {expanded ? 'Show less' : `+${rest} more`}
          </button>
        </li>
      ) : null}
    </ul>
  );
}

/** An HTTP response line ("503 Service Unavailable") colored by its class. */
export function ResponseLabel({ response, status }: { response: string | null; status: number | null }) {
  if (response === null) return <span className="response response-pending">Pending</span>;
  const tone =
    status === null
      ? 'error'
      : status < 300
        ? 'ok'
        : status < 400
          ? 'redirect'
          : status < 500
            ? 'client'
            : 'error';
  return <span className={`response response-${tone}`}>{response}</span>;
}
