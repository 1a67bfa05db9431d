import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { getHtmlDocument } from '@scalar/core/libs/html-rendering';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sameOriginPolicy } from './content-security-policy.js';

/**
 * The API reference at `/docs`: Scalar's reference of the OpenAPI document (`/v1/openapi.json`),
 * titled and coloured as the product, with the console's icon. Everything it loads comes from this
 * server: Scalar's bundle (`/docs/js/scalar.js`, from the installed package), the document and the
 * icon; no fonts, telemetry or proxy. Its Content-Security-Policy allows exactly that, and the
 * page's one inline script by its hash.
 */

const TITLE = 'Commerce Platform API reference';
const ROUTE = '/docs';

/**
 * Scalar's browser bundle, as @scalar/fastify-api-reference ships it (its `dist/js/standalone.js`),
 * read from disk per request (browsers keep it an hour): that plugin would hold its 3.5 MB as a
 * 6.9 MB string in the heap for the life of the process, so the page and the bundle are served
 * here, with @scalar/core's HTML.
 */
const BUNDLE = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@scalar/fastify-api-reference')),
  'js/standalone.js',
);

/** The console's icon (console/public), shown as the page's favicon and beside its title. */
const ICON = fs.readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/public/favicon.svg'),
);

/**
 * The product's look: the console's indigo, its icon and name atop the sidebar, and no link out of
 * the page (Scalar's "Powered by", and its hosted client, which would be handed this document's URL).
 */
const BRAND_CSS = `
.light-mode { --scalar-color-accent: #4f46e5; --scalar-background-accent: #4f46e51f; }
.dark-mode { --scalar-color-accent: #a5b4fc; --scalar-background-accent: #a5b4fc1f; }
.t-doc__sidebar::before {
  content: 'Commerce Platform';
  display: block;
  margin: 14px 12px 2px;
  padding-left: 36px;
  line-height: 28px;
  font-weight: 600;
  color: var(--scalar-color-1);
  background: url(${ROUTE}/favicon.svg) no-repeat left center / 28px 28px;
}
a[href^="https://www.scalar.com"], a[href^="https://client.scalar.com"] { display: none; }
`;

/** Clients shown beside each operation: curl (and the TypeScript client's own samples). */
const HIDDEN_CLIENTS = {
  c: true,
  clojure: true,
  csharp: true,
  dart: true,
  fsharp: true,
  go: true,
  http: true,
  java: true,
  js: true,
  kotlin: true,
  node: true,
  objc: true,
  ocaml: true,
  php: true,
  powershell: true,
  python: true,
  r: true,
  ruby: true,
  rust: true,
  shell: ['httpie', 'wget'],
  swift: true,
};

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's policy: this origin only; its inline script (Scalar's start, with the configuration
 * below) by its hash, and no `eval` (zod, inside Scalar's bundle, tries `new Function` once, is
 * refused, and parses without compiling). Styles need 'unsafe-inline': Scalar's bundle adds its
 * stylesheets as `<style>` elements and sets `style` attributes as it renders, with no nonce to give
 * it, and a hash would both miss the styles it makes as it goes and, being present, turn
 * 'unsafe-inline' off.
 */
function contentSecurityPolicy(html: string | undefined): string {
  const scripts = [...(html ?? '').matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) => sha256(match[1] ?? ''),
  );
  return sameOriginPolicy({ scripts, styles: ["'unsafe-inline'"] });
}

/** `/docs`: the reference page, Scalar's bundle and the icon, each with the policy above. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    docs.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html');
      // Scalar's bundle (3.5 MB) is the same until the package changes.
      if (request.url.startsWith(`${ROUTE}/js/`)) reply.header('cache-control', 'public, max-age=3600');
      reply.header(
        'content-security-policy',
        contentSecurityPolicy(html && typeof payload === 'string' ? payload : undefined),
      );
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      return payload;
    });

    docs.get(`${ROUTE}/favicon.svg`, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('content-type', 'image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .send(ICON),
    );

    // The page, written once: Scalar's HTML with this configuration, loading the bundle below.
    const page = getHtmlDocument({
      cdn: `${ROUTE}/js/scalar.js`,
      url: '/v1/openapi.json',
      pageTitle: TITLE,
      favicon: `${ROUTE}/favicon.svg`,
      theme: 'default',
      customCss: BRAND_CSS,
      layout: 'modern',
      hideClientButton: true,
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      documentDownloadType: 'json',
      operationTitleSource: 'summary',
      orderSchemaPropertiesBy: 'preserve',
      defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
      hiddenClients: HIDDEN_CLIENTS,
      agent: { disabled: true },
    });
    // `/docs` and `/docs/` alike (the router ignores one trailing slash).
    docs.get(ROUTE, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(page),
    );
    docs.get(`${ROUTE}/js/scalar.js`, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/javascript; charset=utf-8').send(fs.createReadStream(BUNDLE)),
    );
  });
}
