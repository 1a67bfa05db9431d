import { createContext, type ReactNode, useMemo, useState } from 'react';
import { describeError } from '../api/errors.js';
import { clockTime } from '../format.js';
import { RequestId } from './States.js';

/** Data on screen that a later load could not refresh. */
export interface StaleReport {
  /** When the data on screen was loaded (ms since the epoch). */
  since: number;
  /** Why loading it again failed. */
  error: unknown;
  retry: () => void;
}

interface StaleRegistry {
  /** Reports out-of-date data under `id`; the function returned withdraws the report. */
  report(id: string, stale: StaleReport): () => void;
}

/** Where useApiQuery reports data it could not refresh (api/query.ts). */
export const StaleContext = createContext<StaleRegistry | null>(null);

/**
 * Around the pages: collects the resources whose refresh failed while their old data stays on
 * screen, and says so above the page, once for all of them: since when the page is out of date
 * (the oldest data shown), why, and a retry of every one of them.
 */
export function StaleData({ children }: { children: ReactNode }) {
  const [reports, setReports] = useState<ReadonlyMap<string, StaleReport>>(() => new Map());
  const registry = useMemo<StaleRegistry>(
    () => ({
      report(id, stale) {
        setReports((current) => new Map(current).set(id, stale));
        return () =>
          setReports((current) => {
            const next = new Map(current);
            next.delete(id);
            return next;
          });
      },
    }),
    [],
  );
  const stale = [...reports.values()];
  const oldest = stale.reduce<StaleReport | undefined>(
    (found, report) => (found === undefined || report.since < found.since ? report : found),
    undefined,
  );

  return (
    <StaleContext.Provider value={registry}>
      {oldest ? (
        <div className="banner banner-warning stale" role="alert">
          <div>
            <strong>Couldn’t refresh — showing data from {clockTime(oldest.since)}</strong>
            <p>
              {describeError(oldest.error)} <RequestId error={oldest.error} />
            </p>
          </div>
          <button
            type="button"
            className="button"
            onClick={() => {
              for (const report of stale) report.retry();
            }}
          >
            Retry
          </button>
        </div>
      ) : null}
      {children}
    </StaleContext.Provider>
  );
}
