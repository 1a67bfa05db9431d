import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { installAuditHooks } from './audit.hooks.js';
import { createAuditRecorder, type AuditRecorder } from './audit.recorder.js';
import { auditRoutes } from './audit.routes.js';
import { AuditEntrySchema, AuditListSchema } from './audit.schemas.js';
import { createAuditLog, type AuditLog } from './audit.service.js';
import type { AuditChainsTable, AuditEntriesTable } from './audit.tables.js';
import { type AuditSealer, createAuditSealer, SEAL_EVERY_MS } from './audit.sealer.js';
import * as auditLog from './migrations/0050_audit_log.js';
import * as auditSeal from './migrations/0057_audit_seal.js';
import * as auditContentDigest from './migrations/0059_audit_content_digest.js';
import * as auditFilterCounts from './migrations/0066_audit_filter_counts.js';
import * as auditSealedIndexes from './migrations/0068_audit_sealed_indexes.js';

/**
 * The audit log: an entry for every change, written in the change's own transaction (so a change
 * that committed has its entry, whatever happens next), chained per tenant by SHA-256 shortly after
 * the commit (the sealer, run by the background work: audited changes never wait on the chain). Every event
 * is recorded by the module's effect; a change without an event is recorded by its service with
 * `audit.record` (audit.recorder.ts). Who made it comes from the request (audit.hooks.ts) or the
 * operator CLI (`runAsActor`), else the system. Read with `GET /audit-log`, exported, and checked
 * by `admin audit:verify`.
 */

const PERMISSIONS = ['read:audit'] as const;
const ID_PREFIXES = ['aud'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../lib/ids.js' {
  interface IdPrefixNames extends Names<typeof ID_PREFIXES> {}
}
declare module '../../db/schema.js' {
  interface Database {
    audit_entries: AuditEntriesTable;
    audit_chains: AuditChainsTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Writes a change's audit entry inside the change's transaction. */
    audit: AuditRecorder;
    /** Reads the audit log: list, export, the chain's check. */
    auditLog: AuditLog;
    /** Chains the entries written since its last pass (audit.sealer.ts). */
    auditSealer: AuditSealer;
  }
  interface Overrides {
    /** false: nothing is audited (only the benchmark of the audit entry's cost sets it). */
    audit?: boolean;
  }
}

export default defineModule({
  name: 'audit',
  position: 92,
  tags: [
    {
      name: 'Audit and request logs',
      description:
        'Who changed what, when, from where (the audit log, hash-chained), and every API call of the last 30 days with its bodies, secrets redacted (the request log)',
    },
  ],
  permissions: PERMISSIONS,
  operationIds: {
    'GET /v1/audit-log': 'listAuditEntries',
    'GET /v1/exports/audit-log': 'exportAuditLog',
  },
  components: () => ({ AuditEntry: AuditEntrySchema, AuditEntryList: AuditListSchema }),
  idPrefixes: ID_PREFIXES,
  // The log is of this release, and so is `livemode` (2027-01-20): a caller on an older version
  // sees its entries without it, as every other object.
  versionChanges: {
    '2027-01-20': [
      {
        description: 'Audit entries carry `livemode`.',
        toPrevious: {
          audit_entry: (entry) =>
            Object.fromEntries(Object.entries(entry).filter(([name]) => name !== 'livemode')),
        },
      },
    ],
  },
  migrations: {
    '0050_audit_log': auditLog,
    '0057_audit_seal': auditSeal,
    '0059_audit_content_digest': auditContentDigest,
    '0066_audit_filter_counts': auditFilterCounts,
    '0068_audit_sealed_indexes': auditSealedIndexes,
  },
  services: (deps) => ({
    audit: createAuditRecorder({ ...deps, enabled: deps.overrides.audit ?? true }),
    auditLog: createAuditLog(deps),
    auditSealer: createAuditSealer(deps),
  }),
  // Every event is a change (or the system's announcement of one): its entry, in its transaction.
  effects: ({ audit }) => [(trx, events) => audit.recordEvents(trx, events)],
  hooks: (_deps, app) => installAuditHooks(app),
  routes: [{ plugin: auditRoutes }],
  // Entries are chained after their change commits, about a second later (and at start: what a
  // stopped process left unsealed); `admin audit:verify` and the export seal first.
  start: ({ auditSealer }, every) => {
    every(SEAL_EVERY_MS, () => auditSealer.seal(), 'audit log seal failed', { atStart: true });
  },
});
