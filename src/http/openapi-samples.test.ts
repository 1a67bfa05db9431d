import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { CommerceClient } from '../../clients/typescript/src/index.js';
import { operationTable } from '../../scripts/client/operations.js';
import { ROOT } from '../../scripts/client/render.js';
import { createTestContext, type TestContext } from '../../test/helpers/context.js';
import { literal } from './openapi-samples.js';

type Operation = { operationId: string; 'x-codeSamples'?: { lang: string; label: string; source: string }[] };
type Doc = { paths: Record<string, Record<string, Operation>> };

/**
 * Every operation of the OpenAPI document shows the TypeScript client's call of it: a method
 * that exists on the client, iterated with `for await` where the operation is a paged list, and
 * source that compiles against the client under the repository's strict settings.
 */
describe('TypeScript code samples of the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Doc;
  before(async () => {
    ctx = await createTestContext('sqlite');
    doc = JSON.parse((await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as Doc;
  });
  after(() => ctx.close());

  const samples = () =>
    Object.entries(doc.paths).flatMap(([where, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        where: `${method.toUpperCase()} ${where}`,
        operation,
        sample: operation['x-codeSamples'],
      })),
    );

  it('call, for each operation, the client method named for it (run npm run client:generate if not)', () => {
    const table = new Map(
      operationTable(doc as unknown as Record<string, unknown>).map((op) => [op.operationId, op]),
    );
    const client = new CommerceClient({ apiKey: 'sk_live_sample', baseUrl: 'http://127.0.0.1:9' });
    const namespaces = client as unknown as Record<string, Record<string, unknown> | undefined>;
    let count = 0;
    for (const { where, operation, sample } of samples()) {
      assert.equal(sample?.length, 1, `${where}: one sample`);
      const [only] = sample ?? [];
      assert.deepEqual([only?.lang, only?.label], ['TypeScript', 'TypeScript client'], where);
      const source = only?.source ?? '';
      const call = /commerce\.(\w+)\.(\w+)\(/.exec(source);
      const spec = table.get(operation.operationId);
      assert.ok(call && spec, `${where}: ${source}`);
      assert.deepEqual([call[1], call[2]], [spec.namespace, spec.name], where);
      assert.equal(
        typeof namespaces[spec.namespace]?.[spec.name],
        'function',
        `${where}: client.${call[1]}.${call[2]}`,
      );
      assert.equal(
        /for await \(/.test(source),
        spec.paged,
        `${where}: a paged list is iterated with for await`,
      );
      count += 1;
    }
    assert.equal(count, table.size);
  });

  it('compile against the client under the repository settings', { timeout: 120_000 }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-samples-'));
    try {
      const files = samples().map(({ operation, sample }) => {
        const file = path.join(dir, `${operation.operationId}.mts`);
        fs.writeFileSync(file, `${sample?.[0]?.source ?? ''}\n`);
        return file;
      });
      const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (file) => ts.sys.readFile(file));
      const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
      const program = ts.createProgram(files, { ...options, noEmit: true, rootDir: undefined });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (d) =>
            `${path.basename(d.file?.fileName ?? '')}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        );
      assert.deepEqual(problems, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('write values as TypeScript literals', () => {
    assert.equal(
      literal({ name: 'Tee', 'x-y': [1, true, null], note: "it's" }),
      "{ name: 'Tee', 'x-y': [1, true, null], note: 'it\\'s' }",
    );
  });
});
