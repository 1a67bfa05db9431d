import { Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Nullable, Timestamp } from '../../http/schemas.js';

export const AUDIT_ENTRY_EXAMPLE = {
  id: 'aud_4fT9kQm2bX8sV1uW6yZ3cE7d',
  time: '2026-11-21T10:15:00.000Z',
  actor: { type: 'api_key', id: 'key_9hGf2kQm1bX9sT2uV7wY3cE5', name: 'Back office' },
  action: 'product.updated',
  resource: { type: 'product', id: 'prod_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs' },
  changes: { price: { from: 1999, to: 2499 } },
  request_id: 'req_2b7Lq9Xv4Nc8Zt1Mk6Pw3Rs',
  ip: '203.0.113.7',
  livemode: true,
  hash: '9f2c4e1ab8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1',
};

export const AuditEntrySchema = Type.Object(
  {
    id: Type.String(),
    time: Timestamp,
    actor: Type.Object({
      type: Type.String({ enum: ['user', 'api_key', 'app', 'customer', 'system', 'operator'] }),
      id: Nullable(Type.String()),
      name: Nullable(Type.String()),
    }),
    action: Type.String({ description: 'Event-style: `product.updated`, `api_key.created`, ...' }),
    resource: Type.Object({
      type: Type.String({ description: 'The object’s name: `product`, `api_key`, `webhook`, ...' }),
      id: Type.String(),
    }),
    changes: Nullable(
      Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }), {
        description:
          'The changed fields only, each from its old value to its new one (null where there was none). Secrets, password hashes and card data never appear. null while the entry is not yet sealed (`hash` null) when the change did not know the previous state: sealing works it out from the resource’s previous entry, about a second after the change.',
      }),
    ),
    request_id: Nullable(
      Type.String({ description: 'The `X-Request-Id` of the request that made the change.' }),
    ),
    ip: Nullable(Type.String()),
    livemode: Type.Boolean(),
    hash: Nullable(
      Type.String({
        description:
          'SHA-256 (hex) over the tenant’s previous entry’s hash and this entry: `admin audit:verify` checks the chain. null while the entry is not yet sealed into the chain: entries are written with their change and chained about a second after it commits.',
      }),
    ),
  },
  { examples: [AUDIT_ENTRY_EXAMPLE] },
);

export const AuditListSchema = EnvelopeSchema(AuditEntrySchema);

export const AuditListQuery = Type.Object(
  {
    ...PageQuery,
    resource_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or before this time.' })),
  },
  { additionalProperties: false },
);

export const AuditExportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.String({
        enum: ['csv', 'jsonl'],
        default: 'csv',
        description: '`csv` (default; RFC 4180, a header line) or `jsonl` (JSON Lines: one entry per line).',
      }),
    ),
  },
  { additionalProperties: false },
);

const CSV_EXAMPLE = `id,time,actor_type,actor_id,actor_name,action,resource_type,resource_id,changes,request_id,ip,livemode,hash\r\n${[
  AUDIT_ENTRY_EXAMPLE.id,
  AUDIT_ENTRY_EXAMPLE.time,
  'api_key',
  AUDIT_ENTRY_EXAMPLE.actor.id,
  AUDIT_ENTRY_EXAMPLE.actor.name,
  AUDIT_ENTRY_EXAMPLE.action,
  'product',
  AUDIT_ENTRY_EXAMPLE.resource.id,
  '"{""price"":{""from"":1999,""to"":2499}}"',
  AUDIT_ENTRY_EXAMPLE.request_id,
  AUDIT_ENTRY_EXAMPLE.ip,
  'true',
  AUDIT_ENTRY_EXAMPLE.hash,
].join(',')}\r\n`;

export const AuditExportResponse = {
  200: {
    description: 'Every entry, oldest first, as an attachment',
    content: {
      'text/csv': { schema: Type.String({ description: 'Every entry, streamed.', examples: [CSV_EXAMPLE] }) },
      'application/x-ndjson': {
        schema: Type.String({
          description: 'Every entry, streamed.',
          examples: [`${JSON.stringify(AUDIT_ENTRY_EXAMPLE)}\n`],
        }),
      },
    },
  },
};
