import { useCallback, useContext, useEffect, useId, useRef, useState } from 'react';
import { api, ApiError, apiEvents, describeFailure } from './api.js';
import { StaleContext } from './components/Stale.js';

export interface Resource<T> {
  data: T | undefined;
  /** Why the last load failed; with `data` set, the data on screen is from an earlier load. */
  error: unknown;
  loading: boolean;
  /** Loads again; the current data stays on screen meanwhile. */
  reload: () => void;
  /** Replaces the data locally (after a change the server confirmed). */
  set: (data: T) => void;
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

/**
 * GETs `path` from the API (in `version`, when given), again whenever `path` changes or `reload` is called, and
 * on a timer while the page is visible, unless the last answer was 404 (it is not there to
 * watch: its data goes too, so the page says it is missing rather than showing it as it was). The
 * console's calls count against the store's rate limit and quota like any client's, so the timer
 * runs every `refreshMs` only while the page is in use: for a minute after it is shown, after input
 * on it (pointer, keyboard) and after a change made through the API client; then each wait doubles,
 * up to a minute. After a 429 no page refreshes until its `Retry-After` has passed (a minute without one)
 * or a load sent since succeeds.
 * A response to an older path never overwrites a newer one. When a load fails otherwise after data
 * was shown, the data stays and the page's stale-data warning (components/Stale.tsx) says since
 * when it is out of date and why, with a retry, until a load succeeds again.
 */
export function useResource<T>(
  path: string | null,
  options: { refreshMs?: number; version?: string } = {},
): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [generation, setGeneration] = useState(0);
  /** Which request the data and error on screen answer. */
  const [settled, setSettled] = useState<string>();
  /** When the data on screen was loaded (ms since the epoch). */
  const [loadedAt, setLoadedAt] = useState<number>();
  const latest = useRef(0);
  const { refreshMs, version } = options;
  const requestKey = path === null ? undefined : `${generation} ${path}`;

  useEffect(() => {
    if (path === null) return;
    const ticket = ++latest.current;
    const key = `${generation} ${path}`;
    const sentAt = Date.now();
    api.get<T>(path, { version }).then(
      (value) => {
        if (sentAt > refreshHold.since) refreshHold.until = 0;
        if (ticket !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoadedAt(Date.now());
        setSettled(key);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        // Not found: what was shown is gone (deleted meanwhile), not merely out of date.
        if (failure instanceof ApiError && failure.status === 404) setData(undefined);
        if (failure instanceof ApiError && failure.status === 429) {
          const now = Date.now();
          refreshHold.since = now;
          refreshHold.until = Math.max(refreshHold.until, now + (failure.retryAfterMs ?? IDLE_REFRESH_MS));
        }
        setError(failure);
        setSettled(key);
      },
    );
  }, [path, version, generation]);
  const loading = requestKey !== undefined && settled !== requestKey;
  const missing = error instanceof ApiError && error.status === 404;

  useEffect(() => {
    if (!refreshMs || path === null || missing) return;
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
      setGeneration((g) => g + 1);
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
  }, [refreshMs, path, missing]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  const stale = useContext(StaleContext);
  const staleId = useId();
  const outdated = data !== undefined && error !== undefined;
  useEffect(() => {
    if (!stale || !outdated || loadedAt === undefined) return;
    return stale.report(staleId, { since: loadedAt, error, retry: reload });
  }, [stale, staleId, outdated, loadedAt, error, reload]);

  return { data, error, loading, reload, set: setData };
}

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Re-renders every `ms`, so relative times ("2 minutes ago") stay true. */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export interface Action {
  busy: boolean;
  /**
   * Why the last run failed (what it threw: an ApiError, for FormError and formErrors to word),
   * or a message set with setError (a check before running); undefined when nothing failed.
   */
  error: unknown;
  setError: (error: unknown) => void;
  /**
   * Runs `action` with busy set and the last error cleared; resolves to the new error's message
   * (with the request id to quote when the server failed), if any.
   */
  run: (action: () => Promise<void>) => Promise<string | undefined>;
}

/** The busy flag and error of a form or button that calls the API. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function run(action: () => Promise<void>): Promise<string | undefined> {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return undefined;
    } catch (failure) {
      setError(failure);
      return describeFailure(failure);
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, setError, run };
}
