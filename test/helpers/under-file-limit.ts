// Runs the server (src/server.ts's `main`) under a lowered open-file limit, lowered once its modules
// are loaded: `node --import tsx test/helpers/under-file-limit.ts` with OPEN_FILE_LIMIT set.
//
// The limit is what the server sees when it starts and what it serves under, as with
// `ulimit -n` before `npm start`. It is lowered only after loading because under tsx each module is
// compiled as it loads (an esbuild process on pipes, the files read many at a time), and that alone
// can run out of descriptors under a small limit; a built server (`npm start`) loads nothing so.
import { execFileSync } from 'node:child_process';
import { main } from '../../src/server.js';

const limit = Number(process.env.OPEN_FILE_LIMIT);
if (!Number.isInteger(limit) || limit <= 0) throw new Error('OPEN_FILE_LIMIT must be a positive integer');
// util-linux's prlimit sets the soft and hard limit of this very process (Node has no setrlimit).
execFileSync('prlimit', [`--pid=${process.pid}`, `--nofile=${limit}:${limit}`]);
await main();
