import { type AnchorHTMLAttributes, type MouseEvent, useMemo, useSyncExternalStore } from 'react';

/**
 * The shop's router, small on purpose (the first page's script has a budget): the address under
 * the build's base (`/shop/`), `navigate`, and `Link`, an `<a>` whose plain clicks stay in the app
 * (a click with a modifier key opens a tab, as any link). The server answers index.html for every
 * page path under the base, so a reload or a shared link of any page works.
 */

/** The base without its trailing slash: `/shop`. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

/** The full address of a path of the shop (`/products/tee` → `/shop/products/tee`). */
export function href(to: string): string {
  return `${BASE}${to.startsWith('/') ? to : `/${to}`}`;
}

/** Goes to a page of the shop (`/cart`, `/products/tee?x=1`), as a new entry of the history unless `replace`. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', href(to));
  else window.history.pushState(null, '', href(to));
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

export interface Location {
  /** The path under the base, from `/`: `/products/tee`. */
  path: string;
  query: URLSearchParams;
}

/** The page's address under the base, and its query; the page renders again when it changes. */
export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  return useMemo(() => {
    const url = new URL(current, window.location.origin);
    const under = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname;
    const path = `/${under.replace(/^\/+/, '').replace(/\/+$/, '')}`;
    return { path, query: url.searchParams };
  }, [current]);
}

/** `/products/:handle` against `/products/tee`: `{ handle: 'tee' }`, or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const value = have[index] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return null;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return null;
  }
  return params;
}

export function Link({
  to,
  onClick,
  ...props
}: { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  function follow(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  }
  return <a href={href(to)} onClick={follow} {...props} />;
}
