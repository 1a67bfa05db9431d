import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The Node versions the project declares (package.json `engines.node`) are ones every locked
 * package accepts: otherwise `npm ci` warns EBADENGINE on them, and the package may not run there.
 * package.json `overrides` keep the few that moved past them (cookie 2, content-disposition 3 ask
 * for Node 22) on versions that still run on the oldest declared line.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

/** semver (through fastify; no type package is installed): the four functions used here. */
const semver = createRequire(import.meta.url)('semver') as {
  validRange(range: string): string | null;
  minVersion(range: string): { major: number } | null;
  intersects(a: string, b: string): boolean;
  satisfies(version: string, range: string): boolean;
};

interface LockedPackage {
  version?: string;
  engines?: { node?: unknown } | unknown[];
}

const project = (readJson('package.json') as { engines: { node: string } }).engines.node;
const locked = Object.entries(
  (readJson('package-lock.json') as { packages: Record<string, LockedPackage> }).packages,
)
  .filter(([where]) => where !== '')
  .map(([where, entry]) => ({
    name: `${where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version ?? '?'}`,
    where,
    node:
      entry.engines && !Array.isArray(entry.engines) && typeof entry.engines.node === 'string'
        ? entry.engines.node
        : undefined,
  }))
  .filter((entry): entry is { name: string; where: string; node: string } => entry.node !== undefined);

describe('dependency engines', () => {
  it('reads a Node range from package.json and engines from the lock file', () => {
    assert.ok(semver.validRange(project), `engines.node "${project}" is not a range`);
    assert.ok(locked.length > 100, `only ${locked.length} locked packages declare engines.node`);
  });

  it('locks no package that refuses the oldest Node line the project declares', () => {
    const oldest = semver.minVersion(project)?.major;
    assert.ok(oldest !== undefined);
    const line = `^${oldest}.0.0`;
    const refusing = locked
      .filter(({ node }) => semver.validRange(node) === null || !semver.intersects(node, line))
      .map(({ name, where, node }) => `${name} (${where}) needs node "${node}"`);
    assert.deepEqual(refusing, [], `packages that do not run on Node ${oldest} (engines.node ${project})`);
  });

  it('locks no package that refuses this Node, when the project declares it', (t) => {
    if (!semver.satisfies(process.version, project)) {
      t.skip(`Node ${process.version} is outside engines.node ${project}`);
      return;
    }
    const refusing = locked
      .filter(({ node }) => semver.validRange(node) === null || !semver.satisfies(process.version, node))
      .map(({ name, where, node }) => `${name} (${where}) needs node "${node}"`);
    assert.deepEqual(refusing, [], `npm ci on Node ${process.version} would warn EBADENGINE for these`);
  });
});
