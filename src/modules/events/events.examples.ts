import { TRANSFER_EXAMPLE } from '../wallet/index.js';

/**
 * An event as `GET /events/{id}` answers it, for the OpenAPI document: a transfer the store made,
 * its object in the version the event is rendered in. src/http/openapi-document.test.ts checks it
 * against its schema.
 */
export const EVENT_EXAMPLE = {
  id: 'evt_jbV3I5JdFrBZriYaAyoM6xYR',
  type: 'transfer.created',
  created: '2026-11-27T08:00:04.618Z',
  livemode: true,
  api_version: '2027-01-20',
  data: { object: { ...TRANSFER_EXAMPLE, livemode: true } },
};
