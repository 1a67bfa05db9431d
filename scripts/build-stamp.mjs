// Whether dist/ holds a build of the current sources: `npm start` (scripts/run.mjs) builds first
// when it does not, and the tests that start server and worker processes run the build when it
// does (test/helpers/process.ts), as `npm start` would, and the sources through tsx when it does not.
import fs from 'node:fs';
import path from 'node:path';

/** What a build is made from: the server's, the web apps' and the client's sources, and the settings. */
const SOURCE_DIRS = ['src', 'console', 'shop', path.join('clients', 'typescript', 'src')];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

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

/** The file `npm run build` (scripts/build.mjs) writes last. */
export function buildStamp(root) {
  return path.join(root, 'dist', '.build-stamp');
}

/** Whether the last build is newer than every source it is made from. */
export function buildIsCurrent(root) {
  const stamp = buildStamp(root);
  if (!fs.existsSync(stamp)) return false;
  const sources = Math.max(
    ...SOURCE_DIRS.map((dir) => newestMtime(path.join(root, dir))),
    ...SOURCE_FILES.map((file) => path.join(root, file)).map((file) =>
      fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0,
    ),
  );
  return sources <= fs.statSync(stamp).mtimeMs;
}
