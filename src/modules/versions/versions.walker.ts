import { type JsonObject, RESOURCE_MEMBERS } from './versions.types.js';

/** How one version change rewrites an object of one type. */
export type ObjectTransform = (object: JsonObject) => JsonObject;

/** The type a change names to apply to an object of every type (`livemode` of 2027-01-20). */
export const EVERY_TYPE = '*';

/** The transforms of one step (a version's changes), by the type they apply to. */
export type TransformsByType = ReadonlyMap<string, readonly ObjectTransform[]>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies `transforms` to `value` read as `type`, and to every object it holds, found by type
 * (RESOURCE_MEMBERS): an array is each of its items; members first, then the object itself, so a
 * transform sees its members already in the same version's shape; then the transforms of every
 * type (`EVERY_TYPE`). Returns new objects where
 * something changed; the input is never modified.
 */
export function walk(type: string, value: unknown, transforms: TransformsByType): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(type, item, transforms));
  if (!isObject(value)) return value;
  let out = value;
  for (const [path, member] of Object.entries(RESOURCE_MEMBERS[type] ?? {})) {
    const memberType = typeof member === 'string' ? member : member(value);
    if (memberType === undefined) continue;
    out = updateAt(out, path.split('.'), (child) => walk(memberType, child, transforms));
  }
  for (const transform of transforms.get(type) ?? []) out = transform(out);
  for (const transform of transforms.get(EVERY_TYPE) ?? []) out = transform(out);
  return out;
}

/** `object` with the value at `path` replaced by `fn` of it (unchanged when absent or the same). */
function updateAt(object: JsonObject, path: readonly string[], fn: (value: unknown) => unknown): JsonObject {
  const [key, ...rest] = path;
  if (key === undefined || !(key in object)) return object;
  const current = object[key];
  let next: unknown;
  if (rest.length === 0) next = fn(current);
  else if (isObject(current)) next = updateAt(current, rest, fn);
  else return object;
  return next === current ? object : { ...object, [key]: next };
}
