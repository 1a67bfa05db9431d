import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { SECRET_PREFIX, signature } from '../webhooks/index.js';

/**
 * What a first-party app does with its signing secret, as any app would: it checks the Standard
 * Webhooks signature of each delivery, and it keeps the installation tokens it receives encrypted
 * (AES-256-GCM, with a key derived from the secret), never in clear.
 */

/** How far a delivery's `webhook-timestamp` may be from now (replayed deliveries are refused). */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

function keyOf(secret: string, pluginId: string): Buffer {
  const material = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return Buffer.from(hkdfSync('sha256', material, 'app-runtime-token', pluginId, 32));
}

export function sealToken(secret: string, pluginId: string, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, pluginId), iv);
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

export function openToken(secret: string, pluginId: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, pluginId), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** Whether the Standard Webhooks headers sign `body` with `secret`, at a timestamp close to `nowMs`. */
export function verifySignature(
  secret: string,
  headers: Record<string, string>,
  body: string,
  nowMs: number,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !signatures) return false;
  if (Math.abs(nowMs / 1000 - timestamp) > TIMESTAMP_TOLERANCE_S) return false;
  const expected = Buffer.from(signature(secret, id, timestamp, body));
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
