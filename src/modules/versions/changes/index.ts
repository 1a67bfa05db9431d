import { type ApiVersion, VersionRegistry } from '../versions.registry.js';
import { V2026_06_01 } from './v2026-06-01.js';
import { V2026_11_21 } from './v2026-11-21.js';
import { V2026_12_15 } from './v2026-12-15.js';

/** Every dated version served, one file each: what it changed, by resource type. */
export const API_VERSIONS: readonly ApiVersion[] = [V2026_06_01, V2026_11_21, V2026_12_15];

export function defaultVersionRegistry(): VersionRegistry {
  return new VersionRegistry(API_VERSIONS);
}
