const TONES: Record<string, string> = {
  Active: 'success',
  Expiring: 'warning',
  Degraded: 'warning',
  Disabled: 'neutral',
  succeeded: 'success',
  failed: 'danger',
  pending: 'info',
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

export function Chips({ items, max }: { items: readonly string[]; max?: number }) {
  const shown = max === undefined ? items : items.slice(0, max);
  const rest = items.length - shown.length;
  return (
    <ul className="chips" aria-label={`${items.length} item${items.length === 1 ? '' : 's'}`}>
      {shown.map((item) => (
        <li key={item} className="chip">
          {item}
        </li>
      ))}
      {rest > 0 ? (
        <li className="chip chip-more" title={items.slice(shown.length).join(', ')}>
          +{rest} more
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
