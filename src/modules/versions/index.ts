/**
 * The versions module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { defaultVersionRegistry } from './changes/index.js';
export type { VersionChange, VersionRegistry } from './versions.registry.js';
export { EVERY_TYPE } from './versions.walker.js';
