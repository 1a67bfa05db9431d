import { pathToFileURL } from 'node:url';
import { type Config, ConfigError, loadConfig } from './config.js';
import { buildApp } from './app.js';
import { createDeps } from './deps.js';

/**
 * `npm run worker`: webhook delivery (the first-party apps included) and bulk imports as their own
 * process, with the server's configuration and wiring but no HTTP listener. Run several against PostgreSQL to share the queues;
 * SIGTERM/SIGINT stop claiming, let attempts in flight finish (an import stops after its batch in
 * flight and is left for a runner to resume), and exit.
 */

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const deps = await createDeps(config);
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
  process.stdout.write(
    `Webhook worker ${deps.webhookWorker.id} running (pid ${process.pid}, ${deps.store.dialect})\n`,
  );
  process.stdout.write(`Import runner ${deps.importRunner.id} running\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      deps.logger.info({ signal }, 'webhook worker stopping');
      deps.webhookWorker
        .stop()
        .then(() => app.close())
        .then(() => deps.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            deps.logger.error({ err: error }, 'webhook worker stop failed');
            process.exit(1);
          },
        );
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `Worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
