import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from './deps.js';
import { randomBase62 } from './lib/ids.js';
import { ensurePrivateDir } from './lib/private-files.js';
import { seedDemoCommerce } from './modules/orders/index.js';
import { seedDemoUsage } from './modules/usage/index.js';

export interface DemoCredentials {
  tenant_id: string;
  email: string;
  password: string;
  api_key: string;
  created: string;
}

export function demoCredentialsPath(dataDir: string): string {
  return path.join(dataDir, 'demo-credentials.json');
}

/**
 * First start of an empty store: a demo tenant, its owner login and a full-permission key, kept
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
  const credentials: DemoCredentials = {
    tenant_id: created.tenant.id,
    email: created.user.email,
    password,
    api_key: created.apiKey.key,
    created: new Date(deps.clock.now()).toISOString(),
  };
  ensurePrivateDir(deps.config.dataDir);
  fs.writeFileSync(demoCredentialsPath(deps.config.dataDir), `${JSON.stringify(credentials, null, 2)}\n`, {
    mode: 0o600,
  });
  return credentials;
}
