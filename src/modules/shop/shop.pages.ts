import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { sameOriginPolicy } from '../../http/content-security-policy.js';
import { AppError } from '../../lib/errors.js';

/**
 * Serves the shop's single-page app (built by `npm run build` into dist/shop) under `/shop/`:
 * hashed assets with a one-year immutable cache, the files at the top of the build revalidated,
 * and index.html (never cached) for every other page-like path, so a reload of
 * /shop/products/classic-tee works and the app itself says when a page does not exist. A path
 * that names a file (a dot in its last segment) the build does not have is a JSON 404. Without a
 * build, the pages answer a problem+json 503 that says how to make one.
 */

export const SHOP_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/shop');

/** Files at the top of the build (shop/public/), next to index.html. */
const TOP_LEVEL_FILES = new Set(['favicon.svg']);

/**
 * Everything from this origin, as the console, but images from any https origin too: a store's
 * product images live on its own CDN or image host.
 */
const CONTENT_SECURITY_POLICY = sameOriginPolicy({ images: ['https:'] });

const ASSET_NAME = /^[\w.-]+$/;

export function shopPages(options: { root?: string } = {}): FastifyPluginAsync {
  const root = options.root ?? SHOP_DIST;

  function requireBuild(): void {
    if (!fs.existsSync(path.join(root, 'index.html'))) {
      throw new AppError(
        'service_unavailable',
        'The shop has not been built; run `npm run build` and reload.',
      );
    }
  }

  function sendIndex(reply: FastifyReply) {
    requireBuild();
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', root, { cacheControl: false });
  }

  /** A file of the build, or a JSON 404 (never @fastify/static's callNotFound, which reads as 405). */
  function file(reply: FastifyReply, relative: string, cache: 'immutable' | 'revalidate') {
    requireBuild();
    if (!fs.existsSync(path.join(root, relative))) {
      throw new AppError('not_found', `No such shop file: ${relative}.`);
    }
    return cache === 'immutable'
      ? reply.sendFile(relative, root, { maxAge: '365d', immutable: true })
      : reply.sendFile(relative, root, { maxAge: 0 });
  }

  /** What a GET of /shop/<rest> answers: an asset, a top-level file, or the app's page. */
  function answer(reply: FastifyReply, rest: string) {
    const segments = rest.split('/');
    if (segments[0] === 'assets') {
      const name = segments.slice(1).join('/');
      if (!ASSET_NAME.test(name) || name.startsWith('.'))
        throw new AppError('not_found', 'No such shop file.');
      return file(reply, `assets/${name}`, 'immutable');
    }
    const last = segments[segments.length - 1] ?? '';
    if (last.includes('.')) {
      if (segments.length !== 1 || !TOP_LEVEL_FILES.has(last)) {
        throw new AppError('not_found', 'No such shop file.');
      }
      return file(reply, last, 'revalidate');
    }
    return sendIndex(reply);
  }

  return async (app) => {
    await app.register(fastifyStatic, { root, serve: false, suppressWarning: true });

    app.addHook('onRequest', async (_request, reply) => {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      // The shop's address may carry its key (`?key=`): no other origin is told it (an image host).
      reply.header('referrer-policy', 'same-origin');
    });

    const routeOptions = { config: { auth: 'public' as const }, schema: { hide: true } };
    app.get('/shop', routeOptions, async (_request, reply) => sendIndex(reply));
    app.get<{ Params: { '*': string } }>('/shop/*', routeOptions, async (request, reply) =>
      answer(reply, request.params['*']),
    );
  };
}
