import { configOrExit, runAsEntryPoint, stopOnSignals } from './entry.js';
import { buildApp } from './app.js';
import { createDeps } from './deps.js';
import { AUDIT_SEAL_EVERY_MS } from './modules/audit/index.js';

/**
 * `npm run worker`: webhook delivery (the first-party apps included) and bulk imports as their own
 * process, with the server's configuration and wiring but no HTTP listener. Run several against PostgreSQL to share the queues;
 * SIGTERM/SIGINT stop claiming, let attempts in flight finish (an import stops after its batch in
 * flight and is left for a runner to resume), and exit.
 */

async function main(): Promise<void> {
  const config = configOrExit();
  const started: { deps?: Awaited<ReturnType<typeof createDeps>> } = {};
  const signals = stopOnSignals((error) =>
    started.deps?.logger.error({ err: error }, 'webhook worker stop failed'),
  );
  const deps = await createDeps(config);
  started.deps = deps;
  if (config.webhooks.allowInsecure) {
    deps.logger.warn('WEBHOOK_ALLOW_INSECURE is on: webhooks may target http and private addresses');
  }
  // No HTTP here: the app is built, never listening, for the first-party apps to call the API
  // through (with their installation tokens, as any app would).
  const app = await buildApp(deps);
  // Their calls are metered like any key's: written every second, as in the server.
  deps.usageMeter.start();
  deps.webhookWorker.start();
  deps.importRunner.start();
  // The audit log's sealer too: where the API processes run alongside workers (or only read), the
  // entries are chained all the same; sealers of several processes take turns on each chain head.
  const stopSealing = deps.auditSealer.repeat(AUDIT_SEAL_EVERY_MS, (error) =>
    deps.logger.warn({ err: error }, 'audit log seal failed'),
  );
  process.stdout.write(
    `Webhook worker ${deps.webhookWorker.id} running (pid ${process.pid}, ${deps.store.dialect})\n`,
  );
  process.stdout.write(`Import runner ${deps.importRunner.id} running\n`);
  signals.ready(async (signal) => {
    deps.logger.info({ signal }, 'webhook worker stopping');
    await deps.webhookWorker.stop();
    await stopSealing();
    await app.close();
    await deps.close();
  });
}

runAsEntryPoint(import.meta.url, 'Worker failed to start', main);
