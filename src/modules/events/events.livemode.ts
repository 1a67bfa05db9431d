/**
 * `livemode` on the objects of their own an event's object holds (an order's `refunds[]`,
 * `fulfillments[]` and `returns[]`, a product's `variants[]`), as they carry it in an answer.
 * Answers find such members from their routes' schemas (src/http/livemode.ts); an event is also
 * rendered by the worker, which serves no route, so they are named here, by the type of the object
 * that holds them, and `events.livemode.test.ts` holds this table to the OpenAPI document's.
 */

type Json = Record<string, unknown>;

/** By an object's type: its members that hold objects of their own, and their type. */
export const OWN_MEMBERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  order: { refunds: 'refund', fulfillments: 'fulfillment', returns: 'return' },
  product: { variants: 'variant' },
};

/** Members of an event's `data` beside its object that are objects of their own, and their type. */
export const OWN_EXTRAS: Readonly<Record<string, string>> = { variant: 'variant' };

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `object`, of `type`, with `livemode` on the objects of their own it holds, at any depth. */
export function withOwnLivemode(type: string, object: Json, livemode: boolean): Json {
  const members = OWN_MEMBERS[type];
  if (members === undefined) return object;
  let out = object;
  for (const [name, memberType] of Object.entries(members)) {
    const value = out[name];
    const mark = (item: unknown): unknown => (isObject(item) ? marked(memberType, item, livemode) : item);
    if (Array.isArray(value)) out = { ...out, [name]: value.map(mark) };
    else if (isObject(value)) out = { ...out, [name]: mark(value) };
  }
  return out;
}

/** An object of its own, of `type`, with `livemode` (kept when it says its own) on it and within. */
export function marked(type: string, object: Json, livemode: boolean): Json {
  const inner = withOwnLivemode(type, object, livemode);
  return 'livemode' in inner ? inner : { ...inner, livemode };
}
