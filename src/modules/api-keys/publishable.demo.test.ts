import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { demoCredentialsPath, demoOrigins } from '../../demo.js';
import { type RunningServer, startServer } from '../../server.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import type { ApiKey } from './api-keys.schemas.js';

/** The demo store's publishable key: it allows the server's own origins as configured. */

const tls = (enabled: boolean) => ({ enabled });

describe("the demo key's origins", () => {
  it('are the configured host and port, over https, or the loopback names over http', () => {
    assert.deepEqual(demoOrigins({ host: '127.0.0.1', port: 8443, tls: tls(true) }), [
      'https://localhost:8443',
      'https://127.0.0.1:8443',
    ]);
    assert.deepEqual(demoOrigins({ host: '0.0.0.0', port: 443, tls: tls(true) }), [
      'https://localhost',
      'https://127.0.0.1',
    ]);
    assert.deepEqual(demoOrigins({ host: 'shop.example.com', port: 8443, tls: tls(true) }), [
      'https://shop.example.com:8443',
    ]);
    assert.deepEqual(demoOrigins({ host: '::', port: 8080, tls: tls(false) }), [
      'http://localhost:8080',
      'http://127.0.0.1:8080',
    ]);
    // Plain http elsewhere is no origin a key may list; port 0 is known only once listening.
    assert.deepEqual(demoOrigins({ host: '10.0.0.5', port: 8080, tls: tls(false) }), []);
    assert.deepEqual(demoOrigins({ host: '127.0.0.1', port: 0, tls: tls(true) }), []);
  });
});

/** A port free now, for a server that must know its port before it listens. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const dialect of LOGIC_ONLY) {
  describe(`the demo store's publishable key (${dialect})`, () => {
    let store: TestStore;
    let server: RunningServer;

    before(async () => {
      store = await migratedStore(dialect);
      const port = await freePort();
      server = await startServer(loadConfig({ ...store.env, PORT: String(port), DEMO_DATA: 'on' }));
    });
    after(async () => {
      await server?.shutdown();
      await store?.drop();
    });

    it('is made with the demo, kept in its credentials, and calls the store from the server’s origin', async () => {
      const demo = server.demo;
      assert.ok(demo);
      assert.match(demo.publishable_key, /^pk_live_[0-9A-Za-z]{40}$/);
      const saved = JSON.parse(fs.readFileSync(demoCredentialsPath(server.deps.config.dataDir), 'utf8')) as {
        publishable_key: string;
      };
      assert.equal(saved.publishable_key, demo.publishable_key);
      const keys = await fetch(`${server.url}/v1/api-keys`, {
        headers: { authorization: `Bearer ${demo.api_key}` },
      });
      const listed = ((await keys.json()) as { data: ApiKey[] }).data;
      const publishable = listed.find((key) => key.type === 'publishable');
      assert.equal(publishable?.key, demo.publishable_key);
      const port = server.deps.config.port;
      assert.deepEqual(publishable?.allowed_origins, [
        `http://localhost:${port}`,
        `http://127.0.0.1:${port}`,
      ]);
      // A page of the server's own origin calls the catalog with it.
      const products = await fetch(`${server.url}/v1/store/products?limit=1`, {
        headers: { authorization: `Bearer ${demo.publishable_key}`, origin: server.url },
      });
      assert.equal(products.status, 200);
      assert.equal(products.headers.get('access-control-allow-origin'), server.url);
    });
  });
}
