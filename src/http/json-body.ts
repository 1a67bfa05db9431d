import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { AppError, validationError } from '../lib/errors.js';

/** Refuses bytes that are not UTF-8, instead of putting U+FFFD in their place. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What secure-json-parse says of a `__proto__` or `constructor.prototype` key. */
const FORBIDDEN_KEY = /forbidden prototype property/;

/**
 * A request body as JSON: UTF-8 (`400 invalid_json` for any byte sequence that is not, rather than
 * a silent U+FFFD), parsed as Fastify parses it (secure-json-parse) but keeping the reason: a
 * `__proto__` key is valid JSON, refused because it could poison the prototype of what is built
 * from it. An empty body is no body (undefined). What the parsed value may hold (its depth, NUL,
 * lone surrogates) is the validator's to judge, with the request's other fields.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8.');
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw error instanceof Error && FORBIDDEN_KEY.test(error.message)
      ? validationError('body', 'must not use __proto__ or constructor.prototype as a key')
      : new AppError('invalid_json', 'The request body is not valid JSON.');
  }
}

/**
 * The app's only body parser: JSON (text/plain and every other type is 415), in UTF-8, through
 * `parseJsonBody`; an empty body is no body.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let value: unknown;
    try {
      value = parseJsonBody(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });
}
