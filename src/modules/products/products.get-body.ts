import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError, validationFailed } from '../../http/errors.js';
import { toFieldErrors, validatorCompiler } from '../../http/validation.js';

/**
 * Parameters of a GET sent as a JSON body, as the original specification's `GET /products`
 * example does. Fastify never reads a GET body, so a route-level preValidation hook reads it here:
 * JSON only (415 otherwise), 1 MiB at most (413), validated strictly like any body (no coercion,
 * unknown fields 400), then merged under the query string, which wins for a parameter both give.
 * The merged parameters then go through the route's querystring schema as usual.
 */

type Validate = ((data: unknown) => boolean) & {
  errors?: Parameters<typeof toFieldErrors>[0] | null;
};

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

async function readRaw(request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  // The server's own body limit (1 MiB), so a GET body is bounded like any other.
  const limit = request.server.initialConfig.bodyLimit ?? 1024 * 1024;
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > limit) {
      throw new AppError('payload_too_large', `The request body is over the ${limit}-byte limit.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function getBodyParameters(schema: TSchema) {
  const validate = validatorCompiler({
    schema,
    httpPart: 'body',
    method: 'GET',
    url: '',
  }) as unknown as Validate;

  return async function mergeGetBody(request: FastifyRequest): Promise<void> {
    if (!hasBody(request)) return;
    const text = await readRaw(request);
    if (text.trim() === '') return;
    const type = String(request.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppError(
        'unsupported_media_type',
        'Send GET parameters in the query string, or as a JSON body with "Content-Type: application/json".',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AppError('invalid_json', 'The request body is not valid JSON.');
    }
    if (!validate(body)) {
      throw validationFailed(toFieldErrors(validate.errors ?? [], 'body'));
    }
    const query = (request.query ?? {}) as Record<string, unknown>;
    request.query = { ...(body as Record<string, unknown>), ...query };
  };
}
