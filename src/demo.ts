import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from './deps.js';
import { randomBase62 } from './lib/ids.js';
import { ensurePrivateDir } from './lib/private-files.js';
import type { Config } from './config.js';
import { normaliseOrigin } from './modules/api-keys/index.js';
import { seedDemoCommerce } from './modules/orders/index.js';
import { seedDemoUsage } from './modules/usage/index.js';

export interface DemoCredentials {
  tenant_id: string;
  email: string;
  password: string;
  api_key: string;
  /** The demo store's publishable key (`pk_live_`), for `/v1/store/*`; public. */
  publishable_key: string;
  created: string;
}

export function demoCredentialsPath(dataDir: string): string {
  return path.join(dataDir, 'demo-credentials.json');
}

/**
 * The demo store's publishable key from its credentials file, printed at every start (it is
 * public); undefined when the file holds none (a store seeded before publishable keys).
 */
export function demoPublishableKey(dataDir: string): string | undefined {
  try {
    const saved: unknown = JSON.parse(fs.readFileSync(demoCredentialsPath(dataDir), 'utf8'));
    const key =
      typeof saved === 'object' && saved !== null
        ? (saved as Record<string, unknown>).publishable_key
        : undefined;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The server's own origins as configured, which the demo store's publishable key allows: the
 * configured host (`localhost` and `127.0.0.1` for a wildcard or loopback one) on the configured
 * port, over https (http with TLS=off, where only the loopback names are origins a key may list).
 * None for `PORT=0`, whose port is known only once listening; the server's own pages are allowed
 * for every publishable key anyway (src/http/auth.ts).
 */
export function demoOrigins(config: Pick<Config, 'host' | 'port' | 'tls'>): string[] {
  if (config.port === 0) return [];
  const scheme = config.tls.enabled ? 'https' : 'http';
  const hosts = ['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1'].includes(config.host)
    ? ['localhost', '127.0.0.1']
    : [config.host];
  const origins = new Set<string>();
  for (const host of hosts) {
    const normalised = normaliseOrigin(
      `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}`,
    );
    if ('origin' in normalised) origins.add(normalised.origin);
  }
  return [...origins];
}

/**
 * First start of an empty store: a demo tenant, its owner login, a full-permission key and a
 * publishable key allowing the server's own origins (`demoOrigins`), kept
 * in `DATA_DIR/demo-credentials.json` (mode 0600). Returns them only when they were just made.
 */
export async function seedDemoData(deps: Deps): Promise<DemoCredentials | undefined> {
  if ((await deps.tenants.count()) > 0) return undefined;
  const password = randomBase62(16);
  let created: Awaited<ReturnType<Deps['tenants']['create']>>;
  try {
    created = await deps.tenants.create({
      name: 'Demo Store',
      email: 'demo@example.com',
      ownerName: 'Demo Owner',
      password,
      plan: 'pro',
      currency: 'USD',
      keyName: 'Demo key',
    });
  } catch (error) {
    // Another process starting at the same moment seeded the store first.
    if ((await deps.tenants.count()) > 0) return undefined;
    throw error;
  }
  await seedDemoCommerce(deps, created);
  await seedDemoUsage(deps.store.db, created.tenant.id, deps.clock.now());
  const publishable = await deps.store.transaction((trx) =>
    deps.apiKeys.insertKey(trx, {
      tenantId: created.tenant.id,
      userId: created.user.id,
      name: 'Demo shop',
      type: 'publishable',
      permissions: [],
      allowedOrigins: demoOrigins(deps.config),
      expiresAt: null,
    }),
  );
  const credentials: DemoCredentials = {
    tenant_id: created.tenant.id,
    email: created.user.email,
    password,
    api_key: created.apiKey.key,
    publishable_key: publishable.key,
    created: new Date(deps.clock.now()).toISOString(),
  };
  ensurePrivateDir(deps.config.dataDir);
  fs.writeFileSync(demoCredentialsPath(deps.config.dataDir), `${JSON.stringify(credentials, null, 2)}\n`, {
    mode: 0o600,
  });
  return credentials;
}
