import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../../lib/errors.js';
import { parseJsonBody } from '../../http/json-body.js';
import { type toFieldErrors, validationProblem, validatorCompiler } from '../../http/validation.js';

/**
 * Parameters of a GET sent as a JSON body, which `GET /products` accepts beside the query
 * string. Fastify never reads a GET body, so a route-level preValidation hook reads it here:
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

/** JSON's white space: a body of nothing else is no body. */
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The body, up to the server's own body limit (1 MiB), so a GET body is bounded like any other.
 * Past the limit the rest is not read: the stream is left, not destroyed (destroying a request
 * leaves its connection neither answered nor closed), and the answer closes the connection.
 */
function readRaw(request: FastifyRequest): Promise<Buffer> {
  const limit = request.server.initialConfig.bodyLimit ?? 1024 * 1024;
  const raw = request.raw;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      raw.removeListener('data', onData);
      raw.removeListener('end', onEnd);
      raw.removeListener('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) {
        stop();
        raw.pause();
        reject(
          new AppError('payload_too_large', `The request body is over the ${limit}-byte limit.`, {
            headers: { connection: 'close' },
          }),
        );
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onError);
  });
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
    const raw = await readRaw(request);
    if (raw.every((byte) => JSON_SPACE.has(byte))) return;
    const type = String(request.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppError(
        'unsupported_media_type',
        'Send GET parameters in the query string, or as a JSON body with "Content-Type: application/json".',
      );
    }
    const body = parseJsonBody(raw);
    if (!validate(body)) throw validationProblem(validate.errors ?? [], 'body');
    const query = (request.query ?? {}) as Record<string, unknown>;
    request.query = { ...(body as Record<string, unknown>), ...query };
  };
}
