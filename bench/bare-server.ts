import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The baseline: bare Fastify with the same response shapes and nothing else (no auth, no hooks,
 * no database), so every scenario's ratio shows what our machinery costs.
 *
 * `BARE_HEADERS=api` adds, in one onRequest hook, the seven response headers the API
 * puts on every authenticated response (request id, version, five rate-limit headers) with
 * values like ours: a reference for what those headers alone cost, on the server and on the load
 * generator that parses them.
 */
// The exact body our GET /v1/users/me returned, handed over by the bench (BARE_USERS_ME).
const me: unknown = JSON.parse(process.env.BARE_USERS_ME ?? '{}');

const app = Fastify({ logger: false });
if (process.env.BARE_HEADERS === 'api') {
  const policy = '"hourly";q=1000000000;w=3600, "monthly";q=1000000000000;w=2592000';
  let remaining = 1_000_000_000;
  app.addHook('onRequest', (_request, reply, done) => {
    remaining -= 1;
    reply.header('x-request-id', `req_${randomUUID()}`);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"hourly";r=${remaining};t=1`);
    reply.header('x-ratelimit-limit', '1000000000');
    reply.header('x-ratelimit-remaining', String(remaining));
    reply.header('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + 1));
    reply.header('x-service-version', '2026-11-21');
    done();
  });
}
app.get('/v1/users/me', async () => me);
// Pages of our API's exact bytes by request URL (path and query), handed over in a file by the
// bench (BARE_PAGES_FILE: a JSON object of URL -> body): the baseline of serving them.
const pages = new Map<string, string>(
  Object.entries(
    JSON.parse(
      process.env.BARE_PAGES_FILE ? fs.readFileSync(process.env.BARE_PAGES_FILE, 'utf8') : '{}',
    ) as Record<string, string>,
  ),
);
const page = async (request: FastifyRequest, reply: FastifyReply) => {
  const body = pages.get(request.url);
  if (body === undefined) return reply.code(404).send({ code: 'not_found' });
  return reply.type('application/json; charset=utf-8').send(body);
};
app.get('/v1/products', page);
app.get('/v1/store/*', page);
app.post('/v1/echo', async (request) => request.body);
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`bare Fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
