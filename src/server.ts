import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from './app.js';
import type { Config } from './config.js';
import { configOrExit, runAsEntryPoint, stopOnSignals } from './entry.js';
import { createDeps, type Deps, type DepsOverrides } from './deps.js';
import { type DemoCredentials, demoCredentialsPath, demoPublishableKey, seedDemoData } from './demo.js';
import { openToOthers } from './lib/private-files.js';
import { loadTls, type TlsMaterial } from './tls.js';

/** How often a worker inside the API process looks for deliveries it was not told of. */
const IN_PROCESS_POLL_MS = 1_000;

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  url: string;
  tls: TlsMaterial | undefined;
  demo: DemoCredentials | undefined;
  /** Drains: new requests get 503, in-flight ones finish, then the store closes. */
  shutdown(): Promise<void>;
}

export async function startServer(
  config: Config,
  overrides: DepsOverrides = {},
  appOptions: Pick<AppOptions, 'extraRoutes'> = {},
): Promise<RunningServer> {
  const deps = await createDeps(config, overrides);
  if (openToOthers(config.dataDir)) {
    deps.logger.warn(
      { data_dir: config.dataDir },
      'DATA_DIR is open to other users: chmod 700 it (the files the server writes there are 0600)',
    );
  }
  const tls = config.tls.enabled ? await loadTls(config) : undefined;
  const demo = config.demoData ? await seedDemoData(deps) : undefined;
  const app = await buildApp(deps, {
    ...appOptions,
    https: tls ? { key: tls.key, cert: tls.cert } : undefined,
  });
  deps.start();
  // In the API process the worker hears of every delivery this process adds, at once, so it polls
  // only for other processes' (a standalone `npm run worker` polls every 100 ms).
  if (config.webhooks.workerInProcess) {
    deps.webhookWorker.start({ pollMs: overrides.webhooks?.worker?.pollMs ?? IN_PROCESS_POLL_MS });
    // Imports run beside the webhook deliveries: here, unless a worker process runs them.
    deps.importRunner.start();
  }
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  const shutdown = () => {
    closing ??= (async () => {
      app.draining = true;
      const force = setTimeout(() => {
        deps.logger.warn('shutdown timeout: closing remaining connections');
        app.server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
        await deps.webhookWorker.stop();
        await deps.importRunner.stop();
        await deps.close();
      }
    })();
    return closing;
  };
  return { app, deps, url, tls, demo, shutdown };
}

function relative(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : `./${rel}`;
}

/** The demo store's shop, served at /shop/ and opened with the store's publishable key. */
function shopLink(url: string, publishableKey: string): string {
  return `${url}/shop/?key=${publishableKey}`;
}

function banner(server: RunningServer): string {
  const { url, tls, demo, deps } = server;
  const lines = [
    '',
    `Commerce Platform API listening on ${url}`,
    `  API base:  ${url}/v1`,
    `  Docs:      ${url}/docs`,
    `  Console:   ${url}/console`,
  ];
  const curlTls = tls ? `--cacert ${relative(tls.certPath)} ` : '';
  if (tls) {
    lines.push(`  TLS cert:  ${tls.certPath}${tls.generated ? ' (self-signed, created now)' : ''}`);
    lines.push(`  SHA-256:   ${tls.fingerprint}`);
  }
  if (demo) {
    lines.push(
      '',
      'Demo data created (shown once; also kept in',
      `  ${demoCredentialsPath(deps.config.dataDir)}, mode 0600):`,
      `  Login:     ${demo.email} / ${demo.password} (at ${url}/console)`,
      `  API key:   ${demo.api_key}`,
      `  Publishable key (public, for /v1/store/*): ${demo.publishable_key}`,
      `  Shop:      ${shopLink(url, demo.publishable_key)}`,
      '',
      'Try it:',
      `  curl ${curlTls}-H "Authorization: Bearer ${demo.api_key}" ${url}/v1/users/me`,
    );
  } else if (fs.existsSync(demoCredentialsPath(deps.config.dataDir))) {
    const publishable = demoPublishableKey(deps.config.dataDir);
    lines.push(
      '',
      'Demo credentials: ' + demoCredentialsPath(deps.config.dataDir),
      ...(publishable
        ? [
            `  Publishable key (public, for /v1/store/*): ${publishable}`,
            `  Shop:      ${shopLink(url, publishable)}`,
          ]
        : []),
      'Try it:',
      `  curl ${curlTls}-H "Authorization: Bearer $(node -p "require('${demoCredentialsPath(deps.config.dataDir)}').api_key")" ${url}/v1/users/me`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}

/** `npm start`: the server from the environment's configuration, with its banner and signals. */
export async function main(): Promise<void> {
  const config = configOrExit();
  const started: { server?: RunningServer } = {};
  // Signals are handled from the very start: one during startup stops the server once it is up.
  const signals = stopOnSignals((error) =>
    started.server?.deps.logger.error({ err: error }, 'shutdown failed'),
  );
  const server = await startServer(config);
  started.server = server;
  if (config.webhooks.allowInsecure) {
    server.deps.logger.warn('WEBHOOK_ALLOW_INSECURE is on: webhooks may target http and private addresses');
  }
  process.stdout.write(banner(server));
  signals.ready(async (signal) => {
    server.deps.logger.info({ signal }, 'shutting down');
    await server.shutdown();
  });
}

runAsEntryPoint(import.meta.url, 'Failed to start', main);
