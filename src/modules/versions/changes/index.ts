import { type ApiVersion, type VersionChange, VersionRegistry } from '../versions.registry.js';
import { V2026_06_01 } from './v2026-06-01.js';
import { V2026_11_21 } from './v2026-11-21.js';
import { V2026_12_15 } from './v2026-12-15.js';
import { V2027_01_20 } from './v2027-01-20.js';

/** Every dated version served, one file each: what it changed, by resource type. */
export const API_VERSIONS: readonly ApiVersion[] = [V2026_06_01, V2026_11_21, V2026_12_15, V2027_01_20];

/**
 * The dated versions with the changes modules declare for them besides (their manifests'
 * `versionChanges`): a module's change to its own resources lives with the module, and the
 * version's file here says when it came and what the version was.
 */
export function defaultVersionRegistry(
  modules: readonly {
    name: string;
    versionChanges?: Readonly<Record<string, readonly VersionChange[]>>;
  }[] = [],
): VersionRegistry {
  for (const module of modules) {
    for (const date of Object.keys(module.versionChanges ?? {})) {
      if (!API_VERSIONS.some((version) => version.version === date))
        throw new Error(
          `module ${module.name} changes version ${date}, which no file in versions/changes/ declares`,
        );
    }
  }
  return new VersionRegistry(
    API_VERSIONS.map((version) => ({
      ...version,
      changes: [
        ...version.changes,
        ...modules.flatMap((module) => module.versionChanges?.[version.version] ?? []),
      ],
    })),
  );
}
