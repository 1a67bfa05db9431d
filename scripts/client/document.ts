import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';

/** The OpenAPI document and the dated version it describes, as the server serves them. */
export interface ServedDocument {
  document: Record<string, unknown>;
  /** The newest dated version (`X-Service-Version`), the one the client is generated for. */
  version: string;
}

/**
 * Builds the app in this process on a throwaway SQLite store (no TLS, no demo data, nothing from
 * the environment) and asks it for `GET /v1/openapi.json` in the newest version.
 */
export async function servedDocument(): Promise<ServedDocument> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-client-doc-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, TLS: 'off', DEMO_DATA: 'off', LOG_LEVEL: 'silent' });
    const deps = await createDeps(config, { poolSize: 1 });
    try {
      const app = await buildApp(deps);
      try {
        const version = deps.versions.latest.version;
        const response = await app.inject({
          method: 'GET',
          url: '/v1/openapi.json',
          headers: { 'x-service-version': version },
        });
        if (response.statusCode !== 200) {
          throw new Error(`GET /v1/openapi.json answered ${response.statusCode}: ${response.body}`);
        }
        return { document: JSON.parse(response.body) as Record<string, unknown>, version };
      } finally {
        await app.close();
      }
    } finally {
      await deps.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
