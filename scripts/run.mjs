#!/usr/bin/env node
// Runs a compiled entry point (`server`, `worker`, `cli/admin`), building first when the sources
// are newer than the last build. Build output goes to stderr so stdout stays the program's own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs <entry> [args...]\n');
  process.exit(2);
}
const stamp = path.join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    if (item.name === 'node_modules' || item.name === 'dist') continue;
    const full = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const sources = Math.max(
  newestMtime(path.join(root, 'src')),
  newestMtime(path.join(root, 'console')),
  newestMtime(path.join(root, 'shop')),
  // The shop bundles the TypeScript client's browser entry.
  newestMtime(path.join(root, 'clients', 'typescript', 'src')),
  ...['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) =>
    fs.existsSync(path.join(root, f)) ? fs.statSync(path.join(root, f)).mtimeMs : 0,
  ),
);
const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
if (sources > built) {
  process.stderr.write('Building (sources changed since the last build)...\n');
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
process.argv.splice(1, 2, path.join(root, 'dist', `${entry}.js`));
await import(pathToFileURL(path.join(root, 'dist', `${entry}.js`)).href);
