import type { IncomingMessage } from 'node:http';
import { newRequestId } from '../lib/ids.js';

const REQUEST_ID_PATTERN = /^[\w.:@-]{1,128}$/;

/** The id a request is answered with: its `X-Request-Id` when that is valid, otherwise a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const inbound = req.headers['x-request-id'];
  return typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound) ? inbound : newRequestId();
}
