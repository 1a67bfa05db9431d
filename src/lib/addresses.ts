import { allCountries } from 'country-region-data';
import { isCountry } from './countries.js';
import { matchKey, normaliseText } from './text-normalise.js';

/**
 * Addresses as they are stored and matched (an order's shipping address against the tax rates, a
 * customer's addresses), and the states of tax rates: one canonical form for each state, so the
 * same place always gets the same rate.
 *
 * A country's subdivisions are known when country-region-data gives an ISO 3166-2 code for every
 * one of its regions (the United States, Canada, China, Germany and most others). There a state is
 * its code, upper case and without the country prefix (`CA`, `QC`, `BY`), and is accepted as that
 * code in any case, with the prefix (`US-CA`), or as the region's name (`California`, `Québec`,
 * `Quebec`), each compared by `matchKey`; anything else is refused. Elsewhere a state is free text,
 * stored as `normaliseText` makes it. Blank (once invisible characters are gone), it is absent.
 */

/** A region's ISO 3166-2 code without the country prefix, upper case; null when the package has none. */
function shortCode(country: string, code: string | undefined): string | null {
  // The package writes a missing code as the string "undefined"; a few codes carry the prefix.
  if (code === undefined || code === '' || code === 'undefined') return null;
  const upper = code.toUpperCase();
  return upper.startsWith(`${country}-`) ? upper.slice(country.length + 1) : upper;
}

interface Subdivisions {
  /** `matchKey` of each code (bare and with the country prefix) and of each name, to the code. */
  byKey: ReadonlyMap<string, string>;
  /** One code and its region's name, to show in a refusal. */
  example: { code: string; name: string };
}

/** The countries whose subdivisions are known, by ISO 3166-1 alpha-2 code. */
const KNOWN: ReadonlyMap<string, Subdivisions> = (() => {
  const known = new Map<string, Subdivisions>();
  for (const [, country, regions] of allCountries) {
    const codes = regions.map(([, code]) => shortCode(country, code));
    if (regions.length === 0 || codes.some((code) => code === null)) continue;
    const byKey = new Map<string, string>();
    regions.forEach(([name], index) => byKey.set(matchKey(name), codes[index] as string));
    // Codes after names: a code always means its own region.
    for (const code of codes as string[]) {
      byKey.set(matchKey(code), code);
      byKey.set(matchKey(`${country}-${code}`), code);
    }
    const [name] = regions[0] as [string, string];
    known.set(country, { byKey, example: { code: codes[0] as string, name } });
  }
  return known;
})();

/** Whether `country`'s subdivisions are known (its states are ISO 3166-2 codes). */
export function hasKnownSubdivisions(country: string): boolean {
  return KNOWN.has(country);
}

export type StateResult = { ok: true; state: string | null } | { ok: false; message: string };

/**
 * A state as stored for `country`: null when absent or blank; the ISO 3166-2 code where the
 * country's subdivisions are known (a code or name it does not know is refused, with a message
 * for the field); else the normalised text.
 */
export function canonicalState(country: string, state: string | null | undefined): StateResult {
  const text = normaliseText(state ?? '');
  if (text === '') return { ok: true, state: null };
  const known = KNOWN.get(country);
  if (known === undefined) return { ok: true, state: text };
  const code = known.byKey.get(matchKey(text));
  if (code !== undefined) return { ok: true, state: code };
  const { example } = known;
  return {
    ok: false,
    message: `is not a state of ${country}: give its ISO 3166-2 code (such as "${example.code}") or its name (such as "${example.name}")`,
  };
}

/** What an address needs for this: its country and, maybe, its state. */
interface Place {
  country: string;
  state?: string | undefined;
}

export type AddressResult<A> =
  { ok: true; address: A } | { ok: false; field: 'country' | 'state'; message: string };

/**
 * An address as stored: its country an ISO 3166-1 alpha-2 code (the schemas check only its form),
 * its state canonical (`canonicalState`; absent when blank). Its other fields are kept as given.
 */
export function normaliseAddress<A extends Place>(address: A): AddressResult<A> {
  if (!isCountry(address.country)) {
    return { ok: false, field: 'country', message: 'must be an ISO 3166-1 alpha-2 country code' };
  }
  if (address.state === undefined) return { ok: true, address };
  const state = canonicalState(address.country, address.state);
  if (!state.ok) return { ok: false, field: 'state', message: state.message };
  const { state: _given, ...rest } = address;
  return { ok: true, address: (state.state === null ? rest : { ...rest, state: state.state }) as A };
}
