/**
 * The audit module's face: what other modules and the house may use of it. Anything not here is
 * the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export type { AuditRecorder, AuditRecordInput } from './audit.recorder.js';
export type { Actor, ActorType } from './audit.context.js';
export { runAsActor } from './audit.context.js';
export type { AuditEntry, AuditLog, ChainReport } from './audit.service.js';
export type { AuditSealer } from './audit.sealer.js';
export { SEAL_EVERY_MS as AUDIT_SEAL_EVERY_MS } from './audit.sealer.js';
export { AUDIT_LISTS } from './audit.counts.js';
