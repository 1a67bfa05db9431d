#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and clients/ in one node:test run (through tsx), so one summary
// counts them all. Each suite runs on SQLite, and also on PostgreSQL when TEST_DATABASE_URL is set
// (those that only need one store run on SQLite alone: LOGIC_ONLY in test/helpers/context.ts).
//
// The files share a few processes, groups of about FILES_PER_GROUP, three at a time, dealt out by
// the time each file took in a recorded run (test/durations.json) so that they end together: loading the
// app's modules through tsx and warming them up costs a process some 3 to 6 seconds, more than most
// files' tests take, so a process per file spent most of a run on that. Each group is an entry file
// that hands its share to scripts/test-group.mjs.
//
// `--unit` (npm run test:unit) is the quick run while working: SQLite only and in-memory rate
// counters (TEST_DATABASE_URL and TEST_REDIS_URL are dropped), without the files that drive
// Chromium or start server and worker processes (SLOW_FILES) and, in the other files, without the
// suites that start processes (their `skip: SKIP_IN_UNIT_RUN`, test/helpers/process.ts, reads the
// TEST_UNIT set here). `npm test` runs them all.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const filters = args.filter((arg) => arg !== '--unit');
/**
 * Groups run at once (`TEST_CONCURRENCY` sets it, to measure): three on the 2-core machines the
 * targets in docs/testing.md are set on. Much of a file's time is waiting (a server or worker
 * process starting, Chromium, PostgreSQL, a receiver, a timer): two at a time kept about one core
 * busy over a whole run, three about one and a half, and four gained little more.
 */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 3);
/**
 * Files a group holds, about. A whole run makes several groups, more than CONCURRENCY, so that a
 * group that runs longer than expected (a file's recorded time is only a guide) leaves the other
 * slot work to do; a run of a few files makes CONCURRENCY groups.
 */
const FILES_PER_GROUP = 25;
/** The time a test file's suites may take, as when each file had a process of its own. */
const FILE_TIMEOUT_MS = 300_000;
/** How long a group may stay up after its last test (something left open) before it fails. */
const LINGER_MS = 30_000;

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

/**
 * How long each file is expected to take, in seconds: its time in the run test/durations.json
 * records (scripts/test-durations.mjs writes it from a whole run's log), else its size at the
 * recorded files' seconds per byte (a new file). Browsers and processes make time and size differ
 * by a factor of ten and more between files, so size alone dealt one group twice another's work.
 */
function expectedSeconds(list) {
  const recordedFile = path.join(root, 'test', 'durations.json');
  const recorded = fs.existsSync(recordedFile) ? JSON.parse(fs.readFileSync(recordedFile, 'utf8')) : {};
  const bytes = (file) => fs.statSync(path.join(root, file)).size;
  const known = list.filter((file) => typeof recorded[file] === 'number');
  const knownBytes = known.reduce((sum, file) => sum + bytes(file), 0);
  const knownSeconds = known.reduce((sum, file) => sum + recorded[file], 0);
  const perByte = knownBytes > 0 ? knownSeconds / knownBytes : 1 / 10_000;
  return new Map(list.map((file) => [file, recorded[file] ?? bytes(file) * perByte]));
}

/**
 * Deals the files out to `count` groups, longest first, each to the group expected to end first so
 * far. Each group keeps its files in path order; the groups are listed longest first, the order
 * they start in, so that short ones fill the end of the run.
 */
function group(list, count) {
  const seconds = expectedSeconds(list);
  const groups = Array.from({ length: Math.min(count, list.length) }, () => ({ seconds: 0, files: [] }));
  const longestFirst = [...list].sort((a, b) => seconds.get(b) - seconds.get(a));
  for (const file of longestFirst) {
    const first = groups.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    first.seconds += seconds.get(file);
    first.files.push(file);
  }
  return groups.sort((a, b) => b.seconds - a.seconds).map((g) => g.files.sort());
}

// The entries are .mjs, so that they are ES modules wherever they are: a .ts entry outside the
// package would be loaded as CommonJS, with a second copy of every module it reaches.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-test-groups-'));
// A multiple of CONCURRENCY: groups of about equal expected time, as many for each slot.
const groupCount = CONCURRENCY * Math.max(1, Math.round(files.length / (FILES_PER_GROUP * CONCURRENCY)));
const runner = pathToFileURL(path.join(root, 'scripts', 'test-group.mjs')).href;
const limits = { fileTimeoutMs: FILE_TIMEOUT_MS, lingerMs: LINGER_MS };
const entries = group(files, groupCount).map((share, index) => {
  const entry = path.join(dir, `group-${index + 1}.mjs`);
  const paths = share.map((file) => path.join(root, file));
  fs.writeFileSync(
    entry,
    [
      `import { runGroup } from ${JSON.stringify(runner)};`,
      `runGroup(${JSON.stringify(root)}, ${JSON.stringify(paths)}, ${JSON.stringify(limits)});`,
      '',
    ].join('\n'),
  );
  return { entry, files: share.length };
});
// A group's own limit, a backstop for a file whose loading never ends: what its files had in all
// when each had a process. Each file's suite has its own FILE_TIMEOUT_MS.
const groupTimeout = FILE_TIMEOUT_MS * Math.max(...entries.map((e) => e.files));
let status = 1;
try {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${CONCURRENCY}`,
      `--test-timeout=${groupTimeout}`,
      ...entries.map((e) => e.entry),
    ],
    { cwd: root, stdio: 'inherit', env },
  );
  status = result.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
