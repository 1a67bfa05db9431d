import { useState } from 'react';
import { describeFailure } from '../api/errors.js';
import type { Page } from '../types.js';
import { useToast } from './Toast.js';

/** What a list whose first page follows the API shows (see `useOlderPages`). */
export interface OlderPages<T> {
  /** The latest page's rows, then the older pages' rows that are not among them. */
  rows: T[];
  /** Where the next older page starts; null when there is none. */
  cursor: string | null;
  loading: boolean;
  showOlder: (from: string) => Promise<void>;
}

/**
 * A list whose latest page is kept fresh (a refreshing query) and whose older pages are loaded on
 * request ("Show older events"), as many as there are. The older rows begin with the list as it
 * was when they were loaded, so a row that new ones push out of the latest page stays; they belong
 * to the filters they were loaded with (`query`: the filters as a string) and go when those change.
 */
export function useOlderPages<T extends { id: string }>(
  latestPage: Page<T> | undefined,
  fetchPage: (cursor: string) => Promise<Page<T>>,
  query = '',
): OlderPages<T> {
  const toast = useToast();
  const [older, setOlder] = useState<{ query: string; rows: T[]; cursor: string | null }>();
  const [loading, setLoading] = useState(false);
  const kept = older?.query === query ? older : undefined;
  const latest = latestPage?.data ?? [];
  const latestIds = new Set(latest.map((row) => row.id));
  const rows = [...latest, ...(kept?.rows ?? []).filter((row) => !latestIds.has(row.id))];
  const cursor = kept ? kept.cursor : latestPage?.has_more ? latestPage.next_cursor : null;

  async function showOlder(from: string) {
    setLoading(true);
    try {
      const page = await fetchPage(from);
      setOlder({ query, rows: [...rows, ...page.data], cursor: page.has_more ? page.next_cursor : null });
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setLoading(false);
    }
  }

  return { rows, cursor, loading, showOlder };
}

/** The "Show older …" button under such a list, while there is an older page. */
export function ShowOlder({ pages, label }: { pages: OlderPages<unknown>; label: string }) {
  const { cursor, loading, showOlder } = pages;
  if (!cursor) return null;
  return (
    <div className="load-more">
      <button type="button" className="button" onClick={() => void showOlder(cursor)} disabled={loading}>
        {loading ? 'Loading…' : label}
      </button>
    </div>
  );
}
