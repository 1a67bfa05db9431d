import { useState } from 'react';
import { formatNumber } from '../format.js';

/**
 * Cursor paging of a list: the cursors of the pages walked through, so Previous goes back the way
 * Next came (the API's cursors go forward only). A change of `filters` starts again at page 1.
 */
export function useCursorPaging(filters: string) {
  const [state, setState] = useState<{ filters: string; cursors: (string | null)[] }>({
    filters,
    cursors: [null],
  });
  const cursors = state.filters === filters ? state.cursors : [null];
  return {
    cursor: cursors[cursors.length - 1] ?? null,
    page: cursors.length,
    next: (cursor: string) => setState({ filters, cursors: [...cursors, cursor] }),
    previous: () => setState({ filters, cursors: cursors.slice(0, -1) }),
  };
}

/** "26–50 of 112 products", with Previous and Next. */
export function Pager({
  page,
  limit,
  shown,
  total,
  noun,
  nextCursor,
  onNext,
  onPrevious,
}: {
  page: number;
  limit: number;
  shown: number;
  total: number;
  /** What the list holds, plural ("products"). */
  noun: string;
  nextCursor: string | null;
  onNext: (cursor: string) => void;
  onPrevious: () => void;
}) {
  const first = (page - 1) * limit + 1;
  if (page === 1 && nextCursor === null) return null;
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      <span className="hint">
        {shown === 0
          ? `None of ${formatNumber(total)} ${noun}`
          : `${formatNumber(first)}–${formatNumber(first + shown - 1)} of ${formatNumber(total)} ${noun}`}
      </span>
      <div className="pager-buttons">
        <button type="button" className="button button-small" disabled={page === 1} onClick={onPrevious}>
          Previous
        </button>
        <button
          type="button"
          className="button button-small"
          disabled={nextCursor === null}
          onClick={() => nextCursor && onNext(nextCursor)}
        >
          Next
        </button>
      </div>
    </nav>
  );
}
