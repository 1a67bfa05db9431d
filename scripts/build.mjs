#!/usr/bin/env node
// Compiles the server to dist/ and stamps the build so `npm start` can tell when to rebuild.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Emitted without a type check (`--noCheck`): `npm run typecheck` is the check, and CI runs it beside
// the build; `npm start` on a fresh clone waits for the emit alone.
const steps = [['node_modules/.bin/tsc', ['-p', 'tsconfig.build.json', '--noCheck']]];
// The web apps the server serves: the console at /console, the shop at /shop/.
for (const app of ['console', 'shop']) {
  if (fs.existsSync(path.join(root, app, 'vite.config.ts'))) {
    steps.push([
      'node_modules/.bin/vite',
      ['build', '--config', `${app}/vite.config.ts`, '--logLevel', 'warn'],
    ]);
  }
}
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
for (const [command, args] of steps) {
  const result = spawnSync(path.join(root, command), args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
fs.writeFileSync(buildStamp(root), new Date().toISOString());
