#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ in one node:test run (through tsx), so one summary
// counts them all. Each suite runs on SQLite, and also on PostgreSQL when TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) return item.name === 'node_modules' ? [] : find(full);
    return item.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = [...find(path.join(root, 'src')), ...find(path.join(root, 'test'))]
  .map((file) => path.relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  process.stderr.write('no test files matched\n');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
