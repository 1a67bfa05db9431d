import type { ReactNode } from 'react';
import { describeError } from '../api/errors.js';

/** A failure, said where it happened, with a Retry when there is something to ask again. */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (error === null || error === undefined) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>{describeError(error)}</p>
      {onRetry ? (
        <button type="button" className="button button-small" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p className="loading" role="status">
      {label}…
    </p>
  );
}

export function Notice({ tone, children }: { tone: 'info' | 'warning' | 'success'; children: ReactNode }) {
  return (
    <div className={`notice notice-${tone}`} role={tone === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
