import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

/**
 * The API server as bench/rate-limit.ts runs it: `BENCH_LIMITS=off` builds it without rate limits,
 * quota and usage metering (a deps override, not a product setting), so both cost the same start.
 */
const server = await startServer(loadConfig(), { limitsAndMetering: process.env.BENCH_LIMITS !== 'off' });
process.stdout.write(`rate-limit bench server listening on ${server.url}\n`);
process.once('SIGTERM', () => void server.shutdown().then(() => process.exit(0)));
