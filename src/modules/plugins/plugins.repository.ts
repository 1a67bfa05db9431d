import { type Expression, type ExpressionBuilder, sql } from 'kysely';
import type {
  Database,
  PluginInstallationsTable,
  PluginRatingsTable,
  PluginRevisionsTable,
  PluginsTable,
} from '../../db/schema.js';
import type { DialectName, Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { PluginSort } from './plugins.schemas.js';

type CatalogScope = ExpressionBuilder<
  Database & { inst: PluginInstallationsTable; mine: PluginRatingsTable; rev: PluginRevisionsTable },
  'plugins' | 'inst' | 'mine' | 'rev'
>;

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
  owned?: boolean | undefined;
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

/**
 * The plugins the tenant may see (published ones and its own), joined to its active installation,
 * its rating and, for its own plugins only, their revision (at most one row each per plugin).
 */
function catalog(db: Db, tenantId: string) {
  return db
    .selectFrom('plugins')
    .leftJoin('plugin_installations as inst', (join) =>
      join
        .onRef('inst.plugin_id', '=', 'plugins.id')
        .on('inst.tenant_id', '=', tenantId)
        .on('inst.uninstalled_at', 'is', null),
    )
    .leftJoin('plugin_ratings as mine', (join) =>
      join.onRef('mine.plugin_id', '=', 'plugins.id').on('mine.tenant_id', '=', tenantId),
    )
    .leftJoin('plugin_revisions as rev', (join) =>
      join.onRef('rev.plugin_id', '=', 'plugins.id').on('plugins.owner_tenant_id', '=', tenantId),
    )
    .where((eb) =>
      eb.or([eb('plugins.status', '=', 'published'), eb('plugins.owner_tenant_id', '=', tenantId)]),
    );
}

function filtered(db: Db, tenantId: string, filter: PluginFilter) {
  let query = catalog(db, tenantId);
  if (filter.owned !== undefined)
    query = filter.owned
      ? query.where('plugins.owner_tenant_id', '=', tenantId)
      : query.where((eb) =>
          eb.or([eb('plugins.owner_tenant_id', 'is', null), eb('plugins.owner_tenant_id', '<>', tenantId)]),
        );
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
  'plugins.status',
  'plugins.homepage_url',
  'plugins.owner_tenant_id',
  'plugins.webhook_url',
  'plugins.rejection_reason',
  'plugins.runtime',
  'inst.id as installation_id',
  'inst.installed_at',
  'inst.permissions as granted_permissions',
  'inst.events as granted_events',
  'inst.pending_permissions',
  'inst.pending_events',
  'mine.stars as my_rating',
  'rev.changes as revision_changes',
  'rev.status as revision_status',
  'rev.rejection_reason as revision_rejection_reason',
  'rev.created as revision_created',
  'rev.updated as revision_updated',
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

/**
 * The plugin behind `ref` if `tenantId` may see it (published, or its own), with what installing
 * needs; on PostgreSQL `lock` takes its row lock until the transaction ends.
 */
export async function findCatalogEntry(db: Db, tenantId: string, ref: string, lock: boolean) {
  const [column, value] = byRef(ref);
  const query = db
    .selectFrom('plugins')
    .selectAll()
    .where(column, '=', value)
    .where((eb) => eb.or([eb('status', '=', 'published'), eb('owner_tenant_id', '=', tenantId)]));
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** A plugin by id, whoever may see it (the operator's review, the first-party runtimes). */
export async function findPluginById(db: Db, id: string, lock = false) {
  const query = db.selectFrom('plugins').selectAll().where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The plugins served in process by a first-party runtime. */
export async function firstPartyPlugins(db: Db) {
  return db.selectFrom('plugins').selectAll().where('runtime', 'is not', null).orderBy('id').execute();
}

export async function insertPlugin(db: Db, row: PluginsTable): Promise<void> {
  await db.insertInto('plugins').values(row).execute();
}

export type PluginChanges = Partial<
  Pick<
    PluginsTable,
    | 'name'
    | 'description'
    | 'category'
    | 'permissions'
    | 'events'
    | 'webhook_url'
    | 'homepage_url'
    | 'status'
    | 'rejection_reason'
  >
>;

export async function updatePlugin(db: Db, id: string, changes: PluginChanges, now: number): Promise<void> {
  await db
    .updateTable('plugins')
    .set({ ...changes, updated: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Inserts the installation unless the tenant has one active (the partial unique index of
 * migration 0028); true when this call inserted it.
 */
export async function insertInstallationIfAbsent(db: Db, row: PluginInstallationsTable): Promise<boolean> {
  const result = await db
    .insertInto('plugin_installations')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'plugin_id']).where('uninstalled_at', 'is', null).doNothing(),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The tenant's active installation of the plugin; on PostgreSQL `lock` takes its row lock. */
export async function findActiveInstallation(db: Db, tenantId: string, pluginId: string, lock = false) {
  const query = db
    .selectFrom('plugin_installations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('plugin_id', '=', pluginId)
    .where('uninstalled_at', 'is', null);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Every active installation of the plugin, oldest first; on PostgreSQL `lock` locks them all. */
export async function activeInstallationsOf(db: Db, pluginId: string, lock = false) {
  const query = db
    .selectFrom('plugin_installations')
    .select(['id', 'tenant_id', 'permissions', 'events', 'endpoint_id'])
    .where('plugin_id', '=', pluginId)
    .where('uninstalled_at', 'is', null)
    .orderBy('installed_at')
    .orderBy('id');
  return (lock ? query.forUpdate() : query).execute();
}

/** An installation's grant, and what waits for its store's acceptance (null: nothing). */
export async function setGrant(
  db: Db,
  installationId: string,
  grant: Pick<PluginInstallationsTable, 'permissions' | 'events' | 'pending_permissions' | 'pending_events'>,
): Promise<void> {
  await db.updateTable('plugin_installations').set(grant).where('id', '=', installationId).execute();
}

/** The plugin's revision (pending or rejected); on PostgreSQL `lock` takes its row lock. */
export async function findRevision(db: Db, pluginId: string, lock = false) {
  const query = db.selectFrom('plugin_revisions').selectAll().where('plugin_id', '=', pluginId);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function insertRevision(db: Db, row: PluginRevisionsTable): Promise<void> {
  await db.insertInto('plugin_revisions').values(row).execute();
}

export async function updateRevision(
  db: Db,
  pluginId: string,
  changes: Partial<Omit<PluginRevisionsTable, 'plugin_id' | 'created'>>,
): Promise<void> {
  await db.updateTable('plugin_revisions').set(changes).where('plugin_id', '=', pluginId).execute();
}

export async function deleteRevision(db: Db, pluginId: string): Promise<void> {
  await db.deleteFrom('plugin_revisions').where('plugin_id', '=', pluginId).execute();
}

/** Ends the installation (its token stops at this commit); true when it was active. */
export async function endInstallation(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('plugin_installations')
    .set({ uninstalled_at: now })
    .where('id', '=', id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether the tenant has ever installed the plugin (ratings come only from such stores). */
export async function everInstalled(db: Db, tenantId: string, pluginId: string): Promise<boolean> {
  const row = await db
    .selectFrom('plugin_installations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('plugin_id', '=', pluginId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

function activeInstallations(db: Db, pluginId: string) {
  return db
    .selectFrom('plugin_installations as i')
    .innerJoin('tenants as t', 't.id', 'i.tenant_id')
    .where('i.plugin_id', '=', pluginId)
    .where('i.uninstalled_at', 'is', null);
}

/** A plugin's active installations with their stores, newest first (its publisher's view). */
export async function listInstallations(db: Db, pluginId: string, window: PageWindow) {
  let query = activeInstallations(db, pluginId).select([
    'i.id',
    'i.tenant_id',
    't.name as store_name',
    'i.installed_at',
  ]);
  if (window.cursor) {
    const [at, id] = window.cursor.after;
    query = query.where((eb) =>
      eb(eb.refTuple('i.installed_at', 'i.id'), '<', eb.tuple(Number(at), String(id))),
    );
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  const rows = await query
    .orderBy('i.installed_at', 'desc')
    .orderBy('i.id', 'desc')
    .limit(window.limit + 1)
    .execute();
  const { n } = await activeInstallations(db, pluginId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
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
