import type { EventsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { randomFillSync } from 'node:crypto';
import { isSecretField, redactValue } from '../../lib/redact.js';
import { type Actor, type AuditContext, currentAuditContext, SYSTEM_ACTOR } from './audit.context.js';
import * as repo from './audit.repository.js';
import type { AuditEntriesTable } from './audit.tables.js';

/**
 * The recorder: services call `record` inside the transaction of a change, with the object before
 * and after it (API shapes); every event the outbox writes is recorded the same way (`recordEvents`,
 * the module's effect), its object's previous state being the one the log last saw. Who made the
 * change, the request and its address come from the audit context (audit.context.ts).
 */

type Json = Record<string, unknown>;

export interface AuditRecordInput {
  tenantId: string;
  /** Event-style: `product.updated`, `api_key.created`, `settings.updated`. */
  action: string;
  resource: { type: string; id: string };
  /** The object before the change: null when it is made; omitted: the state the log last saw. */
  before?: object | null;
  /** The object after the change: null when it is deleted. */
  after: object | null;
  /**
   * Who made it, when the service knows better than the request: a shopper's publishable key
   * names no one, but a password reset's token names its customer. Default: the context's actor.
   */
  actor?: Actor;
}

export interface AuditRecorder {
  /** Writes the change's entry in `trx`, the change's own transaction. */
  record(trx: Db, input: AuditRecordInput): Promise<void>;
  /** Writes an entry per event (the events module's effect). */
  recordEvents(trx: Db, events: readonly EventsTable[]): Promise<void>;
  /**
   * Takes the tenant's chain head until `trx` ends, as a sealer does (audit.sealer.ts): for a
   * change that rewrites the tenant's entries (an erasure), so that no sealer reads an entry before
   * it and writes what it worked out of it after (PostgreSQL; SQLite's writers take turns anyway).
   */
  holdChain(trx: Db, tenantId: string): Promise<void>;
}

export type Changes = Record<string, { from: unknown; to: unknown }>;

/** Members that change with every write and say nothing of it. */
const NOT_CHANGES = new Set(['updated', 'updated_at', 'object']);

/** The fields that differ between `before` and `after`, secrets left out, values redacted. */
export function diff(before: Json | null, after: Json | null): Changes {
  const changes: Changes = {};
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of names) {
    if (NOT_CHANGES.has(name) || isSecretField(name)) continue;
    const from = before?.[name] ?? null;
    const to = after?.[name] ?? null;
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    changes[name] = { from: redactValue(from), to: redactValue(to) };
  }
  return changes;
}

/** What the log keeps of a resource's state for its next diff: the object without its secrets. */
function snapshotOf(after: Json | null): string | null {
  if (after === null) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(after).filter(([name]) => !isSecretField(name))));
}

function keyOf(tenantId: string, resourceId: string): string {
  return `${tenantId}\u0000${resourceId}`;
}

/** Base36 digits and lowercase letters only: one order in bytes and in any collation. */
const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
let lastIdTime = 0;
let idCounter = 0;
/** Random bytes drawn 256 ids at a time: one call to the system's generator per id cost more than the rest of the entry. */
const RANDOM_DIGITS = 11;
const randomPool = Buffer.alloc(RANDOM_DIGITS * 256);
let randomAt = randomPool.length;

/**
 * An entry's id, in insertion order: `aud_`, the time (ms, 9 base36 digits), a counter of this
 * process within that millisecond (4 digits), 11 random ones. A process's entries sort in the order
 * it wrote them (its clock moving back is taken as standing still); two processes' entries of one
 * millisecond sort by their counters and random tails, stably. The list pages on it and the
 * sealer chains in it.
 */
export function entryId(now: number): string {
  if (now > lastIdTime) {
    lastIdTime = now;
    idCounter = 0;
  } else idCounter += 1;
  if (randomAt + RANDOM_DIGITS > randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  let tail = '';
  for (let i = randomAt; i < randomAt + RANDOM_DIGITS; i++)
    tail += ID_ALPHABET[(randomPool[i] as number) % 36];
  randomAt += RANDOM_DIGITS;
  return `aud_${lastIdTime.toString(36).padStart(9, '0')}${idCounter.toString(36).padStart(4, '0')}${tail}`;
}

function actionVerb(action: string): string {
  return action.slice(action.lastIndexOf('.') + 1);
}

export function createAuditRecorder(deps: { store: Store; clock: Clock; enabled?: boolean }): AuditRecorder {
  const { clock } = deps;
  if (deps.enabled === false) {
    return {
      record: async () => undefined,
      recordEvents: async () => undefined,
      holdChain: async (trx, tenantId) => {
        await repo.lockChainHead(trx, tenantId);
      },
    };
  }

  interface Pending {
    tenantId: string;
    action: string;
    resource: { type: string; id: string };
    /** null: the sealer works it out. */
    changes: Changes | null;
    snapshot: string | null;
    context: AuditContext | undefined;
    actor: Actor | undefined;
    created: number;
  }

  /** The entries each open transaction will write just before its commit, in order. */
  const waiting = new WeakMap<Db, Pending[]>();
  /**
   * The state each open transaction's entries left each resource in: a second change of one
   * resource in the transaction is diffed against the first (its entry is not written yet).
   */
  const states = new WeakMap<Db, Map<string, string | null>>();
  function statesOf(trx: Db): Map<string, string | null> {
    let map = states.get(trx);
    if (!map) {
      map = new Map();
      states.set(trx, map);
    }
    return map;
  }

  /**
   * Queues entries of `trx`'s change: they are written, with no place in the chain yet, as one
   * insert just before COMMIT (`store.beforeCommit`): one statement per audited transaction, and no
   * lock of the tenant's chain (the sealer, audit.sealer.ts, chains them after the commit).
   */
  async function enqueue(trx: Db, pending: readonly Pending[]): Promise<void> {
    const queued = waiting.get(trx);
    if (queued) {
      queued.push(...pending);
      return;
    }
    const list = [...pending];
    waiting.set(trx, list);
    await deps.store.beforeCommit(trx, async () => {
      waiting.delete(trx);
      await repo.insertEntries(trx, deps.store.dialect, list.map(rowOf));
    });
  }

  function rowOf(entry: Pending): AuditEntriesTable {
    const context = entry.context;
    const actor = entry.actor ?? context?.actor ?? SYSTEM_ACTOR;
    const created = entry.created;
    return {
      id: entryId(clock.now()),
      tenant_id: entry.tenantId,
      seq: null,
      created,
      actor_type: actor.type,
      actor_id: actor.id,
      actor_name: actor.name,
      action: entry.action,
      resource_type: entry.resource.type,
      resource_id: entry.resource.id,
      changes: entry.changes === null ? null : JSON.stringify(entry.changes),
      snapshot: entry.snapshot,
      request_id: context?.requestId ?? null,
      ip: context?.ip ?? null,
      livemode: (context?.livemode ?? true) ? 1 : 0,
      content_digest: null,
      redacted: 0,
      hash: null,
    };
  }

  /**
   * The entry of one change. Its previous state is `before`, or none (made), or what an earlier
   * change of this transaction left; else it is not read here (that would be a query on every
   * change's path): `changes` stays null and the sealer diffs against the resource's previous entry.
   */
  function pendingOf(input: AuditRecordInput, seen: Map<string, string | null>, created: number): Pending {
    const verb = actionVerb(input.action);
    const after = verb === 'deleted' ? null : (input.after as Json | null);
    const key = keyOf(input.tenantId, input.resource.id);
    let before: Json | null | undefined;
    if (verb === 'created') before = null;
    else if (input.before !== undefined) before = input.before as Json | null;
    else if (seen.has(key)) {
      const state = seen.get(key) ?? null;
      before = state === null ? null : (JSON.parse(state) as Json);
    }
    const snapshot = after === null ? null : snapshotOf(after);
    seen.set(key, snapshot);
    const context = currentAuditContext();
    if (context) context.entries += 1;
    return {
      tenantId: input.tenantId,
      action: input.action,
      resource: input.resource,
      changes: before === undefined ? null : diff(before, after),
      snapshot,
      context,
      actor: input.actor,
      created,
    };
  }

  return {
    async holdChain(trx, tenantId) {
      await repo.lockChainHead(trx, tenantId);
    },

    async record(trx, input) {
      await enqueue(trx, [pendingOf(input, statesOf(trx), clock.now())]);
    },

    async recordEvents(trx, events) {
      const seen = statesOf(trx);
      // An event's entry is of its time: the sealer's fallback to the object's last event is to
      // those before it.
      const pending = events.map((event) =>
        pendingOf(
          {
            tenantId: event.tenant_id,
            action: event.type,
            resource: { type: event.object_type, id: event.object_id },
            after: JSON.parse(event.data) as Json,
          },
          seen,
          Number(event.created),
        ),
      );
      await enqueue(trx, pending);
    },
  };
}
