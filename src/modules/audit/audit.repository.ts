import { CompiledQuery, sql } from 'kysely';
import { countList } from '../../db/list-counts.js';
import type { Db, DialectName } from '../../db/store.js';
import type { AuditEntriesTable } from './audit.tables.js';
import { AUDIT_FILTER_LISTS } from './audit.counts.js';

/** Plain queries of the audit log; the caller's `db` is the store or the change's transaction. */

/**
 * Locks the tenant's chain head for the sealer (PostgreSQL: the row lock of the UPDATE, held to the
 * end of the transaction, so a second sealer of the tenant waits and then sees what this one
 * chained; SQLite: the write transaction is already alone) and answers its last seq and hash.
 */
export async function lockChainHead(trx: Db, tenantId: string): Promise<{ seq: number; lastHash: string }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const head = await trx
      .updateTable('audit_chains')
      .set((eb) => ({ seq: eb.ref('seq') }))
      .where('tenant_id', '=', tenantId)
      .returning(['seq', 'last_hash'])
      .executeTakeFirst();
    if (head) return { seq: Number(head.seq), lastHash: head.last_hash };
    // The tenant's first entry: its head, made once (a concurrent first maker's row wins).
    await trx
      .insertInto('audit_chains')
      .values({ tenant_id: tenantId, seq: 0, last_hash: '' })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
  }
  throw new Error(`audit chain head of ${tenantId} could not be taken`);
}

export async function setChainHead(trx: Db, tenantId: string, seq: number, hash: string): Promise<void> {
  await trx
    .updateTable('audit_chains')
    .set({ seq, last_hash: hash })
    .where('tenant_id', '=', tenantId)
    .execute();
}

/** Tenants with entries still to chain. */
export async function unsealedTenants(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_entries')
    .select('tenant_id')
    .distinct()
    .where('seq', 'is', null)
    .limit(limit)
    .execute();
  return rows.map((row) => row.tenant_id);
}

/** The tenant's oldest unsealed entries, in insertion (id) order. */
export async function unsealedEntries(
  trx: Db,
  tenantId: string,
  limit: number,
): Promise<AuditEntriesTable[]> {
  return trx
    .selectFrom('audit_entries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('seq', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * The statements every audited change and every sealed entry runs, written once per dialect and
 * row count rather than built by the query builder each time (building an insert of 18 columns
 * cost more than running it).
 */
const COLUMNS = [
  'id',
  'tenant_id',
  'seq',
  'created',
  'actor_type',
  'actor_id',
  'actor_name',
  'action',
  'resource_type',
  'resource_id',
  'changes',
  'snapshot',
  'request_id',
  'ip',
  'livemode',
  'content_digest',
  'redacted',
  'hash',
] as const satisfies readonly (keyof AuditEntriesTable)[];

/**
 * The text of `rows` value tuples, `width` placeholders each, for a statement whose parameters are
 * the rows' values one row after another: `($1, $2), ($3, $4)` on PostgreSQL, `(?, ?), (?, ?)` on
 * SQLite. `cast[i]`, on PostgreSQL, types the first row's `i`th cell (`$1::text`): a `VALUES` list
 * takes its columns' types from its first row.
 */
function valueTuples(
  dialect: DialectName,
  rows: number,
  width: number,
  cast: readonly (string | null)[] = [],
): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const cells: string[] = [];
    for (let i = 0; i < width; i++) {
      const type = dialect === 'postgres' && row === 0 ? cast[i] : undefined;
      const cell = dialect === 'sqlite' ? '?' : `$${row * width + i + 1}`;
      cells.push(type ? `${cell}::${type}` : cell);
    }
    tuples.push(`(${cells.join(', ')})`);
  }
  return tuples.join(', ');
}

const insertSql = new Map<string, string>();
function insertSqlOf(dialect: DialectName, rows: number): string {
  const key = `${dialect}:${rows}`;
  let text = insertSql.get(key);
  if (text === undefined) {
    text = `INSERT INTO audit_entries (${COLUMNS.join(', ')}) VALUES ${valueTuples(dialect, rows, COLUMNS.length)}`;
    // A few sizes recur (one entry, an order's handful); an import's odd batches are not kept.
    if (insertSql.size < 64) insertSql.set(key, text);
  }
  return text;
}

/** An entry's place in its chain, as the sealer gives it. */
export interface SealedEntry {
  id: string;
  seq: number;
  hash: string;
  changes: string;
  content_digest: string;
}

/** The columns of a `SealedEntry`, in the order each row of `sealSqlOf`'s values lists them. */
const SEALED = ['id', 'seq', 'hash', 'changes', 'content_digest'] as const;

/**
 * One statement giving each entry of a batch its place: an `UPDATE` joined to the batch's values
 * (SQLite names them column1...column5; PostgreSQL by the list after the alias, the first row
 * typed so the others follow).
 */
function sealSqlOf(dialect: DialectName, rows: number): string {
  const values = valueTuples(dialect, rows, SEALED.length, ['text', 'bigint']);
  return dialect === 'sqlite'
    ? `UPDATE audit_entries SET seq = v.column2, hash = v.column3, changes = v.column4, content_digest = v.column5
        FROM (VALUES ${values}) AS v WHERE audit_entries.id = v.column1`
    : `UPDATE audit_entries AS e SET seq = v.seq, hash = v.hash, changes = v.changes, content_digest = v.content_digest
        FROM (VALUES ${values}) AS v (id, seq, hash, changes, content_digest) WHERE e.id = v.id`;
}

/** Entries one sealing statement places at most (5 values each). */
const SEAL_STATEMENT_ROWS = 500;

/** Gives each entry of a batch its `seq`, `hash`, `changes` and `content_digest`, in one statement per 500. */
export async function sealEntries(
  trx: Db,
  dialect: DialectName,
  sealed: readonly SealedEntry[],
): Promise<void> {
  for (let at = 0; at < sealed.length; at += SEAL_STATEMENT_ROWS) {
    const batch = sealed.slice(at, at + SEAL_STATEMENT_ROWS);
    const values: unknown[] = [];
    for (const entry of batch) for (const column of SEALED) values.push(entry[column]);
    await trx.executeQuery(CompiledQuery.raw(sealSqlOf(dialect, batch.length), values));
  }
}

/** Entries one statement inserts at most (an import's batch of events may be thousands). */
const INSERT_BATCH = 500;

export async function insertEntries(
  trx: Db,
  dialect: DialectName,
  rows: readonly AuditEntriesTable[],
): Promise<void> {
  for (let at = 0; at < rows.length; at += INSERT_BATCH) {
    const batch = rows.slice(at, at + INSERT_BATCH);
    const values: unknown[] = [];
    for (const row of batch) for (const column of COLUMNS) values.push(row[column]);
    await trx.executeQuery(CompiledQuery.raw(insertSqlOf(dialect, batch.length), values));
  }
}

/**
 * Each resource's state as its last sealed entry left it (the chain's order), in one query: a
 * resource without a sealed entry is absent from the answer.
 */
export async function lastSnapshots(
  trx: Db,
  tenantId: string,
  resourceIds: readonly string[],
): Promise<Map<string, string | null>> {
  if (resourceIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('audit_entries as e')
    .select(['e.resource_id', 'e.snapshot'])
    .where('e.tenant_id', '=', tenantId)
    .where('e.resource_id', 'in', resourceIds)
    .where('e.seq', 'is not', null)
    .where('e.seq', '=', (eb) =>
      eb
        .selectFrom('audit_entries as l')
        .select((l) => l.fn.max('l.seq').as('seq'))
        .where('l.tenant_id', '=', tenantId)
        .whereRef('l.resource_id', '=', 'e.resource_id')
        .where('l.seq', 'is not', null),
    )
    .execute();
  return new Map(rows.map((row) => [row.resource_id, row.snapshot]));
}

/** The object of the object's last event before `before` (ms): its state before the log knew it. */
export async function lastEventObjectBefore(
  trx: Db,
  tenantId: string,
  objectId: string,
  before: number,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('events')
    .select('data')
    .where('tenant_id', '=', tenantId)
    .where('object_id', '=', objectId)
    .where('created', '<', before)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.data;
}

export interface AuditFilter {
  resourceId?: string | undefined;
  actorId?: string | undefined;
  action?: string | undefined;
  requestId?: string | undefined;
  /** Time bounds (ms), inclusive, from `from` and `to`. */
  from?: number | undefined;
  to?: number | undefined;
}

type Page = { limit: number; offset: number; before: { created: number; id: string } | undefined };

/**
 * The page's query of one part of the log: the sealed entries (`seq IS NOT NULL`, which lets both
 * stores use the list's partial indexes, migration 0068) or the unsealed (their own small index).
 * `limit + 1` rows after `before` (a cursor's) or from `offset`, newest first by (created, id).
 */
export function pageQuery(db: Db, tenantId: string, filter: AuditFilter, sealed: boolean, page: Page) {
  let query = filtered(db, tenantId, filter, sealed).selectAll();
  const before = page.before;
  // A row-value seek, (created, id) < (...): both stores walk the index from there (an OR of the
  // two cases made SQLite scan the tenant's entries up to the cursor).
  if (before !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('created', 'id'), '<', eb.tuple(before.created, before.id)));
  } else if (page.offset > 0) query = query.offset(page.offset);
  return query
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
}

/**
 * One page, newest first by (created, id) (ids of one time sort in insertion order): `limit + 1`
 * rows after `before` (a cursor's) or from `offset`. Sealed or not: the list needs no seal. One
 * statement, so one snapshot of the log: each part reads as many rows as the page could take from
 * it on its own index (the sealed entries' and the small one of those not sealed yet, about a
 * second's), and the two are merged. Read apart, an entry the sealer sealed between the two reads
 * would be in both.
 */
export async function listEntries(
  db: Db,
  tenantId: string,
  filter: AuditFilter,
  page: Page,
): Promise<AuditEntriesTable[]> {
  const reach = page.before ? page : { ...page, limit: page.offset + page.limit, offset: 0 };
  const part = (sealed: boolean) =>
    db
      .selectFrom(pageQuery(db, tenantId, filter, sealed, reach).as(sealed ? 'sealed' : 'unsealed'))
      .selectAll();
  const query = part(true)
    .unionAll(part(false))
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  return (page.before || page.offset === 0 ? query : query.offset(page.offset)).execute();
}

/**
 * How many entries `filter` selects. Unfiltered: the chain head's place (every sealed entry; none
 * is ever deleted) plus the few not sealed yet (their partial index), so the whole log's count
 * costs the same at any size; by `action` or `actor_id` alone: the sealed ones' kept count
 * (audit.counts.ts) plus the unsealed ones that match, on the same partial index; other filters
 * (a resource's entries, a time range, filters together) count their sealed rows on their own
 * index and the unsealed ones on theirs, in one statement.
 */
export async function countEntries(db: Db, tenantId: string, filter: AuditFilter): Promise<number> {
  const given = Object.entries(filter).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    const { rows } = await sql<{ n: number | string }>`SELECT
      COALESCE((SELECT seq FROM audit_chains WHERE tenant_id = ${tenantId}), 0) +
      (SELECT COUNT(*) FROM audit_entries WHERE tenant_id = ${tenantId} AND seq IS NULL) AS n`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  if (given.length === 1 && (filter.action !== undefined || filter.actorId !== undefined)) {
    const [list, column, key] =
      filter.action !== undefined
        ? [AUDIT_FILTER_LISTS.action, 'action', filter.action]
        : [AUDIT_FILTER_LISTS.actorId, 'actor_id', filter.actorId as string];
    // The sealed ones' kept count and the unsealed ones that match, in one statement.
    const unsealed = sql`SELECT COUNT(*) FROM audit_entries
      WHERE tenant_id = ${tenantId} AND seq IS NULL AND ${sql.ref(column)} = ${key}`;
    return countList(db, tenantId, list, { only: key }, unsealed);
  }
  const count = (sealed: boolean) =>
    filtered(db, tenantId, filter, sealed).select((eb) => eb.fn.countAll<number>().as('n'));
  const { rows } = await sql<{
    n: number | string;
  }>`SELECT (${count(true)}) + (${count(false)}) AS n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

function filtered(db: Db, tenantId: string, filter: AuditFilter, sealed: boolean) {
  let query = db
    .selectFrom('audit_entries')
    .where('tenant_id', '=', tenantId)
    .where('seq', sealed ? 'is not' : 'is', null);
  if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

/** The tenant's chain head: its last seq and hash (0 and '' before any entry). */
export async function chainHead(db: Db, tenantId: string): Promise<{ seq: number; lastHash: string }> {
  const row = await db
    .selectFrom('audit_chains')
    .select(['seq', 'last_hash'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return { seq: Number(row?.seq ?? 0), lastHash: row?.last_hash ?? '' };
}

/** Entries in chain order after `afterSeq`, `limit` at a time (verify and the export). */
export async function entriesAfter(
  db: Db,
  tenantId: string,
  afterSeq: number,
  limit: number,
): Promise<AuditEntriesTable[]> {
  return db
    .selectFrom('audit_entries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('seq', 'is not', null)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}
