/**
 * The usage module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { seedDemoUsage } from './usage.demo.js';
export { meteringHook } from './usage.hooks.js';
export type { UsageMeter } from './usage.meter.js';
