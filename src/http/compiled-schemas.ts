import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * What a route's schemas compile to (its validators and response serializers), compiled once per
 * process for each schema, whichever app instance asks. Compiling is most of what building an app
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
    compile = compiledOncePerSchema((schema) => build({ schema }));
    caches.set(context, compile);
  }
  const cached = compile;
  return (route) => cached(route.schema);
};

/** Fastify's `schemaController` option: its own serializer compiler, through the cache above. */
export const sharedSerializers = {
  compilersFactory: { buildSerializer },
} as unknown as NonNullable<FastifyServerOptions['schemaController']>;
