import Fastify from 'fastify';

/**
 * The baseline: bare Fastify with the same response shapes and nothing else (no auth, no hooks,
 * no database), so every scenario's ratio shows what our machinery costs.
 */
// The exact body our GET /v1/users/me returned, handed over by the bench (BARE_USERS_ME).
const me: unknown = JSON.parse(process.env.BARE_USERS_ME ?? '{}');

const app = Fastify({ logger: false });
app.get('/v1/users/me', async () => me);
app.post('/v1/echo', async (request) => request.body);
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`bare Fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
