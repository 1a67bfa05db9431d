import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { servedDocument } from '../../../scripts/client/document.js';
import { GENERATED_DIR, renderClient, ROOT } from '../../../scripts/client/render.js';

/**
 * The client's generated files are what the server's current OpenAPI document gives: a route,
 * schema or operationId changed without `npm run client:generate` fails here.
 */
describe('the generated TypeScript client', () => {
  it('matches the OpenAPI document the server serves now', { timeout: 120_000 }, async () => {
    const { document, version } = await servedDocument();
    const files = await renderClient(document, version);
    const stale: string[] = [];
    for (const [file, text] of Object.entries(files)) {
      const full = path.join(ROOT, file);
      if (!fs.existsSync(full) || fs.readFileSync(full, 'utf8') !== text) stale.push(file);
    }
    const extra = fs
      .readdirSync(path.join(ROOT, GENERATED_DIR))
      .map((name) => `${GENERATED_DIR}/${name}`)
      .filter((file) => !(file in files));
    assert.deepEqual(
      [...stale, ...extra],
      [],
      'the client is out of date with the OpenAPI document: run npm run client:generate',
    );
    // What it covers: every operation of the document, for the newest version.
    const operations = files[`${GENERATED_DIR}/operations.ts`] ?? '';
    assert.match(operations, new RegExp(`API_VERSION = '${version}'`));
  });
});
