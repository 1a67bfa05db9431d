import type { Db, Store } from '../../db/store.js';
import type { AuditRecorder } from '../audit/index.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { canonicalState } from '../../lib/addresses.js';
import { isCountry } from '../../lib/countries.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { newestFirstEnvelope, pageWindow } from '../../lib/paging.js';
import { ANY_COUNTRY, bandsOverlap, countriesOverlap, stateKey } from './pricing.rules.js';
import * as repo from './rates.repository.js';
import type {
  CreateShippingRateBody,
  CreateTaxRateBody,
  ShippingRateListQuery,
  ShippingRateObject,
  TaxRateListQuery,
  TaxRateObject,
  UpdateShippingRateBody,
  UpdateTaxRateBody,
} from './rates.schemas.js';

/**
 * Shipping rates and tax rates: create, read, change, delete and list. Which rate an order gets is
 * pricing.choose.ts's; these keep the rates such that the choice is never ambiguous where it must
 * not be: a tax rate per (country, state), and no two shipping rates that could both be the one
 * for a parcel of one weight to one country in one currency.
 */

export function presentShippingRate(row: repo.ShippingRateRow): ShippingRateObject {
  return {
    id: row.id,
    name: row.name,
    countries: JSON.parse(row.countries) as string[],
    price: row.price,
    currency: row.currency,
    free_over: row.free_over,
    min_weight_grams: row.min_weight_grams,
    max_weight_grams: row.max_weight_grams,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

export function presentTaxRate(row: repo.TaxRateRow): TaxRateObject {
  return {
    id: row.id,
    name: row.name,
    country: row.country,
    state: row.state,
    rate_bps: row.rate_bps,
    inclusive: row.inclusive === 1,
    shipping_taxable: row.shipping_taxable === 1,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

/**
 * A shipping rate's own rules, each failure naming its field: every country an ISO 3166-1 alpha-2
 * code, or `*` alone; `min_weight_grams` at most `max_weight_grams`.
 */
function checkShippingRate(row: repo.ShippingRateRow): void {
  const errors: FieldError[] = [];
  const countries = JSON.parse(row.countries) as string[];
  countries.forEach((country, index) => {
    if (country === ANY_COUNTRY) {
      if (countries.length > 1) {
        errors.push({
          field: `countries[${index}]`,
          message: 'must be the only entry: `*` is every country',
        });
      }
    } else if (!isCountry(country)) {
      errors.push({ field: `countries[${index}]`, message: 'must be an ISO 3166-1 alpha-2 country code' });
    }
  });
  if (
    row.min_weight_grams !== null &&
    row.max_weight_grams !== null &&
    row.min_weight_grams > row.max_weight_grams
  ) {
    errors.push({ field: 'min_weight_grams', message: 'must not be more than max_weight_grams' });
  }
  if (errors.length > 0) throw validationFailed(errors);
}

function band(row: repo.ShippingRateRow): string {
  const low = row.min_weight_grams ?? 0;
  return row.max_weight_grams === null ? `${low} g and up` : `${low}-${row.max_weight_grams} g`;
}

/** The countries two overlapping rates share, in words. */
function where(countries: readonly string[], other: repo.ShippingRateRow): string {
  const shared = countries.filter((country) => (JSON.parse(other.countries) as string[]).includes(country));
  return shared.includes(ANY_COUNTRY) ? 'the rest of the world' : shared.join(', ');
}

/**
 * Refuses `row` when another rate of the same name (one shipping method, compared
 * case-insensitively) in its currency names one of its countries (or both are for the rest of the
 * world) and takes a weight its band takes: the method's price for a parcel would be ambiguous.
 * Rates of different names are different methods (Standard and Express) and may serve the same
 * parcels: the buyer picks one by `shipping_rate_id`, or gets the cheapest. Runs under the
 * tenant's lock, so two concurrent writes cannot each miss the other.
 */
async function checkOverlap(trx: Db, row: repo.ShippingRateRow): Promise<void> {
  const countries = JSON.parse(row.countries) as string[];
  for (const other of await repo.shippingRatesIn(trx, row.tenant_id, row.currency)) {
    if (other.id === row.id || other.name.toLowerCase() !== row.name.toLowerCase()) continue;
    if (!countriesOverlap(countries, JSON.parse(other.countries) as string[])) continue;
    if (!bandsOverlap(row, other)) continue;
    throw new AppError(
      'shipping_rate_overlap',
      `The shipping rate ${other.id} ("${other.name}", ${band(other)}) already prices parcels of these weights in ${row.currency} to ${where(countries, other)}; give the rates of one name weight bands that do not overlap (bounds are inclusive), different countries, or another name.`,
      { extra: { conflicting_rate_id: other.id } },
    );
  }
}

function duplicateTaxRate(row: repo.TaxRateRow, other?: repo.TaxRateRow): AppError {
  const place = row.state === null ? row.country : `${row.state}, ${row.country}`;
  return new AppError(
    'duplicate_tax_rate',
    `There is already a tax rate for ${place}${other ? ` (${other.id})` : ''}; change that one instead.`,
    other ? { extra: { conflicting_rate_id: other.id } } : {},
  );
}

/**
 * A tax rate's state as stored (src/lib/addresses.ts, as addresses' states are): the ISO 3166-2
 * code where the country's subdivisions are known (given as the code or the region's name), else
 * the normalised text; null for the whole country. `400` naming `state` for a state the country
 * does not have, or one that is blank once invisible characters are removed.
 */
function taxState(country: string, state: string | null | undefined): string | null {
  if (state === null || state === undefined) return null;
  const canonical = canonicalState(country, state);
  if (!canonical.ok) throw validationFailed([{ field: 'state', message: canonical.message }]);
  if (canonical.state === null) {
    throw validationFailed([
      {
        field: 'state',
        message: 'must not be blank once invisible characters are removed; null is the whole country',
      },
    ]);
  }
  return canonical.state;
}

export type ShippingRateService = ReturnType<typeof createShippingRateService>;

export function createShippingRateService(deps: { store: Store; clock: Clock; audit: AuditRecorder }) {
  const { store, clock } = deps;

  async function get(tenantId: string, id: string): Promise<ShippingRateObject> {
    const row = await repo.findShippingRate(store.db, tenantId, id);
    if (!row) throw notFound('shipping rate');
    return presentShippingRate(row);
  }

  return {
    get,

    async create(
      tenantId: string,
      input: CreateShippingRateBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ShippingRateObject> {
      if (idempotent.committed !== null) return get(tenantId, idempotent.committed);
      const now = clock.now();
      const row: repo.ShippingRateRow = {
        id: newId('shr'),
        tenant_id: tenantId,
        name: input.name,
        countries: JSON.stringify(input.countries),
        price: input.price,
        currency: input.currency,
        free_over: input.free_over ?? null,
        min_weight_grams: input.min_weight_grams ?? null,
        max_weight_grams: input.max_weight_grams ?? null,
        created: now,
        updated: now,
      };
      checkShippingRate(row);
      await store.transaction(async (trx) => {
        await repo.lockTenant(trx, tenantId);
        await checkOverlap(trx, row);
        await repo.insertShippingRate(trx, row);
        await idempotent.mark(trx, row.id);
        await deps.audit.record(trx, {
          tenantId,
          action: 'shipping_rate.created',
          resource: { type: 'shipping_rate', id: row.id },
          before: null,
          after: presentShippingRate(row),
        });
      });
      return presentShippingRate(row);
    },

    /** Only the fields given change; the result keeps the rules and overlaps no other rate. */
    async update(tenantId: string, id: string, input: UpdateShippingRateBody): Promise<ShippingRateObject> {
      const changes: Partial<repo.ShippingRateRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.countries !== undefined) changes.countries = JSON.stringify(input.countries);
      if (input.price !== undefined) changes.price = input.price;
      if (input.currency !== undefined) changes.currency = input.currency;
      if (input.free_over !== undefined) changes.free_over = input.free_over;
      if (input.min_weight_grams !== undefined) changes.min_weight_grams = input.min_weight_grams;
      if (input.max_weight_grams !== undefined) changes.max_weight_grams = input.max_weight_grams;
      const row = await store.transaction(async (trx) => {
        await repo.lockTenant(trx, tenantId);
        const before = await repo.findShippingRate(trx, tenantId, id);
        if (!before) throw notFound('shipping rate');
        const changed = Object.fromEntries(
          Object.entries(changes).filter(
            ([key, value]) => before[key as keyof repo.ShippingRateRow] !== value,
          ),
        ) as Partial<repo.ShippingRateRow>;
        if (Object.keys(changed).length === 0) return before;
        const after: repo.ShippingRateRow = { ...before, ...changed, updated: clock.now() };
        checkShippingRate(after);
        await checkOverlap(trx, after);
        await repo.updateShippingRate(trx, tenantId, id, { ...changed, updated: after.updated });
        await deps.audit.record(trx, {
          tenantId,
          action: 'shipping_rate.updated',
          resource: { type: 'shipping_rate', id },
          before: presentShippingRate(before),
          after: presentShippingRate(after),
        });
        return after;
      });
      return presentShippingRate(row);
    },

    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findShippingRate(trx, tenantId, id);
        if (!row) throw notFound('shipping rate');
        await repo.deleteShippingRate(trx, tenantId, id);
        await deps.audit.record(trx, {
          tenantId,
          action: 'shipping_rate.deleted',
          resource: { type: 'shipping_rate', id },
          before: presentShippingRate(row),
          after: null,
        });
      });
    },

    async list(tenantId: string, query: ShippingRateListQuery) {
      const window = pageWindow(query, 'created');
      const filter = { currency: query.currency };
      const [rows, total] = await Promise.all([
        repo.listShippingRates(store.db, tenantId, filter, window),
        repo.countShippingRates(store.db, tenantId, filter),
      ]);
      return newestFirstEnvelope(rows, total, window, presentShippingRate);
    },
  };
}

export type TaxRateService = ReturnType<typeof createTaxRateService>;

export function createTaxRateService(deps: { store: Store; clock: Clock; audit: AuditRecorder }) {
  const { store, clock } = deps;

  async function get(tenantId: string, id: string): Promise<TaxRateObject> {
    const row = await repo.findTaxRate(store.db, tenantId, id);
    if (!row) throw notFound('tax rate');
    return presentTaxRate(row);
  }

  function checkCountry(country: string | undefined): void {
    if (country !== undefined && !isCountry(country)) {
      throw validationFailed([{ field: 'country', message: 'must be an ISO 3166-1 alpha-2 country code' }]);
    }
  }

  /** A second rate for one (country, state): 409, whether seen first or refused by the unique index. */
  async function guardPlace<T>(row: () => repo.TaxRateRow, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateTaxRate(row());
      throw error;
    }
  }

  return {
    get,

    async create(
      tenantId: string,
      input: CreateTaxRateBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<TaxRateObject> {
      if (idempotent.committed !== null) return get(tenantId, idempotent.committed);
      checkCountry(input.country);
      const state = taxState(input.country, input.state);
      const now = clock.now();
      const row: repo.TaxRateRow = {
        id: newId('txr'),
        tenant_id: tenantId,
        name: input.name,
        country: input.country,
        state,
        state_key: stateKey(state),
        rate_bps: input.rate_bps,
        inclusive: input.inclusive ? 1 : 0,
        shipping_taxable: input.shipping_taxable ? 1 : 0,
        created: now,
        updated: now,
      };
      await guardPlace(
        () => row,
        () =>
          store.transaction(async (trx) => {
            const other = await repo.findTaxRateFor(trx, tenantId, row.country, row.state_key);
            if (other) throw duplicateTaxRate(row, other);
            await repo.insertTaxRate(trx, row);
            await idempotent.mark(trx, row.id);
            await deps.audit.record(trx, {
              tenantId,
              action: 'tax_rate.created',
              resource: { type: 'tax_rate', id: row.id },
              before: null,
              after: presentTaxRate(row),
            });
          }),
      );
      return presentTaxRate(row);
    },

    async update(tenantId: string, id: string, input: UpdateTaxRateBody): Promise<TaxRateObject> {
      checkCountry(input.country);
      const changes: Partial<repo.TaxRateRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.country !== undefined) changes.country = input.country;
      if (input.rate_bps !== undefined) changes.rate_bps = input.rate_bps;
      if (input.inclusive !== undefined) changes.inclusive = input.inclusive ? 1 : 0;
      if (input.shipping_taxable !== undefined) changes.shipping_taxable = input.shipping_taxable ? 1 : 0;
      let after: repo.TaxRateRow | undefined;
      const row = await guardPlace(
        () => after as repo.TaxRateRow, // set before any write that the index could refuse
        () =>
          store.transaction(async (trx) => {
            const before = await repo.findTaxRate(trx, tenantId, id);
            if (!before) throw notFound('tax rate');
            const wanted = { ...changes };
            if (input.country !== undefined || input.state !== undefined) {
              // The state is canonical for the country the rate will have, given or kept.
              const state = taxState(
                input.country ?? before.country,
                input.state === undefined ? before.state : input.state,
              );
              wanted.state = state;
              wanted.state_key = stateKey(state);
            }
            const changed = Object.fromEntries(
              Object.entries(wanted).filter(([key, value]) => before[key as keyof repo.TaxRateRow] !== value),
            ) as Partial<repo.TaxRateRow>;
            if (Object.keys(changed).length === 0) return before;
            after = { ...before, ...changed, updated: clock.now() };
            if (changed.country !== undefined || changed.state_key !== undefined) {
              const other = await repo.findTaxRateFor(trx, tenantId, after.country, after.state_key);
              if (other && other.id !== id) throw duplicateTaxRate(after, other);
            }
            await repo.updateTaxRate(trx, tenantId, id, { ...changed, updated: after.updated });
            await deps.audit.record(trx, {
              tenantId,
              action: 'tax_rate.updated',
              resource: { type: 'tax_rate', id },
              before: presentTaxRate(before),
              after: presentTaxRate(after),
            });
            return after;
          }),
      );
      return presentTaxRate(row);
    },

    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findTaxRate(trx, tenantId, id);
        if (!row) throw notFound('tax rate');
        await repo.deleteTaxRate(trx, tenantId, id);
        await deps.audit.record(trx, {
          tenantId,
          action: 'tax_rate.deleted',
          resource: { type: 'tax_rate', id },
          before: presentTaxRate(row),
          after: null,
        });
      });
    },

    async list(tenantId: string, query: TaxRateListQuery) {
      const window = pageWindow(query, 'created');
      const filter = { country: query.country };
      const [rows, total] = await Promise.all([
        repo.listTaxRates(store.db, tenantId, filter, window),
        repo.countTaxRates(store.db, tenantId, filter),
      ]);
      return newestFirstEnvelope(rows, total, window, presentTaxRate);
    },
  };
}
