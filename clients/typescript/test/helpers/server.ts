import { loadConfig } from '../../../../src/config.js';
import type { DialectName } from '../../../../src/db/store.js';
import { type RunningServer, startServer } from '../../../../src/server.js';
import type { CreatedTenant } from '../../../../src/modules/tenants/tenants.service.js';
import { randomBase62 } from '../../../../src/lib/ids.js';
import { migratedStore, TEST_REDIS_URL, type TestStore } from '../../../../test/helpers/context.js';
import { dropRedisKeys, redisTestPrefix } from '../../../../test/helpers/redis.js';
import { CommerceClient } from '../../src/index.js';
import type { ClientOptions } from '../../src/options.js';

/**
 * A real API server listening on 127.0.0.1 (src/server.ts, the webhook worker inside it) on a fresh
 * store of `dialect`: SQLite, or PostgreSQL with the shared rate counters in Redis when
 * TEST_REDIS_URL is set. Plain HTTP unless `env` turns TLS on.
 */
export interface ApiServer {
  server: RunningServer;
  store: TestStore;
  /** A new tenant with a full-permission key, made through the real service. */
  tenant(): Promise<CreatedTenant>;
  /** A client of this server with `key`. */
  client(key: string, options?: ClientOptions): CommerceClient;
  close(): Promise<void>;
}

export async function startApiServer(
  dialect: DialectName,
  env: Record<string, string> = {},
): Promise<ApiServer> {
  const store = await migratedStore(dialect);
  const prefix = redisTestPrefix();
  const redis =
    dialect === 'postgres' && TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix } : {};
  const server = await startServer(
    loadConfig({ ...store.env, ...redis, PORT: '0', HOST: '127.0.0.1', ...env }),
  );
  const clients: CommerceClient[] = [];
  let tenants = 0;
  return {
    server,
    store,
    tenant: async () => {
      tenants += 1;
      return server.deps.tenants.create({
        name: `Client Store ${tenants}`,
        email: `client${tenants}-${randomBase62(6).toLowerCase()}@example.com`,
      });
    },
    client: (key, options = {}) => {
      const client = new CommerceClient({ apiKey: key, baseUrl: server.url, ...options });
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await server.shutdown();
      await store.drop();
      if (redis.REDIS_URL) await dropRedisKeys(prefix);
    },
  };
}
