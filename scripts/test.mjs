#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and clients/ in one node:test run (through tsx), so one summary
// counts them all. Each suite runs on SQLite, and also on PostgreSQL when TEST_DATABASE_URL is set.
//
// `--unit` (npm run test:unit) is the quick run while working: SQLite only and in-memory rate
// counters (TEST_DATABASE_URL and TEST_REDIS_URL are dropped), without the files that drive
// Chromium or start server and worker processes (SLOW_FILES) and, in the other files, without the
// suites that start processes (their `skip: SKIP_IN_UNIT_RUN`, test/helpers/process.ts, reads the
// TEST_UNIT set here). `npm test` runs them all.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const filters = args.filter((arg) => arg !== '--unit');

/** Files left out of `--unit`: each drives a browser or starts processes in every suite. */
const SLOW_FILES = [
  /\.browser\.test\.ts$/,
  /\.processes\.test\.ts$/,
  /^test\/(cluster|faults|rate-limit-processes)\.test\.ts$/,
];

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) return item.name === 'node_modules' ? [] : find(full);
    return item.name.endsWith('.test.ts') ? [full] : [];
  });
}

const matched = ['src', 'test', 'clients']
  .flatMap((dir) => find(path.join(root, dir)))
  .map((file) => path.relative(root, file).split(path.sep).join('/'))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
const files = unit ? matched.filter((file) => !SLOW_FILES.some((slow) => slow.test(file))) : matched;
if (unit) {
  const left = matched.length - files.length;
  process.stderr.write(
    `--unit: SQLite only, in-memory rate counters; ${left} file(s) left out (a browser, processes)\n`,
  );
}
if (files.length === 0) {
  process.stderr.write('no test files matched\n');
  process.exit(1);
}
const env = { ...process.env, NODE_ENV: 'test' };
if (unit) {
  delete env.TEST_DATABASE_URL;
  delete env.TEST_REDIS_URL;
  env.TEST_UNIT = '1';
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
