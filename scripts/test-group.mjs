// One process's share of a test run (scripts/test.mjs writes the entry that calls `runGroup`): each
// test file is a suite named by its path, which imports the file, so the file's own suites and hooks
// run inside it, one file after another. A file that cannot be loaded fails its suite; the next file
// still runs.
import { after, describe } from 'node:test';
import { setTimeout } from 'node:timers';
import { pathToFileURL } from 'node:url';

/**
 * Runs `files` (absolute paths, named by their path under `root`), each within `fileTimeoutMs`.
 * The process fails if it is still up `lingerMs` after its last test.
 */
export function runGroup(root, files, { fileTimeoutMs, lingerMs }) {
  for (const file of files) {
    describe(file.slice(root.length + 1), { timeout: fileTimeoutMs }, () => import(pathToFileURL(file).href));
  }
  // A server, socket or timer a file left open keeps the process up, which would otherwise end only
  // at the run's limit for the whole group.
  after(() => {
    setTimeout(() => {
      const open = JSON.stringify(process.getActiveResourcesInfo());
      process.stderr.write(`still running ${lingerMs} ms after its last test, with ${open} open\n`);
      process.exit(1);
    }, lingerMs).unref();
  });
}
