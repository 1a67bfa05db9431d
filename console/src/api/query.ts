import {
  keepPreviousData,
  notifyManager,
  QueryClient,
  type QueryKey,
  skipToken,
  useQuery,
} from '@tanstack/react-query';
import { useCallback, useContext, useEffect, useId } from 'react';
import { StaleContext } from '../components/Stale.js';
import { apiEvents } from './client.js';
import { ApiError, isNotFound } from './errors.js';

/**
 * The console's TanStack Query setup: its QueryClient, and `useApiQuery`, which every page's data
 * goes through (queries.ts). A query is asked once when its page shows it and again when a change
 * made here invalidates it (mutations.ts), when the page asks (`reload`, a Retry) and, for the
 * pages that follow something, on the console's own refresh schedule (below), not TanStack's
 * focus or reconnect refetches: every call counts against the store's limits.
 */
export function createQueryClient(): QueryClient {
  // A page hears its answers on a microtask, not a zero timer: timers can be held back (a
  // background tab's are throttled to a second or more), and a page should not wait on them to
  // show what it was answered.
  notifyManager.setScheduler(queueMicrotask);
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A failure is shown as it is (with its Retry); no silent retries that count against the limits.
        retry: false,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        // A page shown again loads afresh, as it did when it was first shown; nothing outlives it.
        gcTime: 0,
        // Offline or not, a call is made and its failure said.
        networkMode: 'always',
      },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}

/** What a page holds of one query. */
export interface Resource<T> {
  data: T | undefined;
  /** Why the last load failed; with `data` set, the data on screen is from an earlier load. */
  error: unknown;
  /** A load is under way. */
  loading: boolean;
  /** Loads again; the current data stays on screen meanwhile. */
  reload: () => void;
}

/** How long a page counts as in use after it is shown, the user's last input on it or their last change. */
const ACTIVE_MS = 60_000;
/** The longest wait between refreshes of a page left alone, and the longest timer set (a hold is checked again then). */
const IDLE_REFRESH_MS = 60_000;
/** The input that says someone is using the page. */
const INPUT_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;
/**
 * No refresh before `until` (ms since the epoch): the API answered a load 429 at `since`, and every
 * call counts against the same limits, so all the pages' refreshes wait as long as it asked, or
 * until a load sent after that answer (a Retry) succeeds.
 */
const refreshHold = { since: 0, until: 0 };

/** Runs a query's load, keeping the refresh hold: set by a 429, lifted by a later load that succeeds. */
async function held<T>(load: () => Promise<T>): Promise<T> {
  const sentAt = Date.now();
  try {
    const value = await load();
    if (sentAt > refreshHold.since) refreshHold.until = 0;
    return value;
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 429) {
      const now = Date.now();
      refreshHold.since = now;
      refreshHold.until = Math.max(refreshHold.until, now + (failure.retryAfterMs ?? IDLE_REFRESH_MS));
    }
    throw failure;
  }
}

/**
 * Calls `refresh` every `refreshMs` while the page is visible and in use: for a minute after it is
 * shown, after input on it (pointer, keyboard) and after a change made through the API client;
 * then each wait doubles, up to a minute. A page in a background tab asks for nothing. After a
 * 429 nothing refreshes until its `Retry-After` has passed (a minute without one) or a load sent
 * since succeeds. Starts afresh when `subject` (what is followed) changes.
 */
function useRefreshSchedule(refresh: () => void, refreshMs: number | undefined, subject: string): void {
  useEffect(() => {
    if (!refreshMs) return;
    const every = refreshMs;
    let activeUntil = Date.now() + ACTIVE_MS;
    let wait = every;
    let lastRefresh = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;

    function schedule(at: number): void {
      clearTimeout(timer);
      timer = setTimeout(tick, Math.min(Math.max(0, at - Date.now()), IDLE_REFRESH_MS));
    }
    function tick(): void {
      const now = Date.now();
      if (now < refreshHold.until) return schedule(refreshHold.until);
      // Hidden (a background tab): nothing is asked for; the timer goes on to see when it is shown.
      if (document.visibilityState !== 'visible') return schedule(now + wait);
      if (now < lastRefresh + wait) return schedule(lastRefresh + wait);
      lastRefresh = now;
      refresh();
      wait = now < activeUntil ? every : Math.max(every, Math.min(wait * 2, IDLE_REFRESH_MS));
      schedule(now + wait);
    }
    /** The page is in use: refresh at the full rate again, now if the last refresh is older than that. */
    function inUse(): void {
      const now = Date.now();
      activeUntil = now + ACTIVE_MS;
      if (wait === every) return;
      wait = every;
      schedule(lastRefresh + every);
    }
    function shown(): void {
      if (document.visibilityState === 'visible') inUse();
    }

    schedule(lastRefresh + wait);
    for (const type of INPUT_EVENTS) window.addEventListener(type, inUse, { capture: true, passive: true });
    document.addEventListener('visibilitychange', shown);
    apiEvents.addEventListener('change', inUse);
    return () => {
      clearTimeout(timer);
      for (const type of INPUT_EVENTS) window.removeEventListener(type, inUse, { capture: true });
      document.removeEventListener('visibilitychange', shown);
      apiEvents.removeEventListener('change', inUse);
    };
  }, [refresh, refreshMs, subject]);
}

export interface ApiQuery<T> {
  queryKey: QueryKey;
  queryFn: () => Promise<T>;
}

/**
 * A query of the API for a page: TanStack's `useQuery` of `query` (none while it is null), with
 * the console's ways. While the key changes (a filter), what was shown stays until the new answer.
 * With `refreshMs`, it is refreshed on the console's schedule (useRefreshSchedule), unless the
 * last answer was 404: what it followed is not there any more, so its data goes too and the page
 * says it is missing rather than showing it as it was. When a load fails after data was shown, the
 * data stays and the page's stale-data warning (components/Stale.tsx) says since when it is out of
 * date and why, with a retry, until a load succeeds again.
 */
export function useApiQuery<T>(
  query: ApiQuery<T> | null,
  options: { refreshMs?: number | undefined } = {},
): Resource<T> {
  const queryKey = query?.queryKey ?? ['none'];
  const result = useQuery({
    queryKey,
    queryFn: query ? () => held(query.queryFn) : skipToken,
    placeholderData: keepPreviousData,
  });
  const error: unknown = result.error ?? undefined;
  const missing = isNotFound(error);
  const data = missing ? undefined : result.data;
  const { refetch } = result;
  const reload = useCallback(() => void refetch(), [refetch]);
  const subject = JSON.stringify(queryKey);
  useRefreshSchedule(reload, query === null || missing ? undefined : options.refreshMs, subject);

  const stale = useContext(StaleContext);
  const staleId = useId();
  const outdated = data !== undefined && error !== undefined;
  const loadedAt = result.dataUpdatedAt;
  useEffect(() => {
    if (!stale || !outdated || loadedAt === 0) return;
    return stale.report(staleId, { since: loadedAt, error, retry: reload });
  }, [stale, staleId, outdated, loadedAt, error, reload]);

  return { data, error, loading: result.isFetching, reload };
}
