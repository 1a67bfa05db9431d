import { type ReactNode, useState } from 'react';
import { describeError, requestIdOf } from '../api/errors.js';

/** Placeholder rows while a page loads. */
export function Loading({ label = 'Loading', rows = 3 }: { label?: string; rows?: number }) {
  return (
    <div className="loading" role="status" aria-live="polite" aria-busy="true">
      <span className="visually-hidden">{label}…</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" aria-hidden="true" />
      ))}
    </div>
  );
}

/**
 * "Request ID: req_…" with a copy button, for a failure on the server's side: what the message
 * asks to quote. Nothing for other failures.
 */
export function RequestId({ error }: { error: unknown }) {
  const id = requestIdOf(error);
  const [copied, setCopied] = useState<string>();
  if (id === undefined) return null;

  async function copy(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(value);
    } catch {
      // No clipboard (an insecure origin, a refusal): the id stays selectable as text.
      setCopied(undefined);
    }
  }

  return (
    <span className="request-id">
      Request ID: <code className="mono">{id}</code>{' '}
      <button
        type="button"
        className="button button-small button-ghost"
        onClick={() => void copy(id)}
        aria-label={copied === id ? 'Request ID copied' : 'Copy the request ID'}
      >
        {copied === id ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

export function ErrorState({
  error,
  onRetry,
  title = 'Something went wrong',
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  return (
    <div className="state state-error" role="alert">
      <h3>{title}</h3>
      <p>{describeError(error)}</p>
      <RequestId error={error} />
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="state state-empty">
      <h3>{title}</h3>
      {children ? <p>{children}</p> : null}
      {action}
    </div>
  );
}

/** Loading, error or the content, for one resource. */
export function Async<T>({
  resource,
  children,
  loadingLabel,
}: {
  resource: { data: T | undefined; error: unknown; loading: boolean; reload: () => void };
  children: (data: T) => ReactNode;
  loadingLabel?: string;
}) {
  if (resource.data !== undefined) return <>{children(resource.data)}</>;
  if (resource.error !== undefined) return <ErrorState error={resource.error} onRetry={resource.reload} />;
  return <Loading label={loadingLabel} />;
}
