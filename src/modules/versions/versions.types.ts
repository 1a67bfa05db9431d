/**
 * The resource types of the API and where one holds another: the map the version walker
 * (versions.walker.ts) follows to reach nested objects by type, so a version change is written
 * once for its type and applies wherever an object of that type appears (a response, a list, an
 * event's object, a webhook payload, a customer's export).
 */

export type JsonObject = Record<string, unknown>;

/** A member's type: named, or read from the object that holds it (an event's object). */
export type MemberType = string | ((holder: JsonObject) => string | undefined);

/**
 * For each type, the members that hold objects of another type (an object, or an array of them).
 * A member path may go one level down (`data.object`).
 */
export const RESOURCE_MEMBERS: Readonly<Record<string, Readonly<Record<string, MemberType>>>> = {
  order: { items: 'order_item', customer: 'order_customer', refunds: 'refund' },
  plugin: { installation: 'plugin_installation' },
  analytics: { summary: 'analytics_summary', previous_period: 'analytics_summary' },
  event: { 'data.object': (event) => eventObjectType(event.type) },
  customer_export: { customer: 'customer', orders: 'order', events: 'export_event' },
  export_event: { object: (event) => eventObjectType(event.type) },
};

/** Events whose object's type is not the event type's first word. */
const EVENT_OBJECT_TYPES: Readonly<Record<string, string>> = { app: 'app_installation' };

/** The type of an event's object: `order` for `order.paid`. */
export function eventObjectType(eventType: unknown): string | undefined {
  if (typeof eventType !== 'string') return undefined;
  const noun = eventType.split('.')[0] ?? '';
  return EVENT_OBJECT_TYPES[noun] ?? noun;
}

/** Every type reachable from `type` (itself included); `undefined` when an object's type decides. */
export function reachableTypes(type: string): Set<string> | undefined {
  const seen = new Set<string>();
  const queue = [type];
  while (queue.length > 0) {
    const next = queue.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const member of Object.values(RESOURCE_MEMBERS[next] ?? {})) {
      if (typeof member !== 'string') return undefined;
      queue.push(member);
    }
  }
  return seen;
}
