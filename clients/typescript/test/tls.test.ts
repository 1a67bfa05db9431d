import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LOGIC_ONLY } from '../../../test/helpers/context.js';
import { CommerceConnectionError } from '../src/index.js';
import { type ApiServer, startApiServer } from './helpers/server.js';

/**
 * HTTPS with the self-signed certificate a development server creates on first start
 * (src/tls.ts, DATA_DIR/tls/cert.pem): trusted through `tls.ca`, refused without it.
 */

/** The messages of an error and of its causes. */
function causes(error: unknown): string {
  const messages: string[] = [];
  for (let at = error; at instanceof Error; at = at.cause) {
    messages.push(`${at.message} ${(at as { code?: string }).code ?? ''}`);
  }
  return messages.join(' <- ');
}

for (const dialect of LOGIC_ONLY) {
  describe(`HTTPS with the development certificate the server creates (${dialect})`, () => {
    let api: ApiServer;
    let key: string;
    let certPath: string;

    before(async () => {
      api = await startApiServer(dialect, { TLS: 'on' });
      assert.ok(api.server.url.startsWith('https://127.0.0.1:'), api.server.url);
      assert.equal(api.server.tls?.generated, true, 'a self-signed certificate made on first start');
      certPath = api.server.tls.certPath;
      key = (await api.tenant()).apiKey.key;
    });
    after(() => api?.close());

    it('trusts the certificate given as tls.ca (PEM text or a Buffer)', async () => {
      const client = api.client(key, { tls: { ca: fs.readFileSync(certPath) } });
      const { data, response } = await client.api.GET('/v1/users/me');
      assert.ok(data?.email.endsWith('@example.com'));
      assert.match(response.headers.get('strict-transport-security') ?? '', /max-age=/);
      const product = await api
        .client(key, { tls: { ca: fs.readFileSync(certPath, 'utf8') } })
        .products.create({ name: 'Over TLS', sku: 'TLS-1', price: 100 });
      assert.equal(product.sku, 'TLS-1');
    });

    it('refuses the self-signed certificate without it, as a connection error', async () => {
      const error = await api
        .client(key, { maxRetries: 0 })
        .users.getCurrent()
        .catch((reason: unknown) => reason);
      assert.ok(error instanceof CommerceConnectionError, String(error));
      assert.match(causes(error), /self[- ]signed|SELF_SIGNED/i);
    });

    it('accepts any certificate with rejectUnauthorized: false (development only)', async () => {
      const me = await api.client(key, { tls: { rejectUnauthorized: false } }).users.getCurrent();
      assert.ok(me.id.startsWith('usr_'));
    });
  });
}
