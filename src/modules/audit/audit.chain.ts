import { createHash } from 'node:crypto';
import type { AuditEntriesTable } from './audit.tables.js';

/**
 * The tenant's hash chain: each entry's `hash` is SHA-256 over the previous entry's hash (empty for
 * the first) and this entry's published fields, in a fixed order, its `changes` by their digest
 * (`content_digest`). Changing, removing or reordering
 * any entry breaks every hash from it on; `verifyChain` finds the first such entry.
 */

type Hashed = Omit<AuditEntriesTable, 'hash' | 'snapshot' | 'changes' | 'redacted'> & {
  content_digest: string;
};

/**
 * SHA-256 (hex) of an entry's `changes` JSON: what the chain hashes in place of the changes
 * themselves, so that erasing a person's values from an entry (which keeps its digest and marks it
 * `redacted`) leaves the chain whole.
 */
export function contentDigest(changes: string): string {
  return createHash('sha256').update(changes).digest('hex');
}

export function entryHash(previous: string, entry: Hashed): string {
  const fields = [
    entry.id,
    entry.tenant_id,
    entry.seq,
    entry.created,
    entry.actor_type,
    entry.actor_id,
    entry.actor_name,
    entry.action,
    entry.resource_type,
    entry.resource_id,
    entry.content_digest,
    entry.request_id,
    entry.ip,
    entry.livemode,
  ];
  return createHash('sha256').update(previous).update('\n').update(JSON.stringify(fields)).digest('hex');
}

export interface ChainBreak {
  seq: number;
  id: string | null;
  reason: string;
}

/**
 * Checks one run of consecutive entries (in seq order) after `previous` (the hash and seq of the
 * entry before them): the first break, or the last hash and seq to carry into the next run.
 */
export function verifyRun(
  previous: { hash: string; seq: number },
  rows: readonly AuditEntriesTable[],
): { ok: true; hash: string; seq: number } | { ok: false; broken: ChainBreak } {
  let { hash, seq } = previous;
  for (const row of rows) {
    const number = Number(row.seq);
    if (number !== seq + 1) {
      return {
        ok: false,
        broken: { seq: seq + 1, id: null, reason: `entry ${seq + 1} is missing (next found: ${number})` },
      };
    }
    const expected =
      row.content_digest === null
        ? null
        : entryHash(hash, { ...row, content_digest: row.content_digest, seq: number });
    if (expected === null || expected !== row.hash) {
      return {
        ok: false,
        broken: { seq: number, id: row.id, reason: 'hash does not match the entry and the previous hash' },
      };
    }
    // An entry not redacted still holds the changes its digest was taken of.
    if (row.redacted !== 1 && contentDigest(row.changes ?? '') !== row.content_digest) {
      return {
        ok: false,
        broken: { seq: number, id: row.id, reason: "changes do not match the entry's content digest" },
      };
    }
    hash = row.hash;
    seq = number;
  }
  return { ok: true, hash, seq };
}
