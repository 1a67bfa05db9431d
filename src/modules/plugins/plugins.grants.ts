import type { EventType, Permission, Vocabulary } from '../../kernel/vocabulary.js';

/**
 * What an installation may do (its token's permissions) and receive (its subscription's events),
 * and how that follows a plugin whose permissions and events change. Pure: lists in, lists out.
 */

export interface Grant {
  permissions: Permission[];
  events: EventType[];
}

function parseList<T extends string>(json: string | null, accept: (value: string) => value is T): T[] {
  const parsed: unknown = JSON.parse(json ?? '[]');
  return Array.isArray(parsed) ? parsed.filter((v): v is T => typeof v === 'string' && accept(v)) : [];
}

/** A stored JSON array of permissions (values the vocabulary does not hold dropped). */
export function permissionList(json: string | null, vocabulary: Vocabulary): Permission[] {
  return parseList(json, vocabulary.isPermission);
}

/** A stored JSON array of event types (values the vocabulary does not hold dropped). */
export function eventList(json: string | null, vocabulary: Vocabulary): EventType[] {
  return parseList(json, vocabulary.isEventType);
}

/** Whether two lists hold the same values, whatever their order. */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

/**
 * An installation holding `held` when its plugin now asks for `wanted`: it keeps what it holds
 * that the plugin still asks for (so asking for less shrinks it at once), and whatever is more
 * than it holds waits for its store (`pending`: the whole of `wanted`, or null when nothing is
 * more). A token never holds what its plugin no longer asks for, nor what its store never granted.
 */
export function regrant(held: Grant, wanted: Grant): { grant: Grant; pending: Grant | null } {
  const grant = {
    permissions: wanted.permissions.filter((permission) => held.permissions.includes(permission)),
    events: wanted.events.filter((event) => held.events.includes(event)),
  };
  const more =
    grant.permissions.length < wanted.permissions.length || grant.events.length < wanted.events.length;
  return { grant, pending: more ? wanted : null };
}
