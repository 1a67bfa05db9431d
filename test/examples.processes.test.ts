import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CommerceClient } from '../clients/typescript/src/index.js';
import { demoCredentialsPath } from '../src/demo.js';
import { LOGIC_ONLY, migratedStore, type TestStore } from './helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from './helpers/process.js';

/**
 * The TypeScript client's examples (examples/*.ts) run as a reader would run them, with
 * `npx tsx`, against a demo server started as `npm start` starts it: HTTPS with the self-signed
 * certificate it creates, the demo store, and local webhook endpoints allowed.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Run {
  code: number | null;
  out: string;
}

for (const dialect of LOGIC_ONLY) {
  describe(
    `the client examples against a demo server (${dialect})`,
    { skip: SKIP_IN_UNIT_RUN, timeout: 240_000 },
    () => {
      let store: TestStore;
      let server: ServerProcess;
      let env: Record<string, string>;
      let client: CommerceClient;

      /** `npx tsx examples/<name>.ts args` with the client's environment. */
      const example = (name: string, args: string[] = []): Promise<Run> =>
        new Promise((resolve, reject) => {
          const child = spawn('npx', ['tsx', `examples/${name}.ts`, ...args], {
            cwd: ROOT,
            env: { ...process.env, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`examples/${name}.ts did not finish:\n${out}`));
          }, 60_000);
          child.once('exit', (code) => {
            clearTimeout(timer);
            resolve({ code, out });
          });
        });

      before(async () => {
        store = await migratedStore(dialect);
        server = await spawnServer({ ...store.env, TLS: 'on', DEMO_DATA: 'on' });
        const credentials = JSON.parse(fs.readFileSync(demoCredentialsPath(store.dataDir), 'utf8')) as {
          api_key: string;
          publishable_key: string;
        };
        env = {
          COMMERCE_API_KEY: credentials.api_key,
          COMMERCE_PUBLISHABLE_KEY: credentials.publishable_key,
          COMMERCE_API_URL: server.url,
          COMMERCE_CA_FILE: path.join(store.dataDir, 'tls', 'cert.pem'),
        };
        assert.ok(server.url.startsWith('https://'), server.url);
        client = new CommerceClient({
          apiKey: env.COMMERCE_API_KEY,
          baseUrl: server.url,
          tls: { ca: fs.readFileSync(env.COMMERCE_CA_FILE ?? '') },
        });
      });
      after(async () => {
        await client?.close();
        await server?.stop();
        await store?.drop();
      });

      it('list-products prints every product of the category, over several pages', async () => {
        const { code, out } = await example('list-products', ['shoes']);
        assert.equal(code, 0, out);
        const total = (await client.products.list({ category: 'shoes' })).total;
        assert.ok(total > 5, 'more than one page of 5');
        const lines = out.trim().split('\n');
        assert.equal(lines.filter((line) => /^prod_\w+ {2}\S/.test(line)).length, total, out);
        assert.equal(lines.at(-1), `${total} product(s) in "shoes"`);
      });

      it('place-order places an order, sees a declined card refused, and pays it', async () => {
        const { code, out } = await example('place-order', ['grace@example.com']);
        assert.equal(code, 0, out);
        assert.match(out, /^preview: .+ \(nothing created\)$/m);
        assert.match(out, /^declined card: 422 payment_failed \(request \S+\)$/m);
        const id = /^order (ord_\w+): pending/m.exec(out)?.[1];
        assert.ok(id, out);
        assert.match(out, new RegExp(`^order ${id}: paid, payment pay_\\w+ succeeded$`, 'm'));
        const order = await client.orders.get(id);
        assert.deepEqual([order.status, order.customer.email], ['paid', 'grace@example.com']);
      });

      it('storefront goes from the catalog to a paid order with the publishable key', async () => {
        const { code, out } = await example('storefront', ['lin@example.com']);
        assert.equal(code, 0, out);
        assert.match(out, /^product: .+ \([a-z0-9-]+\), .+, \d+ USD$/m);
        const cart = /^cart (cart_\w+): subtotal \d+, shipping \d+ \(.+\), tax \d+, total (\d+) USD$/m.exec(
          out,
        );
        assert.ok(cart, out);
        assert.match(out, new RegExp(`^declined card: 422 payment_failed; cart ${cart[1]} is open$`, 'm'));
        const id = new RegExp(
          `^order (ord_\\w+): paid, total ${cart[2]} USD, from cart ${cart[1]}$`,
          'm',
        ).exec(out)?.[1];
        assert.ok(id, out);
        const order = await client.orders.get(id);
        assert.deepEqual(
          [order.status, order.source, order.cart_id, order.customer.email, order.total],
          ['paid', 'storefront', cart[1], 'lin@example.com', Number(cart[2])],
        );
      });

      it('receive-webhooks verifies a real delivery and removes its endpoint', async () => {
        const { code, out } = await example('receive-webhooks', ['--once']);
        assert.equal(code, 0, out);
        const id = /^verified webhook\.test (evt_\w+) \(API version \S+\)$/m.exec(out)?.[1];
        assert.ok(id, out);
        assert.equal((await client.events.get(id)).type, 'webhook.test');
        const endpoints = await client.webhooks.list();
        assert.equal(
          endpoints.data.some((endpoint) => endpoint.description === 'examples/receive-webhooks.ts'),
          false,
          'the example deleted its endpoint',
        );
      });
    },
  );
}
