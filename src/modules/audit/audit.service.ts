import { Readable } from 'node:stream';
import type { Store } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import { validationError } from '../../lib/errors.js';
import { type Envelope, envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { ActorType } from './audit.context.js';
import { type ChainBreak, verifyRun } from './audit.chain.js';
import type { Changes } from './audit.recorder.js';
import * as repo from './audit.repository.js';
import { createAuditSealer } from './audit.sealer.js';
import type { AuditEntriesTable } from './audit.tables.js';

/** Reading the audit log: the list and its filters, the export, and the chain's check. */

export interface AuditEntry {
  id: string;
  time: string;
  actor: { type: ActorType; id: string | null; name: string | null };
  action: string;
  resource: { type: string; id: string };
  /** null until sealed, for a change that did not know the previous state (the sealer diffs it). */
  changes: Changes | null;
  request_id: string | null;
  ip: string | null;
  livemode: boolean;
  /** null until the sealer chains it (about a second after its change). */
  hash: string | null;
}

export type AuditListQuery = PageQuery & {
  resource_id?: string | undefined;
  actor_id?: string | undefined;
  action?: string | undefined;
  request_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
};

/** An entry as a version of the API shows it (`GET /audit-log` renders each the same way). */
export type RenderEntry = (entry: AuditEntry) => Record<string, unknown>;

export interface ChainReport {
  ok: boolean;
  tenant_id: string;
  /** Entries whose hash was checked. */
  checked: number;
  /** The first entry that breaks the chain. */
  broken: ChainBreak | null;
}

export interface AuditLog {
  list(tenantId: string, query: AuditListQuery): Promise<Envelope<AuditEntry>>;
  /**
   * Every entry, oldest first, as CSV or JSON Lines, each as `render` shapes it (the caller's API
   * version: an older one has no `livemode`, as in the list); a CSV has the columns of what it keeps.
   */
  export(tenantId: string, format: 'csv' | 'jsonl', render?: RenderEntry): Readable;
  /** Seals what is left to chain of the tenant's entries, then checks its chain. */
  verify(tenantId: string): Promise<ChainReport>;
}

export function presentEntry(row: AuditEntriesTable): AuditEntry {
  return {
    id: row.id,
    time: iso(Number(row.created)),
    actor: { type: row.actor_type as ActorType, id: row.actor_id, name: row.actor_name },
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id },
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Changes),
    request_id: row.request_id,
    ip: row.ip,
    livemode: Number(row.livemode) === 1,
    hash: row.hash,
  };
}

const EXPORT_PAGE = 500;
const VERIFY_PAGE = 1_000;

export const EXPORT_COLUMNS = [
  'id',
  'time',
  'actor_type',
  'actor_id',
  'actor_name',
  'action',
  'resource_type',
  'resource_id',
  'changes',
  'request_id',
  'ip',
  'livemode',
  'hash',
] as const;

/** The entry's field a CSV column comes from (`actor_type` from `actor`). */
function sourceOf(column: (typeof EXPORT_COLUMNS)[number]): string {
  if (column.startsWith('actor_')) return 'actor';
  if (column.startsWith('resource_')) return 'resource';
  return column;
}

/** The CSV columns of the entries `render` shapes: those whose field it keeps. */
function columnsOf(render: RenderEntry): (typeof EXPORT_COLUMNS)[number][] {
  const sample = render({
    id: '',
    time: '',
    actor: { type: 'system', id: null, name: null },
    action: '',
    resource: { type: '', id: '' },
    changes: null,
    request_id: null,
    ip: null,
    livemode: true,
    hash: null,
  });
  return EXPORT_COLUMNS.filter((column) => sourceOf(column) in sample);
}

/** A CSV cell (RFC 4180), text a spreadsheet would run as a formula starting with `'`. */
function csvCell(value: string | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function exportRow(entry: AuditEntry): Record<(typeof EXPORT_COLUMNS)[number], string | boolean | null> {
  return {
    id: entry.id,
    time: entry.time,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    action: entry.action,
    resource_type: entry.resource.type,
    resource_id: entry.resource.id,
    changes: JSON.stringify(entry.changes),
    request_id: entry.request_id,
    ip: entry.ip,
    livemode: entry.livemode,
    hash: entry.hash,
  };
}

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw validationError(field, 'must be an ISO 8601 date-time');
  return time;
}

export function createAuditLog(deps: { store: Store }): AuditLog {
  const { store } = deps;
  const sealer = createAuditSealer(deps);

  return {
    async list(tenantId, query) {
      const from = timeOf(query.from, 'from');
      const to = timeOf(query.to, 'to');
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError('from', 'must not be after to');
      }
      const window = pageWindow(query, 'created');
      const filter: repo.AuditFilter = {
        resourceId: query.resource_id,
        actorId: query.actor_id,
        action: query.action,
        requestId: query.request_id,
        from,
        to,
      };
      const before =
        window.cursor === undefined
          ? undefined
          : { created: Number(window.cursor.after[0]), id: window.cursor.after[1] };
      const rows = await repo.listEntries(store.db, tenantId, filter, {
        limit: window.limit,
        offset: window.offset,
        before,
      });
      const total = await repo.countEntries(store.db, tenantId, filter);
      return envelope(rows, total, window, 'created', (row) => [Number(row.created), row.id], presentEntry);
    },

    export(tenantId, format, render) {
      const columns = render === undefined ? EXPORT_COLUMNS : columnsOf(render);
      async function* lines(): AsyncGenerator<string> {
        await sealer.seal(tenantId);
        if (format === 'csv') yield `${columns.join(',')}\r\n`;
        let after = 0;
        for (;;) {
          const rows = await repo.entriesAfter(store.db, tenantId, after, EXPORT_PAGE);
          for (const row of rows) {
            const entry = presentEntry(row);
            if (format === 'jsonl') yield `${JSON.stringify(render === undefined ? entry : render(entry))}\n`;
            else {
              const cells = exportRow(entry);
              yield `${columns.map((column) => csvCell(cells[column])).join(',')}\r\n`;
            }
          }
          if (rows.length < EXPORT_PAGE) return;
          after = Number(rows[rows.length - 1]?.seq ?? after);
        }
      }
      return Readable.from(lines());
    },

    async verify(tenantId) {
      await sealer.seal(tenantId);
      let previous = { hash: '', seq: 0 };
      for (;;) {
        const rows = await repo.entriesAfter(store.db, tenantId, previous.seq, VERIFY_PAGE);
        const run = verifyRun(previous, rows);
        if (!run.ok)
          return { ok: false, tenant_id: tenantId, checked: run.broken.seq - 1, broken: run.broken };
        previous = { hash: run.hash, seq: run.seq };
        if (rows.length < VERIFY_PAGE) break;
      }
      const head = await repo.chainHead(store.db, tenantId);
      if (head.seq !== previous.seq || head.lastHash !== previous.hash) {
        return {
          ok: false,
          tenant_id: tenantId,
          checked: previous.seq,
          broken: {
            seq: previous.seq + 1,
            id: null,
            reason: `the chain's head says ${head.seq} entries ending in another hash: entries after ${previous.seq} are missing`,
          },
        };
      }
      return { ok: true, tenant_id: tenantId, checked: previous.seq, broken: null };
    },
  };
}
