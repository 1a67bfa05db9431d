import { allCountries } from 'country-region-data';
import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * Tax rates' states in the canonical form orders now match them in (src/lib/addresses.ts): where
 * the country's subdivisions are known (country-region-data gives an ISO 3166-2 code for each
 * region), a state that is one of its codes (any case, with or without the country prefix) or
 * names becomes the code (`ca`, `US-CA` and `California` become `CA`); any other state becomes
 * its normalised text (NFKC, invisible characters removed, white space collapsed, trimmed).
 * `state_key` becomes its match key (also upper-cased, without Latin accents).
 *
 * Left as they were: a rate whose state is blank once normalised (it never was the country's own
 * rate), and a rate whose new key another rate of its tenant and country holds (the rate already
 * in canonical form, else the older of two that now mean one state, keeps it; the other matches no
 * address any more and is the merchant's to delete).
 *
 * Frozen: the normalisation below is a copy of src/lib/text-normalise.ts and src/lib/addresses.ts
 * as they were when this migration was written, so later changes to those never change what it
 * did. `down` leaves the states as they are: canonical states are valid states for the earlier
 * release too.
 */

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const SPACING = /[\s\p{Cc}]+/gu;
const ACCENTS = /[\u0300-\u036f]/g;

function normaliseText(text: string): string {
  return text.replace(IGNORABLE, '').normalize('NFKC').replace(IGNORABLE, '').replace(SPACING, ' ').trim();
}

function matchKey(text: string): string {
  return normaliseText(text).toUpperCase().normalize('NFKD').replace(ACCENTS, '').normalize('NFKC');
}

function shortCode(country: string, code: string | undefined): string | null {
  if (code === undefined || code === '' || code === 'undefined') return null;
  const upper = code.toUpperCase();
  return upper.startsWith(`${country}-`) ? upper.slice(country.length + 1) : upper;
}

/** For each country whose subdivisions are known: match key of each code and name, to the code. */
function knownSubdivisions(): Map<string, Map<string, string>> {
  const known = new Map<string, Map<string, string>>();
  for (const [, country, regions] of allCountries) {
    const codes = regions.map(([, code]) => shortCode(country, code));
    if (regions.length === 0 || codes.some((code) => code === null)) continue;
    const byKey = new Map<string, string>();
    regions.forEach(([name], index) => byKey.set(matchKey(name), codes[index] as string));
    for (const code of codes as string[]) {
      byKey.set(matchKey(code), code);
      byKey.set(matchKey(`${country}-${code}`), code);
    }
    known.set(country, byKey);
  }
  return known;
}

interface RateRow {
  id: string;
  tenant_id: string;
  country: string;
  state: string | null;
  state_key: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // SQLite runs migrations outside a transaction: one here, so no reader sees half of it.
    await db.transaction().execute((trx) => normaliseStates(trx));
  } else {
    await normaliseStates(db);
  }
}

export async function down(_db: Kysely<unknown>): Promise<void> {}

async function normaliseStates(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<RateRow>`
    SELECT id, tenant_id, country, state, state_key FROM tax_rates
    ORDER BY tenant_id, country, created, id`.execute(db);
  const known = knownSubdivisions();
  // Each (tenant, country, key) as the table holds it while rows change: no update can collide.
  const place = (row: RateRow, key: string) => `${row.tenant_id}\u0000${row.country}\u0000${key}`;
  const holder = new Map(rows.map((row) => [place(row, row.state_key), row.id]));
  for (const row of rows) {
    if (row.state === null) continue;
    const text = normaliseText(row.state);
    if (text === '') continue;
    const state = known.get(row.country)?.get(matchKey(text)) ?? text;
    const key = matchKey(state);
    if (state === row.state && key === row.state_key) continue;
    const other = holder.get(place(row, key));
    if (other !== undefined && other !== row.id) continue;
    await sql`UPDATE tax_rates SET state = ${state}, state_key = ${key} WHERE id = ${row.id}`.execute(db);
    holder.delete(place(row, row.state_key));
    holder.set(place(row, key), row.id);
  }
}
