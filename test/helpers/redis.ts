import { Redis } from 'ioredis';
import { randomBase62 } from '../../src/lib/ids.js';
import { TEST_REDIS_URL } from './context.js';

/**
 * Rate-limit counter backends for suites to run with: in memory always, and Redis when
 * TEST_REDIS_URL is set, each with its own key prefix so runs never share counters.
 */
export interface CounterBackend {
  name: 'memory' | 'redis';
  /** Environment for createTestContext / loadConfig. */
  env: Record<string, string>;
  /** Removes the keys this backend wrote (no-op in memory). */
  cleanup(): Promise<void>;
}

export function counterBackends(): CounterBackend[] {
  const backends: CounterBackend[] = [{ name: 'memory', env: {}, cleanup: async () => undefined }];
  if (TEST_REDIS_URL) {
    const prefix = redisTestPrefix();
    backends.push({
      name: 'redis',
      env: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix },
      cleanup: () => dropRedisKeys(prefix),
    });
  }
  return backends;
}

export function redisTestPrefix(): string {
  return `test:${randomBase62(10)}:`;
}

/** Deletes every key under `prefix` in the test Redis. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  if (!TEST_REDIS_URL) return;
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
