import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Static } from 'typebox';
import {
  createApiClient,
  dataOf,
  setCsrfToken,
  setUnauthorizedHandler,
} from '../../../console/src/api/client.js';
import { ApiError, describeError } from '../../../console/src/api/errors.js';
import * as catalog from '../../../console/src/catalog.js';
import type { Account, SignupResult } from '../../../console/src/types.js';
import { CONSOLE_API_VERSION } from '../../../console/src/version.js';
import { loadModules } from '../../kernel/modules.js';
import { createVocabulary } from '../../kernel/vocabulary.js';
import { PLUGIN_CATEGORIES, pluginEvents, pluginPermissions } from '../plugins/plugins.catalog.js';
import type { AccountSchema, SignupResultObject } from './console.schemas.js';

/**
 * The developer console's own code (console/src), where a browser is not needed to see it: its
 * client of `/v1` against a local server (the session's headers, idempotency keys, problem+json
 * answers as the errors its pages show), and its sources (no values from the server's code, its
 * choices the server's own lists, no file over 600 lines).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CONSOLE_SRC = path.join(ROOT, 'console', 'src');

/** Whether two types are the same (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The console writes its account routes' shapes out (they are not in the OpenAPI document): the
// type checker holds them to the server's schemas.
const accountShapes: [Same<Account, Static<typeof AccountSchema>>, Same<SignupResult, SignupResultObject>] = [
  true,
  true,
];

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

interface Asked {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('the console', () => {
  describe('its client of /v1', () => {
    let server: http.Server;
    let baseUrl: string;
    const asked: Asked[] = [];
    const answers: Answer[] = [];

    before(async () => {
      server = http.createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          asked.push({
            method: request.method ?? '',
            url: request.url ?? '',
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          const answer = answers.shift() ?? { status: 200, body: '{}' };
          response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          response.end(answer.body ?? '');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    beforeEach(() => {
      asked.length = 0;
      answers.length = 0;
      setCsrfToken('csrf-of-the-session');
    });

    const createKey = (name: string) =>
      dataOf(createApiClient(baseUrl).POST('/v1/api-keys', { body: { name, permissions: ['read:orders'] } }));

    it('sends the session’s CSRF token and the version it reads; a POST with an idempotency key', async () => {
      answers.push({ status: 201, body: JSON.stringify({ id: 'key_1' }) });
      const created = await createKey('Reporting');
      assert.equal(created.id, 'key_1');
      const [sent] = asked;
      assert.equal(sent?.url, '/v1/api-keys');
      assert.equal(sent?.headers['x-csrf-token'], 'csrf-of-the-session');
      assert.equal(sent?.headers['x-service-version'], CONSOLE_API_VERSION);
      assert.equal(sent?.headers.accept, 'application/json');
      assert.match(
        String(sent?.headers['idempotency-key']),
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      assert.deepEqual(JSON.parse(sent?.body ?? ''), { name: 'Reporting', permissions: ['read:orders'] });

      // A GET has no key; a call that names its version is sent in it.
      await dataOf(
        createApiClient(baseUrl).GET('/v1/events/{id}', {
          params: { path: { id: 'evt_1' }, header: { 'X-Service-Version': '2026-11-21' } },
        }),
      );
      assert.equal(asked[1]?.headers['idempotency-key'], undefined);
      assert.equal(asked[1]?.headers['x-service-version'], '2026-11-21');
    });

    it('sends a POST that settled nothing again under the same key, and the next submission under a new one', async () => {
      answers.push(
        { status: 503, body: JSON.stringify({ code: 'service_unavailable', detail: 'Retry.' }) },
        { status: 409, body: JSON.stringify({ code: 'idempotency_conflict', detail: 'Still running.' }) },
        { status: 201, body: JSON.stringify({ id: 'key_2' }) },
        { status: 201, body: JSON.stringify({ id: 'key_3' }) },
      );
      await assert.rejects(
        createKey('Warehouse'),
        (error) => error instanceof ApiError && error.status === 503,
      );
      await assert.rejects(
        createKey('Warehouse'),
        (error) => error instanceof ApiError && error.status === 409,
      );
      await createKey('Warehouse');
      await createKey('Warehouse');
      const keys = asked.map((request) => request.headers['idempotency-key']);
      assert.equal(keys[1], keys[0], 'the retry after a 503 is the same submission');
      assert.equal(keys[2], keys[0], 'the retry after a 409 is the same submission');
      assert.notEqual(keys[3], keys[0], 'after a 201 the same body is a new submission');
    });

    it('throws a problem+json answer as the error the pages show, fields and request id included', async () => {
      answers.push({
        status: 400,
        headers: { 'content-type': 'application/problem+json' },
        body: JSON.stringify({
          code: 'validation_failed',
          detail: 'The request is invalid.',
          errors: [{ field: 'name', message: 'must NOT have more than 100 characters' }],
          request_id: 'req_1',
        }),
      });
      const refused = await createKey('x'.repeat(101)).then(
        () => assert.fail('not refused'),
        (error: unknown) => error,
      );
      assert.ok(refused instanceof ApiError);
      assert.equal(refused.status, 400);
      assert.equal(refused.code, 'validation_failed');
      assert.equal(refused.requestId, 'req_1');
      assert.equal(describeError(refused), 'Name must be at most 100 characters.');

      // Without a problem body (a proxy's page), the status and Retry-After say it.
      answers.push({
        status: 429,
        headers: { 'content-type': 'text/html', 'retry-after': '30' },
        body: '<html>Too Many Requests</html>',
      });
      const limited = await createKey('y').then(
        () => assert.fail('not refused'),
        (error: unknown) => error,
      );
      assert.ok(limited instanceof ApiError);
      assert.equal(limited.detail, 'Too many requests. Retry in 30 seconds.');
      assert.equal(limited.retryAfterMs, 30_000);
    });

    it('says the session ended on a 401, and that the server was not reached when it was not', async () => {
      let ended = 0;
      setUnauthorizedHandler(() => (ended += 1));
      answers.push({ status: 401, body: JSON.stringify({ code: 'unauthorized', detail: 'Log in.' }) });
      await assert.rejects(createKey('z'), (error) => error instanceof ApiError && error.status === 401);
      assert.equal(ended, 1);

      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      await assert.rejects(
        dataOf(createApiClient(`http://127.0.0.1:${port}`).GET('/v1/versions')),
        (error) => error instanceof ApiError && error.code === 'network_error',
      );
      setUnauthorizedHandler(() => undefined);
    });
  });

  describe('its sources', () => {
    function sources(dir: string): string[] {
      return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return sources(full);
        return /\.tsx?$/.test(entry.name) ? [full] : [];
      });
    }

    it('import nothing from the server’s code: types and values come from the generated client', () => {
      const serverCode = path.join(ROOT, 'src') + path.sep;
      const reaching = sources(CONSOLE_SRC).flatMap((file) => {
        const text = fs.readFileSync(file, 'utf8');
        const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(
          (match) => match[1] ?? '',
        );
        return specifiers
          .filter((specifier) => specifier.startsWith('.'))
          .filter((specifier) => path.resolve(path.dirname(file), specifier).startsWith(serverCode))
          .map((specifier) => `${path.relative(ROOT, file)}: ${specifier}`);
      });
      assert.deepEqual(reaching, []);
    });

    it('offer the server’s own lists as choices, in its order', async () => {
      const vocabulary = createVocabulary(await loadModules());
      assert.deepEqual([...catalog.EVENT_TYPES], [...vocabulary.eventTypes]);
      assert.deepEqual([...catalog.PERMISSIONS], [...vocabulary.permissions]);
      assert.deepEqual([...catalog.PLUGIN_CATEGORIES], [...PLUGIN_CATEGORIES]);
      assert.deepEqual([...catalog.PLUGIN_PERMISSIONS], pluginPermissions(vocabulary));
      assert.deepEqual([...catalog.PLUGIN_EVENTS], pluginEvents(vocabulary));
      assert.deepEqual(accountShapes, [true, true]);
    });

    it('keep every file under 600 lines', () => {
      const long = sources(CONSOLE_SRC)
        .map((file) => ({
          file: path.relative(ROOT, file),
          lines: fs.readFileSync(file, 'utf8').split('\n').length,
        }))
        .filter(({ lines }) => lines > 600);
      assert.deepEqual(long, []);
    });
  });
});
