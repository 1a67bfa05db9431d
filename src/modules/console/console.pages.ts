import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Gate } from '../../http/auth.js';
import { installNotFoundHandler } from '../../http/error-handler.js';
import { AppError } from '../../lib/errors.js';
import { sameOriginPolicy } from '../../http/content-security-policy.js';

/**
 * Serves the console's single-page app (built by `npm run build` into dist/console) under
 * `/console`: hashed assets with a one-year immutable cache, and index.html (never cached) for
 * each of the app's page routes, with or without a trailing slash, so a reload of
 * /console/webhooks/wh_... works. Any other page-like path under /console answers index.html
 * with a 404, so the app's own "Page not found" shows instead of JSON. Paths under
 * /console/api and /console/assets, and file names (a dot in the last segment), stay JSON
 * 404s and 405s, as everywhere else. Without a build, the pages answer a problem+json 503 that
 * says how to make one.
 */

export const CONSOLE_DIST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../dist/console',
);

/** The app's page routes (console/src/routes.ts has the same list). */
export const CONSOLE_PAGES = [
  '/console',
  '/console/',
  '/console/login',
  '/console/signup',
  '/console/products',
  '/console/products/new',
  '/console/products/:id',
  '/console/orders',
  '/console/orders/:id',
  '/console/customers',
  '/console/customers/:id',
  '/console/carts',
  '/console/settings',
  '/console/keys',
  '/console/webhooks',
  '/console/webhooks/:id',
  '/console/events',
  '/console/logs',
  '/console/imports',
  '/console/plugins',
  '/console/usage',
] as const;

/** Files at the top of the build (public/), next to index.html. */
const TOP_LEVEL_FILES = ['favicon.svg'] as const;

/**
 * Scripts, styles and fetches from this origin only; no framing. Images from any https origin too:
 * the product page previews a product's images, which live on the store's CDN or image host.
 */
const CONTENT_SECURITY_POLICY = sameOriginPolicy({ images: ['https:'] });

const ASSET_NAME = /^[\w.-]+$/;

/** A path the app's router may know: under /console, not its API or assets, and no file name. */
function isPagePath(path: string): boolean {
  if (path !== '/console' && !path.startsWith('/console/')) return false;
  const segments = path.slice('/console/'.length).split('/');
  if (segments[0] === 'api' || segments[0] === 'assets') return false;
  return !(segments[segments.length - 1] ?? '').includes('.');
}

export function consolePages(
  options: {
    root?: string;
    /** The app's gate for public routes (the response's version), run before an unknown page's answer. */
    gate?: Gate;
  } = {},
): FastifyPluginAsync {
  const root = options.root ?? CONSOLE_DIST;
  const gate = options.gate;

  function requireBuild(): void {
    if (!fs.existsSync(path.join(root, 'index.html'))) {
      throw new AppError(
        'service_unavailable',
        'The developer console has not been built; run `npm run build` and reload.',
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
      throw new AppError('not_found', `No such console file: ${relative}.`);
    }
    return cache === 'immutable'
      ? reply.sendFile(relative, root, { maxAge: '365d', immutable: true })
      : reply.sendFile(relative, root, { maxAge: 0 });
  }

  return async (app) => {
    await app.register(fastifyStatic, { root, serve: false, suppressWarning: true });

    app.addHook('onRequest', async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'same-origin');
    });

    const options = { config: { auth: 'public' as const }, schema: { hide: true } };

    // Each page once: the router serves it with or without a trailing slash (/console/keys/ is
    // the keys page too), and takes `/console/` for `/console`.
    const pages = new Set(CONSOLE_PAGES.map((page) => page.replace(/\/$/, '')));
    for (const url of pages) {
      app.get(url, options, async (_request, reply) => sendIndex(reply));
    }

    // Unknown paths under /console: a page-like GET gets index.html with a 404 (the app shows
    // "Page not found"); everything else gets the same JSON 404 or 405 as the rest of the server.
    await app.register(
      async (scope) => {
        installNotFoundHandler(scope, app.routeTable, {
          preHandler: [
            ...(gate ? [gate] : []),
            async (request, reply) => {
              const path = request.url.split('?')[0] ?? '';
              if ((request.method === 'GET' || request.method === 'HEAD') && isPagePath(path)) {
                return sendIndex(reply.code(404));
              }
            },
          ],
        });
      },
      { prefix: '/console' },
    );

    // Vite names every asset after its content hash: cache it for good.
    app.get<{ Params: { '*': string } }>('/console/assets/*', options, async (request, reply) => {
      const name = request.params['*'];
      if (!ASSET_NAME.test(name) || name.startsWith('.'))
        throw new AppError('not_found', 'No such console file.');
      return file(reply, `assets/${name}`, 'immutable');
    });

    for (const name of TOP_LEVEL_FILES) {
      app.get(`/console/${name}`, options, async (_request, reply) => file(reply, name, 'revalidate'));
    }
  };
}
