import { defineModule } from '../../kernel/module.js';
import type { CodesOf } from '../../lib/errors.js';
import { EVERY_TYPE } from '../versions/index.js';
import * as testMode from './migrations/0053_test_mode.js';
import * as testLedger from './migrations/0064_test_ledger.js';
import { TEST_MODE_PROBLEMS } from './test-mode.problems.js';
import { testModeRoutes } from './test-mode.routes.js';
import { createTestModeService, type TestModeService } from './test-mode.service.js';

/**
 * Test mode: every store has a paired test store, a tenant of its own (`tenants.mode = 'test'`,
 * `live_tenant_id` naming its live store), selected by `sk_test_`/`pk_test_` keys and by the
 * console's switch. Because it is a tenant, the tenant scoping every query already has keeps its
 * data apart from live's. This module adds what only test mode has: test money, a reset and a copy
 * of live's catalog, pricing and settings, and `livemode` on every object (src/http/livemode.ts).
 */

declare module '../../db/schema.js' {
  interface TenantsTable {
    /** `live`, or `test` for a store's test mode (migration 0053). */
    mode: 'live' | 'test';
    /** A test store's live store; null for a live store. */
    live_tenant_id: string | null;
  }
  interface ApiKeysTable {
    /** Its store's mode, which its prefix shows (`sk_test_`, `pk_test_`); migration 0053. */
    mode: 'live' | 'test';
  }
}
declare module '../../db/schema.ledger.js' {
  interface LedgerAccountsTable {
    /**
     * A wallet's store's mode; test mode has platform accounts of its own, so no entry mixes the
     * modes (migration 0064).
     */
    mode: 'live' | 'test';
  }
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof TEST_MODE_PROBLEMS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Test money, a reset of test data and copies of live's parts into test mode. */
    testMode: TestModeService;
  }
}

export default defineModule({
  name: 'test-mode',
  position: 26,
  tags: [
    {
      name: 'Test mode',
      description:
        'A store’s test mode: a store of its own (`sk_test_` and `pk_test_` keys) whose data never mixes with live’s; reset it, or copy live’s catalog, pricing and settings into it',
    },
  ],
  operationIds: {
    'POST /v1/wallet/fund': 'fundTestWallet',
    'POST /v1/test-mode/reset': 'resetTestMode',
    'POST /v1/test-mode/copy': 'copyLiveToTestMode',
  },
  problems: TEST_MODE_PROBLEMS,
  migrations: { '0053_test_mode': testMode, '0064_test_ledger': testLedger },
  needs: ['tenants', 'wallet', 'settings', 'audit'],
  services: (deps) => ({ testMode: createTestModeService(deps) }),
  routes: [{ plugin: testModeRoutes }],
  versionChanges: {
    '2027-01-20': [
      {
        description:
          'Test mode: every object and event gains `livemode`; API keys gain `mode` (`live` or `test`).',
        toPrevious: {
          [EVERY_TYPE]: (object) => without(object, 'livemode'),
          api_key: (key) => without(key, 'mode'),
        },
      },
    ],
  },
});

/** `object` without its member `name` (itself when it has none). */
function without(object: Record<string, unknown>, name: string): Record<string, unknown> {
  if (!(name in object)) return object;
  const { [name]: _dropped, ...rest } = object;
  return rest;
}
