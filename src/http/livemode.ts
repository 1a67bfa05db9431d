import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OnSendDone } from './etag.js';
import { bare, canonical } from './openapi-components.js';

/**
 * `livemode` on every object the API answers, from version 2027-01-20: added here, once, to the
 * JSON body of every route that takes a key, rather than by each presenter. false when
 * the caller's key is of a store's test mode. An object that carries its own (an event, an API key,
 * whose mode may differ from the caller's) keeps it. Older versions never get it; the version
 * walker takes it away from the objects an event holds (the test-mode module's version change).
 */

/** The first version whose objects carry `livemode`. */
export const LIVEMODE_SINCE = '2027-01-20';

/** Whether a JSON body already says `livemode` (a key in JSON text; a string value escapes its quotes). */
function carries(json: string): boolean {
  return json.includes('"livemode":');
}

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A member of an answered object that holds an object of its own (`fulfillments[]`, `payment`),
 * and the members of that object that hold objects of their own in turn (an export's orders'
 * refunds).
 */
export interface NestedMember {
  name: string;
  array: boolean;
  members: NestedMember[];
}

/** How deep objects of their own are looked for inside one another (a schema may hold itself). */
const NESTING_DEPTH = 4;

/** The object a route answers (each item of a list), from its 2xx JSON schemas. */
function answeredObjects(response: unknown, list: boolean): Body[] {
  if (!isObject(response)) return [];
  const out: Body[] = [];
  for (const [status, schema] of Object.entries(response)) {
    if (!/^2\d\d$/.test(status) || !isObject(schema)) continue;
    const items = (schema.properties as Body | undefined)?.data as Body | undefined;
    const object = list ? items?.items : schema;
    if (isObject(object) && object.type === 'object') out.push(object);
  }
  return out;
}

/**
 * Objects of their own, known by content: what keyed routes answer (an order, a refund, a
 * variant...) with an `id`. Such an object nested in another answer (an order's `refunds[]`, a
 * product's `variants[]`) carries `livemode` there too, as it does on its own route; a line item
 * or an address, which no route answers, does not. Filled as routes are added, read from the
 * first request on, when every route is known.
 */
export function createOwnObjects() {
  const known = new Set<string>();
  /** The members of an object schema that hold objects of their own, `depth` levels down. */
  function membersOf(object: Body, depth: number): NestedMember[] {
    if (depth === 0) return [];
    const found: NestedMember[] = [];
    for (const [name, member] of Object.entries((object.properties as Body | undefined) ?? {})) {
      if (!isObject(member)) continue;
      const array = member.type === 'array';
      const candidates = array
        ? [member.items]
        : [member, ...((member.anyOf as unknown[] | undefined) ?? [])];
      const own = candidates.find(
        (candidate): candidate is Body =>
          isObject(candidate) && candidate.type === 'object' && known.has(canonical(bare(candidate))),
      );
      if (own) found.push({ name, array, members: membersOf(own, depth - 1) });
    }
    return found;
  }
  return {
    /** Notes what a keyed route answers. */
    add(response: unknown, list: boolean): void {
      for (const object of answeredObjects(response, list)) {
        if (isObject(object.properties) && 'id' in object.properties) known.add(canonical(bare(object)));
      }
    },
    /** The members of what a route answers that hold objects of their own, at any depth. */
    nestedIn(response: unknown, list: boolean): NestedMember[] {
      const members = new Map<string, NestedMember>();
      for (const object of answeredObjects(response, list)) {
        for (const member of membersOf(object, NESTING_DEPTH)) members.set(member.name, member);
      }
      return [...members.values()];
    },
  };
}

/**
 * `object` with `livemode` on each object of its own its `members` hold (those without one), and
 * on theirs in turn.
 */
function withNested(object: Body, members: readonly NestedMember[], flag: boolean): Body {
  if (members.length === 0) return object;
  const out: Body = { ...object };
  for (const { name, array, members: inner } of members) {
    const mark = (value: unknown): unknown => {
      if (!isObject(value)) return value;
      const marked = withNested(value, inner, flag);
      return 'livemode' in marked ? marked : { ...marked, livemode: flag };
    };
    const value = out[name];
    if (array && Array.isArray(value)) out[name] = value.map(mark);
    else if (!array) out[name] = mark(value);
  }
  return out;
}

/**
 * Whether a route answers a list: `config.list`, or a success schema whose `data` is an array (a
 * list envelope, a report's rows).
 */
export function answersList(list: boolean | undefined, response: unknown): boolean {
  if (list === true) return true;
  if (typeof response !== 'object' || response === null) return false;
  return Object.entries(response).some(([status, schema]) => {
    if (!/^2\d\d$/.test(status) || typeof schema !== 'object' || schema === null) return false;
    const data = (schema as { properties?: { data?: { type?: unknown } } }).properties?.data;
    return data?.type === 'array';
  });
}

/**
 * The onSend hook of every route that takes a key: the caller's mode on the object it answers, or
 * on each item of a list (`answersList`), and on the objects of their own these hold (`nested`,
 * asked once, at the first request).
 */
export function livemodeHook(list: boolean, nested: () => readonly NestedMember[] = () => []) {
  let members: readonly NestedMember[] | undefined;
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void => {
    const principal = request.principal;
    if (
      !principal ||
      typeof payload !== 'string' ||
      reply.statusCode >= 300 ||
      request.apiVersion < LIVEMODE_SINCE ||
      carries(payload)
    ) {
      done(null, payload);
      return;
    }
    const livemode = principal.tenant.livemode ? 'true' : 'false';
    members ??= nested();
    if (!list && members.length === 0) {
      // An object's JSON text: `{...}`, the member added before its closing brace.
      const body = payload.trimEnd();
      if (!body.startsWith('{') || !body.endsWith('}')) done(null, payload);
      else if (body === '{}') done(null, `{"livemode":${livemode}}`);
      else done(null, `${body.slice(0, -1)},"livemode":${livemode}}`);
      return;
    }
    let out: string;
    try {
      const flag = principal.tenant.livemode;
      const parsed = JSON.parse(payload) as unknown;
      if (!list) {
        done(
          null,
          isObject(parsed)
            ? JSON.stringify({ ...withNested(parsed, members, flag), livemode: flag })
            : payload,
        );
        return;
      }
      const envelope = parsed as Body;
      if (!Array.isArray(envelope.data)) {
        done(null, payload);
        return;
      }
      const own = members;
      out = JSON.stringify({
        ...envelope,
        data: envelope.data.map((item: unknown) =>
          isObject(item) ? { ...withNested(item, own, flag), livemode: flag } : item,
        ),
      });
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, out);
  };
}

type Schema = Record<string, unknown>;

/**
 * The OpenAPI document's side of the hook: the member every answer of a keyed route gains. An
 * inline answer (or each item of an inline list) declares it, required; a component the route
 * answers (or the items of a list component) declares it too, optional there, since the same
 * object nested in another does not carry it (`withLivemodeComponents`); anything else is joined
 * to it with `allOf`.
 */
export const LivemodeSchema: { type: 'object'; properties: Record<string, Schema>; required: string[] } = {
  type: 'object',
  properties: {
    livemode: {
      type: 'boolean',
      description:
        'false for an object of the store’s test mode (a `sk_test_`/`pk_test_` key), true for live. On every object from version 2027-01-20.',
    },
  },
  required: ['livemode'],
};
/** What an answer that is neither a component nor an inline object is joined to. */
const livemodeRef: Schema = LivemodeSchema;

/**
 * An object schema with `livemode`: an inline one gains the member itself (it may be closed to
 * others: `allOf` would then refuse it), anything else is joined to it with `allOf`.
 */
function withMember(schema: Schema): Schema {
  if (schema.type === 'object' && typeof schema.properties === 'object' && schema.properties !== null) {
    if ('livemode' in schema.properties) return schema;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return {
      ...schema,
      properties: { ...(schema.properties as Schema), livemode: LivemodeSchema.properties.livemode },
      required: [...required, 'livemode'],
    };
  }
  return { allOf: [schema, livemodeRef] };
}

function joined(schema: Schema, list: boolean): Schema {
  const out = joinedSchema(schema, list);
  // An inline schema's own examples show the member too.
  return 'examples' in out ? { ...out, examples: withLivemodeExample(out.examples, true, list) } : out;
}

function joinedSchema(schema: Schema, list: boolean): Schema {
  if (!list) return withMember(schema);
  const data = (schema.properties as Schema | undefined)?.data as Schema | undefined;
  if (
    schema.type === 'object' &&
    data !== undefined &&
    typeof data.items === 'object' &&
    data.items !== null
  ) {
    return {
      ...schema,
      properties: {
        ...(schema.properties as Schema),
        data: { ...data, items: withMember(data.items as Schema) },
      },
    };
  }
  return { allOf: [schema, { type: 'object', properties: { data: { type: 'array', items: livemodeRef } } }] };
}

/** A response's example (or list of examples) as a live key's answer shows it. */
function withLivemodeExample(value: unknown, several: boolean, list: boolean): unknown {
  const one = (example: unknown): unknown => {
    if (typeof example !== 'object' || example === null || Array.isArray(example)) return example;
    const object = example as Schema;
    if (!list) return { ...object, livemode: true };
    if (!Array.isArray(object.data)) return object;
    return {
      ...object,
      data: object.data.map((item: unknown) =>
        typeof item === 'object' && item !== null && !Array.isArray(item)
          ? { ...item, livemode: true }
          : item,
      ),
    };
  };
  return several && Array.isArray(value) ? value.map(one) : one(value);
}

/** A keyed route's schema as the document shows it: its JSON success responses with `livemode`. */
export function documentLivemode(
  schema: Schema | undefined,
  list: boolean,
  declares: (ref: string) => boolean,
  answered: (ref: string, list: boolean) => void,
): Schema | undefined {
  const responses = schema?.response;
  if (schema === undefined || typeof responses !== 'object' || responses === null) return schema;
  const response: Schema = {};
  for (const [status, answer] of Object.entries(responses as Schema)) {
    const object = answer as Schema | undefined;
    const content = object?.content as Record<string, Schema> | undefined;
    const media = content?.['application/json'];
    const shownRef = (media?.schema as Schema | undefined)?.$ref;
    if (typeof shownRef === 'string' && declares(shownRef)) {
      // An object that declares its own (an API key, an event): shown as it is.
      response[status] = answer;
      continue;
    }
    if (/^2\d\d$/.test(status) && typeof shownRef === 'string') {
      // A component (or a list of one): the component declares the member (`withLivemodeComponents`).
      answered(shownRef, list);
      response[status] = answer;
      continue;
    }
    const jsonObject = object !== undefined && (object.type === 'object' || typeof object.$ref === 'string');
    if (!/^2\d\d$/.test(status) || status === '204' || !jsonObject) {
      response[status] = answer;
      continue;
    }
    // What the document reads beside the schema (the response's description, headers and
    // examples) stays on the response; the schema itself is joined to `Livemode`.
    const outer: Schema = {};
    const inner: Schema = {};
    for (const [key, value] of Object.entries(object)) {
      if (['description', 'headers', 'examples', 'example'].includes(key) || key.startsWith('x-'))
        outer[key] = value;
      else inner[key] = value;
    }
    for (const key of ['examples', 'example'] as const) {
      if (key in outer) outer[key] = withLivemodeExample(outer[key], key === 'examples', list);
    }
    response[status] = { ...outer, ...joined(inner, list) };
  }
  return { ...schema, response };
}

/**
 * The document's components that keyed routes answer (`answered`: a component, or the items of a
 * list component) declare `livemode`: optional there, since the same object nested in another
 * one does not carry it; every answer's own object does.
 */
export function withLivemodeComponents(
  document: { components?: { schemas?: Record<string, Schema> } },
  answered: ReadonlyMap<string, boolean>,
): void {
  const schemas = document.components?.schemas ?? {};
  const nameOf = (ref: unknown): string | undefined =>
    typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
  const targets = new Set<string>();
  for (const [ref, list] of answered) {
    const name = nameOf(ref);
    if (name === undefined) continue;
    if (!list) targets.add(name);
    else {
      const items = ((schemas[name]?.properties as Schema | undefined)?.data as Schema | undefined)?.items as
        Schema | undefined;
      const item = nameOf(items?.$ref);
      if (item !== undefined) targets.add(item);
    }
  }
  for (const name of targets) {
    const schema = schemas[name];
    if (schema?.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null)
      continue;
    if ('livemode' in schema.properties) continue;
    schema.properties = { ...(schema.properties as Schema), livemode: LivemodeSchema.properties.livemode };
  }
}
