/**
 * What the webhook routes answer, for the OpenAPI document: an endpoint of a fulfilment service
 * and a delivery to it that succeeded. src/http/openapi-document.test.ts checks each example
 * against its schema.
 */

export const WEBHOOK_EXAMPLE = {
  id: 'wh_V40EWn436Zt1L9UZh4Nj0Xvx',
  url: 'https://fulfilment.example.com/hooks/commerce',
  events: ['order.created', 'order.paid', 'refund.created'],
  description: 'Fulfilment service',
  status: 'Active',
  api_version: '2026-12-15',
  last_triggered: '2026-11-26T09:30:12.925Z',
  created: '2026-10-28T15:10:22.047Z',
  updated: '2026-10-28T15:10:22.047Z',
};

/** The answer that creates the endpoint or rotates its secret: with the secret, shown this once. */
export const WEBHOOK_WITH_SECRET_EXAMPLE = {
  ...WEBHOOK_EXAMPLE,
  last_triggered: null,
  secret: 'whsec_NYHbM+8pznm9KkNNqAw/i0SjaL6LhSbv/tURJdx5TLM=',
};

export const DELIVERY_EXAMPLE = {
  id: 'del_f2AyvfMFYZ7FRqYRFxMT1Mq5',
  time: '2026-11-21T10:15:01.918Z',
  event: 'order.paid',
  event_id: 'evt_5dXcY2NR9ji37OfAUudhKnNR',
  endpoint: '/hooks/commerce',
  url: 'https://fulfilment.example.com/hooks/commerce',
  response: '200 OK',
  response_status: 200,
  response_body: '{"received":true}',
  duration: 84,
  attempt: 1,
  status: 'succeeded',
  next_retry_at: null,
};

/** A test event queued to the endpoint (`POST /webhooks/{id}/test`), not yet attempted. */
export const QUEUED_DELIVERY_EXAMPLE = {
  id: 'del_nrGBScMfK4am9neEGQFIXn3W',
  time: null,
  event: 'webhook.test',
  event_id: 'evt_NBzL4OO3zgvViC9EJ1x7eUdl',
  endpoint: '/hooks/commerce',
  url: 'https://fulfilment.example.com/hooks/commerce',
  response: null,
  response_status: null,
  response_body: null,
  duration: null,
  attempt: 1,
  status: 'pending',
  next_retry_at: '2026-11-27T08:20:06.879Z',
};
