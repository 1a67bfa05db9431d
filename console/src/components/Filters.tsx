import { type ReactNode, useEffect, useId, useState } from 'react';
import { useHref, useLocation, useSearchParams } from 'react-router';
import { useDebounced } from '../timing.js';

/**
 * A list's filters kept in the page's address (`?status=paid&q=ada`), so a filtered list can be
 * reloaded, bookmarked and linked to (the overview's "paid orders to ship" opens the orders page
 * filtered so).
 */
export function useAddressFilters<K extends string>(
  names: readonly K[],
): [Record<K, string>, (changes: Partial<Record<K, string>>) => void] {
  const [params, setParams] = useSearchParams();
  // The page's path as the browser shows it (under the console's base, `/console/orders`).
  const page = useHref({ pathname: useLocation().pathname });
  const values = Object.fromEntries(names.map((name) => [name, params.get(name) ?? ''])) as Record<K, string>;
  function update(changes: Partial<Record<K, string>>) {
    // A filter that settles after the user left the page (typed, then opened an order within the
    // debounce, while the order's page loads) would otherwise navigate back to the list.
    if (window.location.pathname !== page) return;
    setParams(
      () => {
        // The address as it is now: React Router hands an updater the parameters of the last
        // render, so a second change made before the page rendered again undid the first.
        const next = new URLSearchParams(window.location.search);
        for (const [key, value] of Object.entries(changes) as [K, string | undefined][]) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );
  }
  return [values, update];
}

/**
 * A text filter that applies once typing pauses (`onSettled` with the trimmed text); it follows
 * `value` when that changes elsewhere (a "Clear filters").
 */
export function TextFilter({
  label,
  value,
  onSettled,
  placeholder,
  type = 'search',
  grow,
}: {
  label: string;
  value: string;
  onSettled: (value: string) => void;
  placeholder?: string;
  type?: 'search' | 'email';
  grow?: boolean;
}) {
  const id = useId();
  const [typed, setTyped] = useState({ text: value, from: value });
  // The address changed elsewhere (cleared): the field shows it.
  const text = typed.from === value ? typed.text : value;
  const settled = useDebounced(text.trim(), 350);
  useEffect(() => {
    if (settled !== value && typed.from === value) onSettled(settled);
  }, [settled, value, typed.from, onSettled]);
  return (
    <div className={`field${grow ? ' field-grow' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={text}
        placeholder={placeholder}
        autoComplete="off"
        onChange={(e) => setTyped({ text: e.target.value, from: value })}
      />
    </div>
  );
}

/** A labelled select among filters. */
export function SelectFilter({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
    </div>
  );
}
