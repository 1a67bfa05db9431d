#!/usr/bin/env node
// Runs a compiled entry point (`server`, `worker`, `cli/admin`), building first when the sources
// are newer than the last build. Build output goes to stderr so stdout stays the program's own.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIsCurrent } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs <entry> [args...]\n');
  process.exit(2);
}
if (!buildIsCurrent(root)) {
  process.stderr.write('Building (sources changed since the last build)...\n');
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
process.argv.splice(1, 2, path.join(root, 'dist', `${entry}.js`));
await import(pathToFileURL(path.join(root, 'dist', `${entry}.js`)).href);
