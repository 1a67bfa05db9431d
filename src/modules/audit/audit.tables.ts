/**
 * The audit module's tables (their types; migration 0050): the entries, and each tenant's chain
 * head. The manifest adds them to the store's `Database` (src/db/schema.ts).
 */

/**
 * One audited change (`aud_`), written in the transaction of the change. Its id sorts in insertion
 * order (audit.recorder.ts `entryId`): the list pages on it, the sealer chains in it.
 */
export interface AuditEntriesTable {
  id: string;
  tenant_id: string;
  /**
   * Its place in the tenant's chain: 1, 2, 3, ... without gaps (entries are never deleted); null
   * until the sealer chains it, shortly after its change commits (audit.sealer.ts).
   */
  seq: number | null;
  created: number;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  /**
   * JSON `{field: {from, to}}`, secrets left out; null until sealed when the change did not know
   * the previous state (the sealer diffs against the resource's previous entry).
   */
  changes: string | null;
  /**
   * JSON of the resource as this change left it (secrets left out), for the next change's diff of
   * a resource whose service passes no `before` (changes announced by events); null on delete.
   */
  snapshot: string | null;
  request_id: string | null;
  ip: string | null;
  /** 1 live, 0 a store's test mode. */
  livemode: number;
  /**
   * SHA-256 (hex) of `changes` as sealed (audit.chain.ts `contentDigest`): the chain hashes it in
   * place of the changes; null until sealed. Kept when the entry is redacted.
   */
  content_digest: string | null;
  /** 1 when a customer's erasure replaced the person's values in `changes` and `snapshot` (migration 0059). */
  redacted: number;
  /** SHA-256 (hex) of the previous entry's hash and this entry (audit.chain.ts); null until sealed. */
  hash: string | null;
}

/** A tenant's chain head: the row the sealer locks while it chains the tenant's new entries. */
export interface AuditChainsTable {
  tenant_id: string;
  seq: number;
  last_hash: string;
}
