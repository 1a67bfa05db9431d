/**
 * The OpenAPI document as tests that walk a route's schemas read it: every `$ref` to a shared
 * object (`#/components/schemas/...`) replaced by the component itself, so a body or a response is
 * one tree again. Each component is one object wherever it is used (a cache keyed by schema sees
 * it once).
 */

type Node = Record<string, unknown>;

const PREFIX = '#/components/schemas/';

export function dereferenced<T>(doc: T): T {
  const components = ((doc as Node).components as Node | undefined)?.schemas as Node | undefined;
  const resolved = new Map<string, unknown>();
  const resolving = new Set<string>();

  function component(name: string): unknown {
    const done = resolved.get(name);
    if (done !== undefined) return done;
    const schema = components?.[name];
    if (schema === undefined) throw new Error(`no component ${name}`);
    if (resolving.has(name)) throw new Error(`component ${name} refers to itself`);
    resolving.add(name);
    const value = walk(schema);
    resolving.delete(name);
    resolved.set(name, value);
    return value;
  }

  function walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as Node).$ref;
    if (typeof ref === 'string' && ref.startsWith(PREFIX)) return component(ref.slice(PREFIX.length));
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
  }

  return walk(doc) as T;
}
