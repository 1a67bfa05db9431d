import { type Expression, type ExpressionBuilder, sql } from 'kysely';
import type { Database, PluginInstallationsTable, PluginRatingsTable } from '../../db/schema.js';
import type { DialectName, Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { PluginSort } from './plugins.schemas.js';

type CatalogScope = ExpressionBuilder<Database & { inst: PluginInstallationsTable }, 'plugins' | 'inst'>;

/**
 * The displayed rating in tenths: the average rounded half up, in integer arithmetic
 * (floor((20 * sum + count) / (2 * count)) = floor(10 * sum / count + 1/2)), so sorting and
 * display agree on both dialects.
 */
const ratingTenths = sql<number>`case when plugins.rating_count = 0 then 0 else (20 * plugins.rating_sum + plugins.rating_count) / (2 * plugins.rating_count) end`;

/**
 * Each sort is one key plus the id as tie-breaker, so a cursor is `[key, id]`. `rating` packs the
 * displayed rating and the number of ratings into one integer (a count stays far below 2^32; the
 * result far below 2^53): best rated first, the most rated first among equals. `name` compares
 * lowercase names by code point on both dialects (PostgreSQL's default collation may not).
 */
function sortKey(sort: PluginSort, dialect: DialectName): Expression<string | number> {
  switch (sort) {
    case 'installs':
      return sql<number>`plugins.installs`;
    case 'rating':
      return sql<number>`(${ratingTenths}) * 4294967296 + plugins.rating_count`;
    case 'name':
      return dialect === 'postgres'
        ? sql<string>`lower(plugins.name) collate "C"`
        : sql<string>`lower(plugins.name)`;
  }
}

const DESCENDING: Record<PluginSort, boolean> = { installs: true, rating: true, name: false };

export interface PluginFilter {
  /** Lowercase words; each must occur in one of the searchable fields. */
  words: string[];
  category?: string | undefined;
  installed?: boolean | undefined;
}

function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function matchesWord(eb: CatalogScope, word: string) {
  const pattern = likePattern(word);
  return eb.or(
    ['plugins.name', 'plugins.description', 'plugins.author', 'plugins.slug', 'plugins.category'].map(
      (column) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`,
    ),
  );
}

/** The catalog joined to the tenant's installation (at most one row per plugin). */
function catalog(db: Db, tenantId: string) {
  return db
    .selectFrom('plugins')
    .leftJoin('plugin_installations as inst', (join) =>
      join.onRef('inst.plugin_id', '=', 'plugins.id').on('inst.tenant_id', '=', tenantId),
    );
}

function filtered(db: Db, tenantId: string, filter: PluginFilter) {
  let query = catalog(db, tenantId);
  for (const word of filter.words) query = query.where((eb) => matchesWord(eb, word));
  if (filter.category !== undefined) query = query.where('plugins.category', '=', filter.category);
  if (filter.installed !== undefined)
    query = query.where('inst.installed_at', filter.installed ? 'is not' : 'is', null);
  return query;
}

const PLUGIN_COLUMNS = [
  'plugins.id',
  'plugins.slug',
  'plugins.name',
  'plugins.description',
  'plugins.category',
  'plugins.author',
  'plugins.permissions',
  'plugins.events',
  'plugins.installs',
  'plugins.rating_count',
  'inst.installed_at',
  'inst.granted_permissions',
  'inst.granted_events',
] as const;

export type PluginRow = NonNullable<Awaited<ReturnType<typeof findPlugin>>>;

/** `ref` is an id (`plg_...`) or a slug; slugs never contain `_`. */
function byRef(ref: string) {
  return ref.startsWith('plg_') ? (['plugins.id', ref] as const) : (['plugins.slug', ref] as const);
}

export async function findPlugin(db: Db, tenantId: string, ref: string) {
  const [column, value] = byRef(ref);
  return catalog(db, tenantId)
    .select(PLUGIN_COLUMNS)
    .select(ratingTenths.as('rating_tenths'))
    .where(column, '=', value)
    .executeTakeFirst();
}

export async function listPlugins(
  db: Db,
  dialect: DialectName,
  tenantId: string,
  filter: PluginFilter,
  sort: PluginSort,
  window: PageWindow,
) {
  const key = sortKey(sort, dialect);
  const descending = DESCENDING[sort];
  let query = filtered(db, tenantId, filter)
    .select(PLUGIN_COLUMNS)
    .select([ratingTenths.as('rating_tenths'), sql<string | number>`${key}`.as('sort_key')]);
  if (window.cursor) {
    const [after, afterId] = window.cursor.after;
    const op = descending ? '<' : '>';
    query = query.where((eb) =>
      eb.or([eb(key, op, after), eb.and([eb(key, '=', after), eb('plugins.id', op, afterId)])]),
    );
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  const direction = descending ? 'desc' : 'asc';
  const rows = await query
    .orderBy(key, direction)
    .orderBy('plugins.id', direction)
    .limit(window.limit + 1)
    .execute();
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** The catalog entry alone; on PostgreSQL `lock` takes its row lock until the transaction ends. */
export async function findCatalogEntry(db: Db, ref: string, lock: boolean) {
  const [column, value] = byRef(ref);
  const query = db
    .selectFrom('plugins')
    .select(['plugins.id', 'plugins.permissions', 'plugins.events'])
    .where(column, '=', value);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Inserts the installation unless the tenant has one; true when this call inserted it. */
export async function insertInstallationIfAbsent(db: Db, row: PluginInstallationsTable): Promise<boolean> {
  const result = await db
    .insertInto('plugin_installations')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'plugin_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Deletes the tenant's installation; true when there was one. */
export async function deleteInstallation(db: Db, tenantId: string, pluginId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('plugin_installations')
    .where('tenant_id', '=', tenantId)
    .where('plugin_id', '=', pluginId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function addInstalls(db: Db, pluginId: string, delta: number): Promise<void> {
  await db
    .updateTable('plugins')
    .set((eb) => ({ installs: eb('installs', '+', delta) }))
    .where('id', '=', pluginId)
    .execute();
}

export async function findRating(db: Db, tenantId: string, pluginId: string) {
  return db
    .selectFrom('plugin_ratings')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('plugin_id', '=', pluginId)
    .executeTakeFirst();
}

export async function insertRating(db: Db, row: PluginRatingsTable): Promise<void> {
  await db.insertInto('plugin_ratings').values(row).execute();
}

export async function updateRating(
  db: Db,
  row: Pick<PluginRatingsTable, 'tenant_id' | 'plugin_id' | 'stars' | 'comment' | 'updated'>,
): Promise<void> {
  await db
    .updateTable('plugin_ratings')
    .set({ stars: row.stars, comment: row.comment, updated: row.updated })
    .where('tenant_id', '=', row.tenant_id)
    .where('plugin_id', '=', row.plugin_id)
    .execute();
}

export async function addRatings(db: Db, pluginId: string, starsDelta: number, countDelta: number) {
  await db
    .updateTable('plugins')
    .set((eb) => ({
      rating_sum: eb('rating_sum', '+', starsDelta),
      rating_count: eb('rating_count', '+', countDelta),
    }))
    .where('id', '=', pluginId)
    .execute();
}
