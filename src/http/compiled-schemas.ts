import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * What a route's schemas compile to (its validators and response serializers), compiled once per
 * process for each schema, whichever app instance asks, and when first used (`onFirstUse`). Compiling is most of what building an app
 * costs: fast-json-stringify and Ajv generate and compile code for every route, some 600 ms of CPU
 * for the API's. A process that builds more than one app (a test file builds several, a benchmark
 * two) compiled them all again for each. What a schema compiles to depends only on the schema and
 * the compiler's options, the same for every app, so the apps share it.
 *
 * A schema is known by its object, else by its JSON: routes build some of their schemas as they
 * register (`Envelope(...)` makes a new object each time), so equal schemas are not always the
 * same object.
 */
export function compiledOncePerSchema<T>(compile: (schema: unknown) => T): (schema: unknown) => T {
  const byObject = new WeakMap<object, T>();
  const byJson = new Map<string, T>();
  return (schema) => {
    const isObject = typeof schema === 'object' && schema !== null;
    const known = isObject ? byObject.get(schema) : undefined;
    if (known !== undefined) return known;
    const json = JSON.stringify(schema);
    let made = byJson.get(json);
    if (made === undefined) {
      made = compile(schema);
      byJson.set(json, made);
    }
    if (isObject) byObject.set(schema, made);
    return made;
  };
}

/** The compilations put off until first use (`onFirstUse`) and not tried yet. */
const pending = new Set<() => unknown>();

/**
 * `make()` on first use, not now: a process compiles only the schemas of the routes it is asked
 * for. A server starts in a third less time for it (it compiled the schemas of 300 routes before
 * it listened, some 700 ms of CPU), and a server started for a test serves a few of them.
 * `compilePending` makes the rest, as a test does to prove every route's schemas compile.
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  const get = (): T => {
    if (made === undefined) {
      // Tried once, it is no longer pending: one that fails throws again on each use.
      pending.delete(get);
      made = { value: make() };
    }
    return made.value;
  };
  pending.add(get);
  return get;
}

/** Makes every compilation put off so far (`onFirstUse`); throws what the first that fails throws. */
export function compilePending(): number {
  const all = [...pending];
  for (const make of all) make();
  return all.length;
}

type Serializer = (data: unknown) => string;
type BuildSerializer = (
  externalSchemas: unknown,
  options: unknown,
) => (route: { schema: unknown }) => Serializer;

const fastifyDefault = SerializerSelector() as unknown as BuildSerializer;
/** One cache per set of external schemas and options (the API has one: none, and the defaults). */
const caches = new Map<string, (schema: unknown) => Serializer>();

const buildSerializer: BuildSerializer = (externalSchemas, options) => {
  const context = JSON.stringify([externalSchemas, options]);
  let compile = caches.get(context);
  if (compile === undefined) {
    const build = fastifyDefault(externalSchemas, options);
    compile = compiledOncePerSchema((schema) => {
      const serializer = onFirstUse(() => build({ schema }));
      return (data) => serializer()(data);
    });
    caches.set(context, compile);
  }
  const cached = compile;
  return (route) => cached(route.schema);
};

/** Fastify's `schemaController` option: its own serializer compiler, through the cache above. */
export const sharedSerializers = {
  compilersFactory: { buildSerializer },
} as unknown as NonNullable<FastifyServerOptions['schemaController']>;
