#!/usr/bin/env node
// Records how long each test file took, from the TAP output of a whole run (`npm test`, or CI's
// log), into test/durations.json: scripts/test.mjs deals the files out to its processes by these
// times, so that the processes end together. Run it on a log of a run on a machine like CI's:
//
//   npm test 2>&1 | tee /tmp/run.log; node scripts/test-durations.mjs /tmp/run.log
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = process.argv[2];
if (!log) {
  process.stderr.write('usage: node scripts/test-durations.mjs <TAP log of a whole run>\n');
  process.exit(2);
}
const lines = fs.readFileSync(log, 'utf8').split('\n');
const seconds = {};
for (const [index, line] of lines.entries()) {
  // A file's own line: `ok 12 - src/...test.ts` at the top level, its duration a few lines on.
  const file = /^(?:not )?ok \d+ - (\S+\.test\.ts)$/.exec(line)?.[1];
  if (file === undefined) continue;
  for (const next of lines.slice(index + 1, index + 6)) {
    const ms = /^ {2}duration_ms: ([\d.]+)$/.exec(next)?.[1];
    if (ms !== undefined) {
      seconds[file] = Math.round(Number(ms) / 100) / 10;
      break;
    }
  }
}
const files = Object.keys(seconds).sort();
if (files.length === 0) {
  process.stderr.write(`no test file's duration found in ${log}\n`);
  process.exit(1);
}
const out = path.join(root, 'test', 'durations.json');
fs.writeFileSync(out, `${JSON.stringify(Object.fromEntries(files.map((f) => [f, seconds[f]])), null, 2)}\n`);
process.stdout.write(
  `${files.length} files, ${Math.round(files.reduce((s, f) => s + seconds[f], 0))} s in all: ${path.relative(root, out)}\n`,
);
