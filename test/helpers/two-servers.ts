import { after, before } from 'node:test';
import { loadConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/store.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { migratedStore, type TestStore } from './context.js';
import { type ServerProcess, spawnServer } from './process.js';

export interface TwoServers {
  /** The test's own services on the same store (tenants, products made without HTTP). */
  readonly deps: Deps;
  readonly servers: readonly [ServerProcess, ServerProcess];
}

/**
 * Two server processes on one fresh store of `dialect`, and the test's own `deps` on it, for the
 * suite that calls this: started before its tests, stopped and the store dropped after them.
 */
export function twoServers(dialect: DialectName): TwoServers {
  let store: TestStore | undefined;
  let deps: Deps | undefined;
  const servers: ServerProcess[] = [];
  before(async () => {
    store = await migratedStore(dialect);
    deps = await createDeps(loadConfig(store.env), { poolSize: 2 });
    servers.push(await spawnServer(store.env), await spawnServer(store.env));
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await deps?.close();
    await store?.drop();
  });
  return {
    get deps(): Deps {
      if (deps === undefined) throw new Error('twoServers: read before the suite started');
      return deps;
    },
    get servers(): readonly [ServerProcess, ServerProcess] {
      return servers as unknown as readonly [ServerProcess, ServerProcess];
    },
  };
}
