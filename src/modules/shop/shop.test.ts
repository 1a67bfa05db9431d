import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTestContext, LOGIC_ONLY, type TestContext } from '../../../test/helpers/context.js';
import { installErrorHandler, installNotFoundHandler, RouteTable } from '../../http/error-handler.js';
import { shopPages } from './shop.pages.js';

/**
 * The shop's pages as the server serves them (a build made up in a temporary folder): index.html
 * for every page path, uncached, under a CSP that lets product images come from other https
 * origins; hashed assets cached for good; a JSON 404 for a file the build does not have; a 503
 * that says to build when there is no build. Then the same routes in the real app.
 */

describe('shop pages', () => {
  let root: string;
  let app: FastifyInstance;
  let missing: FastifyInstance;

  async function serve(dir: string): Promise<FastifyInstance> {
    // As in app.ts: a trailing slash is ignored by the router, and unknown paths decide 404 or 405
    // from the route table.
    const instance = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    const routes = new RouteTable();
    instance.decorate('routeTable', routes);
    instance.addHook('onRoute', (route) => routes.add(route.method, route.url));
    installErrorHandler(instance);
    installNotFoundHandler(instance, routes);
    await instance.register(shopPages({ root: dir }));
    await instance.ready();
    return instance;
  }

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-shop-'));
    fs.mkdirSync(path.join(root, 'assets'));
    fs.writeFileSync(
      path.join(root, 'index.html'),
      '<!doctype html><title>Shop</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js'), 'console.log("shop")');
    fs.writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = await serve(root);
    missing = await serve(path.join(root, 'not-built'));
  });
  after(async () => {
    await app.close();
    await missing.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html for every page path, uncached, with a CSP that allows https images only besides its own', async () => {
    for (const url of [
      '/shop',
      '/shop/',
      '/shop/?key=pk_live_abc',
      '/shop/products/organic-cotton-tee',
      '/shop/products/organic-cotton-tee/',
      '/shop/checkout',
      '/shop/no-such-page',
      '/shop/orders/ord_123',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(res.body, /<div id="root">/, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/, url);
      assert.match(csp, /img-src 'self' data: https:(;|$)/, url);
      assert.match(csp, /connect-src 'self'(;|$)/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['referrer-policy'], 'same-origin');
    }
  });

  it('serves hashed assets with a long immutable cache, and a file it does not have is a JSON 404', async () => {
    const asset = await app.inject({ method: 'GET', url: '/shop/assets/index-AbC123.js' });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /max-age=31536000/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    const icon = await app.inject({ method: 'GET', url: '/shop/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.doesNotMatch(String(icon.headers['cache-control']), /immutable/);
    for (const url of [
      '/shop/assets/nope.js',
      '/shop/assets/..%2Findex.html',
      '/shop/assets/.hidden',
      '/shop/assets',
      '/shop/robots.txt',
      '/shop/products/favicon.svg',
      '/shop/../package.json',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/, url);
    }
    // Other methods get the JSON answers they get everywhere else.
    const post = await app.inject({ method: 'POST', url: '/shop/checkout' });
    assert.equal(post.statusCode, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });

  it('answers a problem+json 503 that says to build when the shop is not built', async () => {
    for (const url of [
      '/shop',
      '/shop/',
      '/shop/checkout',
      '/shop/assets/index-AbC123.js',
      '/shop/favicon.svg',
    ]) {
      const res = await missing.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 503, url);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      const body = res.json<{ code: string; detail: string }>();
      assert.equal(body.code, 'service_unavailable');
      assert.match(body.detail, /npm run build/);
    }
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`shop pages in the app (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => {
      await ctx?.close();
    });

    it('are public pages outside /v1, left out of the OpenAPI document', async () => {
      const page = await ctx.app.inject({ method: 'GET', url: '/shop/' });
      // Built or not, the page answers without a key: the app, or the 503 that says to build.
      assert.ok([200, 503].includes(page.statusCode), String(page.statusCode));
      assert.match(String(page.headers['content-security-policy']), /img-src 'self' data: https:/);
      const document = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      const paths = Object.keys(document.json<{ paths: Record<string, unknown> }>().paths);
      assert.deepEqual(
        paths.filter((p) => p.startsWith('/shop')),
        [],
      );
    });
  });
}
