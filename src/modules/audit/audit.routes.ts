import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.js';
import type { Platform, Services } from '../../kernel/module.js';
import type { RenderEntry } from './audit.service.js';
import { AuditExportQuery, AuditExportResponse, AuditListQuery, AuditListSchema } from './audit.schemas.js';

const TAGS = ['Audit and request logs'];

export function auditRoutes(
  deps: Pick<Platform, 'clock' | 'versions'> & Pick<Services, 'auditLog'>,
): FastifyPluginAsyncTypebox {
  const { auditLog, clock, versions } = deps;
  return async (app) => {
    app.get(
      '/audit-log',
      {
        config: { auth: 'read:audit', resource: 'audit_entry', list: true },
        schema: {
          tags: TAGS,
          summary: 'List audit entries, newest first',
          description:
            'Every change to the store, by whom (a user, a key, an app, a customer, the system or an operator), from which request and address, with the changed fields. Filters combine; `from` and `to` bound the time. Paging by `cursor` costs the same at any depth and size.',
          querystring: AuditListQuery,
          response: { 200: AuditListSchema },
        },
      },
      async (request) => auditLog.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/exports/audit-log',
      {
        config: { auth: 'read:audit' },
        schema: {
          tags: TAGS,
          summary: 'Export the audit log as CSV or JSON Lines',
          description:
            'Every entry, oldest first (chain order), with its hash: a copy kept elsewhere can be checked against the chain. `changes` is a JSON cell in CSV.',
          querystring: AuditExportQuery,
          response: AuditExportResponse,
        },
      },
      async (request, reply) => {
        const format = request.query.format === 'jsonl' ? 'jsonl' : 'csv';
        const tenantId = principalOf(request).tenant.id;
        // Each entry as the caller's version shows it in the list (the stream skips the renderer).
        const version = request.apiVersion;
        const render: RenderEntry | undefined = versions.differs('audit_entry', version)
          ? (entry) => versions.render('audit_entry', entry, version) as Record<string, unknown>
          : undefined;
        const day = new Date(clock.now()).toISOString().slice(0, 10);
        // A stream, not the string the schema documents: sent as it is, never serialized.
        const raw = reply as FastifyReply;
        raw
          .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
          .header('content-disposition', `attachment; filename="audit-log-${day}.${format}"`);
        return raw.send(auditLog.export(tenantId, format, render));
      },
    );
  };
}
