import type { AnyManifest } from '../kernel/modules.js';

/**
 * The `operationId` of every operation of the OpenAPI document, by method and route: the names
 * generated clients call (`listProducts`, `createOrder`). They are part of the API: a name, once
 * published, is not changed. Each module declares its own (its manifest's `operationIds`);
 * route-hooks.ts gives each route its name and refuses a documented route that has none.
 */
export function operationIdsOf(modules: readonly AnyManifest[]): ReadonlyMap<string, string> {
  const byRoute = new Map<string, string>();
  const names = new Set<string>();
  for (const module of modules) {
    for (const [route, name] of Object.entries(module.operationIds ?? {})) {
      if (byRoute.has(route) || names.has(name))
        throw new Error(`operation ${route} (${name}) is named twice (module ${module.name})`);
      byRoute.set(route, name);
      names.add(name);
    }
  }
  return byRoute;
}
