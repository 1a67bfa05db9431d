import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { BalanceObject } from './wallet.schemas.js';

/** `GET /v1/wallet/balances`: every wallet of the tenant, one per currency, in every version. */

interface Listed {
  data: Record<string, unknown>[];
}

for (const dialect of DIALECTS) {
  describe(`wallet balances per currency (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('lists each wallet with its balance, by currency, and only the caller’s', async () => {
      const tenant = await createTenant(ctx, { currency: 'USD' });
      const api = client(ctx.app, tenant.apiKey.key);
      const other = client(ctx.app, (await createTenant(ctx, { currency: 'GBP' })).apiKey.key);

      const fresh = await api<Listed>('GET', '/v1/wallet/balances');
      assert.equal(fresh.status, 200);
      assert.equal(fresh.body.data.length, 1, 'the tenant’s own currency from creation');
      assert.equal(fresh.body.data[0]?.currency, 'USD');
      assert.equal(fresh.body.data[0]?.available, 0);

      await ctx.deps.wallet.credit(tenant.tenant.id, { amount: 4200, currency: 'USD' });
      await ctx.deps.wallet.credit(tenant.tenant.id, { amount: 900, currency: 'EUR' });
      const listed = await api<Listed>('GET', '/v1/wallet/balances');
      assert.deepEqual(
        listed.body.data.map((w) => [w.currency, w.available, w.pending]),
        [
          ['EUR', 900, 0],
          ['USD', 4200, 0],
        ],
      );
      // The same wallets as GET /wallet/balance, without their transactions.
      for (const wallet of listed.body.data) {
        const one = await api<BalanceObject>('GET', `/v1/wallet/balance?currency=${String(wallet.currency)}`);
        assert.equal(one.body.wallet_id, wallet.wallet_id);
        assert.equal(one.body.updated, wallet.updated);
        assert.deepEqual(Object.keys(wallet).sort(), [
          'available',
          'currency',
          'livemode',
          'pending',
          'updated',
          'wallet_id',
        ]);
      }
      // Another tenant sees its own only.
      const theirs = await other<Listed>('GET', '/v1/wallet/balances');
      assert.deepEqual(
        theirs.body.data.map((w) => w.currency),
        ['GBP'],
      );
      // 2026-06-01 gives each the available amount as `balance`, as GET /wallet/balance does.
      const old = await api<Listed>('GET', '/v1/wallet/balances', {
        headers: { 'x-service-version': '2026-06-01' },
      });
      assert.deepEqual(
        old.body.data.map((w) => [w.currency, w.balance, 'available' in w, 'pending' in w]),
        [
          ['EUR', 900, false, false],
          ['USD', 4200, false, false],
        ],
      );
      // A key without read:wallet is refused.
      const narrow = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'orders only', permissions: ['read:orders'] },
      });
      assert.equal((await client(ctx.app, narrow.body.key)('GET', '/v1/wallet/balances')).status, 403);
    });
  });
}
