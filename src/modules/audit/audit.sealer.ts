import type { Db, Store } from '../../db/store.js';
import { diff } from './audit.recorder.js';
import type { AuditEntriesTable } from './audit.tables.js';
import { contentDigest, entryHash } from './audit.chain.js';
import * as repo from './audit.repository.js';
import { countSealed } from './audit.counts.js';

/**
 * The sealer: chains the entries changes wrote (with no place in the chain, so that audited changes
 * of one tenant never wait for each other) after they commit. Per tenant and per batch, one short
 * transaction: lock the tenant's chain head, take its unsealed entries in insertion (id) order, give
 * each the next `seq`, its `content_digest` (of its changes) and its `hash`, move the head, and
 * count them by action and actor (audit.counts.ts). Run by the background work about every second
 * (audit.module.ts) and before `admin audit:verify` checks; two sealers of one tenant (server and
 * worker) take turns on its head, and the second finds nothing left of what the first chained.
 */

function parsed(state: string | null | undefined): Record<string, unknown> | null {
  return state === null || state === undefined ? null : (JSON.parse(state) as Record<string, unknown>);
}

/** How often a process seals: a server's background work and `npm run worker` (about every second). */
export const SEAL_EVERY_MS = 1_000;
/** Entries one sealing transaction chains at most. */
const SEAL_BATCH = 500;
/** Tenants one pass looks at, at most, before the next pass. */
const TENANTS_PER_PASS = 200;

export interface AuditSealer {
  /** Chains every unsealed entry of `tenantId` (all tenants when omitted); answers how many. */
  seal(tenantId?: string): Promise<number>;
  /**
   * Seals every `ms` (and at once), one pass at a time, reporting a failed pass to `failed`, until
   * the answer is called; it resolves once the pass in flight, if any, is done (`npm run worker`).
   */
  repeat(ms: number, failed: (error: unknown) => void): () => Promise<void>;
}

export function createAuditSealer(deps: { store: Store }): AuditSealer {
  const { store } = deps;

  /**
   * The changes of the batch's entries written without them (their change did not know the
   * previous state), by id: each diffed against its resource's previous entry in chain order (an
   * earlier one of the batch, else the last sealed one: one query for the batch), else, for an
   * object the log has never seen, against its last event before the entry.
   */
  async function changesOf(
    trx: Db,
    tenantId: string,
    rows: readonly AuditEntriesTable[],
  ): Promise<Map<string, string>> {
    const open = rows.filter((row) => row.changes === null);
    const states = new Map<string, string | null>();
    const known = await repo.lastSnapshots(trx, tenantId, [...new Set(open.map((row) => row.resource_id))]);
    const changes = new Map<string, string>();
    for (const row of rows) {
      if (row.changes === null) {
        let before: string | null | undefined = states.has(row.resource_id)
          ? states.get(row.resource_id)
          : known.get(row.resource_id);
        if (before === undefined && !known.has(row.resource_id)) {
          before = await repo.lastEventObjectBefore(trx, tenantId, row.resource_id, Number(row.created));
        }
        changes.set(row.id, JSON.stringify(diff(parsed(before), parsed(row.snapshot))));
      }
      states.set(row.resource_id, row.snapshot);
    }
    return changes;
  }

  /** One batch of the tenant: how many entries it chained. */
  async function sealBatch(tenantId: string): Promise<number> {
    return store.transaction(async (trx) => {
      const head = await repo.lockChainHead(trx, tenantId);
      const rows = await repo.unsealedEntries(trx, tenantId, SEAL_BATCH);
      const changes = await changesOf(trx, tenantId, rows);
      let { seq, lastHash: hash } = head;
      const sealed: repo.SealedEntry[] = [];
      for (const row of rows) {
        seq += 1;
        const sealedChanges = changes.get(row.id) ?? row.changes ?? '{}';
        const digest = contentDigest(sealedChanges);
        hash = entryHash(hash, { ...row, seq, content_digest: digest });
        sealed.push({ id: row.id, seq, hash, changes: sealedChanges, content_digest: digest });
      }
      // The batch's places in one statement, not one round trip an entry.
      await repo.sealEntries(trx, store.dialect, sealed);
      if (rows.length > 0) {
        await repo.setChainHead(trx, tenantId, seq, hash);
        await countSealed(trx, tenantId, rows);
      }
      return rows.length;
    });
  }

  async function sealTenant(tenantId: string): Promise<number> {
    let total = 0;
    for (;;) {
      const sealed = await sealBatch(tenantId);
      total += sealed;
      if (sealed < SEAL_BATCH) return total;
    }
  }

  async function seal(tenantId?: string): Promise<number> {
    if (tenantId !== undefined) return sealTenant(tenantId);
    let total = 0;
    for (const tenant of await repo.unsealedTenants(store.db, TENANTS_PER_PASS))
      total += await sealTenant(tenant);
    return total;
  }

  return {
    seal,
    repeat(ms, failed) {
      let pass: Promise<void> | null = null;
      const run = () => {
        if (pass !== null) return;
        pass = seal()
          .then(() => undefined, failed)
          .finally(() => {
            pass = null;
          });
      };
      run();
      const timer = setInterval(run, ms);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await pass;
      };
    },
  };
}
