import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import { ManualClock } from '../../lib/clock.js';
import { CurrentUserSchema } from './users.schemas.js';

for (const dialect of DIALECTS) {
  describe(`GET /users/me (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    it('answers the key owner, its tenant and key, exactly in the schema’s shape and order', async () => {
      const created = await ctx.deps.tenants.create({
        name: 'Corner Shop',
        email: 'Ada@Example.com',
        ownerName: 'Ada',
        plan: 'free',
        currency: 'eur',
      });
      const expected = {
        id: created.user.id,
        email: 'ada@example.com',
        name: 'Ada',
        role: 'owner',
        created: new Date(clock.now()).toISOString(),
        tenant: {
          id: created.tenant.id,
          name: 'Corner Shop',
          plan: 'free',
          api_version: created.tenant.api_version,
          currency: 'EUR',
        },
        api_key: { id: created.apiKey.id, name: 'Default key', permissions: created.apiKey.permissions },
      };
      const api = client(ctx.app, created.apiKey.key);
      // The first answer reads the user from the store, the second from the cache.
      for (const attempt of ['uncached', 'cached']) {
        const me = await api('GET', '/v1/users/me');
        assert.equal(me.status, 200, attempt);
        assert.equal(me.headers['content-type'], 'application/json; charset=utf-8', attempt);
        assert.equal(me.raw.body, JSON.stringify(expected), attempt);
        assert.ok(Value.Check(CurrentUserSchema, me.body), attempt);
      }
    });

    it('answers a narrower key with its own permissions, and errors as problems', async () => {
      const owner = await ctx.deps.tenants.create({ name: 'Second', email: 'second@example.com' });
      const narrow = await client(ctx.app, owner.apiKey.key)<{ key: string; id: string }>(
        'POST',
        '/v1/api-keys',
        { body: { name: 'Profile only', permissions: ['read:users'] } },
      );
      const me = await client(ctx.app, narrow.body.key)<{ api_key: unknown }>('GET', '/v1/users/me');
      assert.deepEqual(me.body.api_key, { id: narrow.body.id, name: 'Profile only', permissions: ['read:users'] });

      const refused = await client(ctx.app, 'sk_live_' + 'x'.repeat(40))<{ code: string }>(
        'GET',
        '/v1/users/me',
      );
      assert.equal(refused.status, 401);
      assert.equal(refused.headers['content-type'], 'application/problem+json');
      assert.equal(refused.body.code, 'invalid_api_key');
    });
  });
}
