import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

/**
 * The API server as bench/audit.ts runs it: `BENCH_REQUEST_LOG=off` builds it without the request
 * log (`unwritten`: requests captured and their rows made, not written; `unbodied`: the rows written without their bodies), `BENCH_AUDIT=off` without audit entries (deps overrides, not product settings), so each side
 * of a comparison costs the same start.
 */
const server = await startServer(loadConfig(), {
  requestLog:
    process.env.BENCH_REQUEST_LOG === 'unwritten' || process.env.BENCH_REQUEST_LOG === 'unbodied'
      ? process.env.BENCH_REQUEST_LOG
      : process.env.BENCH_REQUEST_LOG !== 'off',
  audit: process.env.BENCH_AUDIT !== 'off',
});
process.stdout.write(`audit bench server listening on ${server.url}\n`);
process.once('SIGTERM', () => void server.shutdown().then(() => process.exit(0)));
