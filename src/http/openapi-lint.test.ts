import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { client, createTestContext, type TestContext } from '../../test/helpers/context.js';

/**
 * The OpenAPI document through a standard linter: Redocly CLI's `lint` with its `recommended` rules
 * (redocly.yaml at the repository's root), run as a user runs it, on the document the server
 * serves. No error, and no warning but those of a rule that does not fit, where it does not
 * (docs/api-conventions.md says why, each). Beside it, the same linter reads a copy broken the ways
 * the document once was, which shows the run and the reading of its report find them. One lint of
 * the served document takes a few seconds (1.1 MB).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const CONFIG = path.join(ROOT, 'redocly.yaml');

/** The warnings allowed: a rule, and where it may warn. Each is explained in docs/api-conventions.md. */
const ALLOWED_WARNINGS: { rule: string; where: RegExp }[] = [
  // The health checks take no input and no key and are not rate limited: no 4xx is theirs.
  { rule: 'operation-4xx-response', where: /^#\/paths\/~1(healthz|readyz)\/get\/responses$/ },
];

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}
interface Report {
  totals: { errors: number; warnings: number };
  problems: Problem[];
}
type Node = Record<string, unknown>;

const pointerOf = (problem: Problem) => problem.location[0]?.pointer ?? '';
const describeProblem = (problem: Problem) =>
  `${problem.ruleId} at ${pointerOf(problem)}: ${problem.message}`;

/** Lints a document as `redocly lint --format=json` reports it (the CLI exits 1 on an error). */
async function lint(document: unknown, dir: string, name: string): Promise<Report> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(document));
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, 'lint', file, `--config=${CONFIG}`, '--format=json', '--max-problems=10000'],
      { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' }, maxBuffer: 64 << 20 },
      (error, out, err) => {
        if (error && error.code !== 1)
          reject(new Error(`redocly lint failed (${String(error.code)}): ${err}`));
        else resolve(out);
      },
    );
  });
  return JSON.parse(stdout) as Report;
}

/**
 * The document as it was before it passed: an Ajv keyword in a date's schema, a route without a key
 * that does not say so, no license. Two of its operations, and where its Ajv keyword is.
 */
function brokenCopy(doc: Node): { document: Node; ajvKeyword: string } {
  const paths = doc.paths as Record<string, Record<string, Node>>;
  const health = structuredClone(paths['/healthz']);
  const analytics = structuredClone(paths['/v1/analytics']);
  assert.ok(health?.get && analytics?.get, 'the document has /healthz and /v1/analytics');
  delete health.get.security;
  const parameters = analytics.get.parameters as Node[];
  const from = parameters.findIndex((p) => p.name === 'from');
  assert.ok(from >= 0, 'GET /v1/analytics takes from');
  (parameters[from]?.schema as Node).formatMinimum = '1970-01-01';
  const { license: _license, ...info } = doc.info as Node;
  return {
    document: { ...doc, info, paths: { '/healthz': health, '/v1/analytics': analytics }, webhooks: {} },
    ajvKeyword: `#/paths/~1v1~1analytics/get/parameters/${from}/schema/formatMinimum`,
  };
}

describe('the OpenAPI document under Redocly lint (recommended rules)', { timeout: 180_000 }, () => {
  let ctx: TestContext;
  let dir: string;
  let served: Report;
  let broken: Report;
  let ajvKeyword: string;
  before(async () => {
    ctx = await createTestContext('sqlite');
    const res = await client(ctx.app)<Node>('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-openapi-lint-'));
    const copy = brokenCopy(res.body);
    ajvKeyword = copy.ajvKeyword;
    [served, broken] = await Promise.all([
      lint(res.body, dir, 'openapi.json'),
      lint(copy.document, dir, 'broken.json'),
    ]);
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  it('finds no error, and warns only where docs/api-conventions.md says a rule does not fit', () => {
    const errors = served.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors.map(describeProblem), []);
    assert.equal(served.totals.errors, 0);
    const unexplained = served.problems.filter(
      (p) =>
        p.severity === 'warn' &&
        !ALLOWED_WARNINGS.some(({ rule, where }) => rule === p.ruleId && where.test(pointerOf(p))),
    );
    assert.deepEqual(unexplained.map(describeProblem), []);
  });

  it("finds an Ajv keyword, a route that does not say it needs no key, and the license's absence", () => {
    const found = (severity: Problem['severity'], rule: string, pointer: string) =>
      broken.problems.some((p) => p.severity === severity && p.ruleId === rule && pointerOf(p) === pointer);
    const report = broken.problems.map(describeProblem).join('\n');
    assert.ok(found('error', 'struct', ajvKeyword), report);
    assert.ok(found('error', 'security-defined', '#/paths/~1healthz/get'), report);
    assert.ok(found('warn', 'info-license', '#/info'), report);
  });
});
