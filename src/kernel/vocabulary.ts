import type { TSchema } from 'typebox';

/**
 * The words modules add to the house: the permissions a key can hold and the event types the store
 * emits. Each module's manifest declares its own (`permissions`, `events`) and names them in the
 * interfaces below by declaration merging, so `Permission` and `EventType` are the union of every
 * module's words, checked by the compiler where a route or a service names one:
 *
 *     const PERMISSIONS = ['read:products', 'write:products'] as const;
 *     declare module '../../kernel/vocabulary.js' {
 *       interface PermissionNames extends Names<typeof PERMISSIONS> {}
 *     }
 *
 * At run time the same lists, gathered from the manifests, are the `Vocabulary` the composition
 * root hands to whatever needs all of them (the API key and webhook schemas, the plugin catalog).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface PermissionNames {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface EventTypeNames {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface AppEventTypeNames {}

/** The names of a list, as the keys of an interface the modules merge into. */
export type Names<T extends readonly string[]> = { [K in T[number]]: true };

export type Permission = Extract<keyof PermissionNames, string>;
/** A store event: listed by `GET /events`, delivered to the store's subscribed endpoints. */
export type EventType = Extract<keyof EventTypeNames, string>;
/** An event about a plugin installation, sent only to that installation's own URL. */
export type AppEventType = Extract<keyof AppEventTypeNames, string>;

/**
 * Event types of one resource, as a manifest declares them: the object their `data.object` holds
 * (the OpenAPI `webhooks` section documents each with it), and, where an event's data differs
 * from `{ object }`, the schema and example of its data.
 */
export interface EventDeclaration<T extends string = string> {
  types: readonly T[];
  /** The object every event of these types carries in `data.object`, with an example. */
  object: TSchema;
  /** `installation`: sent only to the plugin installation it is about (the `app.*` events). */
  audience?: 'store' | 'installation';
  /** More members of `data` than `object`, by event type. */
  data?: Readonly<Record<string, Readonly<Record<string, TSchema>>>>;
  /** The example `data` of an event of one of the types, from the object's example. */
  exampleData?: (type: T, object: Record<string, unknown>) => Record<string, unknown>;
}

/** Every module's words, in the modules' order (see kernel/modules.ts). */
export interface Vocabulary {
  readonly permissions: readonly Permission[];
  /** Store events, which endpoints subscribe to. */
  readonly eventTypes: readonly EventType[];
  /** Installation events (`app.*`): never fanned out to the store's endpoints. */
  readonly appEventTypes: readonly AppEventType[];
  /** Each event type's declaration: its object and data. */
  readonly events: ReadonlyMap<string, EventDeclaration>;
  isPermission(value: string): value is Permission;
  isEventType(value: string): value is EventType;
  isAppEventType(value: string): value is AppEventType;
}

export function createVocabulary(
  modules: readonly { name: string; permissions?: readonly string[]; events?: readonly EventDeclaration[] }[],
): Vocabulary {
  const permissions: string[] = [];
  const eventTypes: string[] = [];
  const appEventTypes: string[] = [];
  const events = new Map<string, EventDeclaration>();
  for (const module of modules) {
    for (const permission of module.permissions ?? []) {
      if (permissions.includes(permission))
        throw new Error(`permission ${permission} is declared twice (module ${module.name})`);
      permissions.push(permission);
    }
    for (const declaration of module.events ?? []) {
      for (const type of declaration.types) {
        if (events.has(type)) throw new Error(`event type ${type} is declared twice (module ${module.name})`);
        events.set(type, declaration);
        (declaration.audience === 'installation' ? appEventTypes : eventTypes).push(type);
      }
    }
  }
  const permissionSet = new Set(permissions);
  const eventSet = new Set(eventTypes);
  const appEventSet = new Set(appEventTypes);
  return {
    permissions: permissions as Permission[],
    eventTypes: eventTypes as EventType[],
    appEventTypes: appEventTypes as AppEventType[],
    events,
    isPermission: (value): value is Permission => permissionSet.has(value),
    isEventType: (value): value is EventType => eventSet.has(value),
    isAppEventType: (value): value is AppEventType => appEventSet.has(value),
  };
}
