import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { createDeps, type Deps } from '../../deps.js';
import { ManualClock } from '../../lib/clock.js';
import type { Principal } from '../../lib/principal.js';
import { migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { eventually } from '../../../test/helpers/webhook-receiver.js';

/** The client address the keys are presented from. */
const LOOPBACK = '127.0.0.1';

/**
 * Two processes' worth of wiring (each its own pool, key cache and listener) on one PostgreSQL
 * schema. The observer's clock stands still, so its 5 s cache never runs out by itself: a change
 * made through the other one can only reach it through the store's notifications.
 */
describe('key cache across processes (postgres)', { skip: !process.env.TEST_DATABASE_URL }, () => {
  let store: TestStore;
  let actor: Deps;
  let observer: Deps;
  let key: string;
  let owner: Principal;

  before(async () => {
    store = await migratedStore('postgres');
    const config = loadConfig(store.env);
    actor = await createDeps(config);
    observer = await createDeps(config, { clock: new ManualClock() });
    actor.start();
    observer.start();
    const tenant = await actor.tenants.create({ name: 'Two processes', email: 'two@example.com' });
    key = tenant.apiKey.key;
    owner = await actor.apiKeys.authenticate(`Bearer ${key}`, LOOPBACK);
  });
  after(async () => {
    await actor.close();
    await observer.close();
    await store.drop();
  });

  const refused = async (header: string) => {
    try {
      await observer.apiKeys.authenticate(header, LOOPBACK);
      return false;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };

  it('refuses a key revoked by another process without waiting for the cache', async () => {
    const doomed = await actor.apiKeys.create(owner, { name: 'doomed', permissions: ['read:products'] });
    const header = `Bearer ${doomed.key}`;
    await observer.apiKeys.authenticate(header, LOOPBACK); // cached by the observer
    await actor.apiKeys.revoke(owner, doomed.id);
    assert.equal(await eventually(() => refused(header), 10_000, 'the revocation'), 'invalid_api_key');
  });

  it('refuses a rolled key at once in every process when rolled without overlap', async () => {
    const rolled = await actor.apiKeys.create(owner, { name: 'rolled', permissions: ['read:products'] });
    const header = `Bearer ${rolled.key}`;
    await observer.apiKeys.authenticate(header, LOOPBACK);
    await actor.apiKeys.roll(owner, rolled.id, 0);
    assert.equal(await eventually(() => refused(header), 10_000, 'the roll'), 'invalid_api_key');
  });

  it('serves new limits set by another process', async () => {
    const header = `Bearer ${key}`;
    const before = await observer.apiKeys.authenticate(header, LOOPBACK);
    await actor.tenants.setLimits(before.tenant.id, { hourly: 7 });
    const hourly = await eventually(
      async () => {
        const limit = (await observer.apiKeys.authenticate(header, LOOPBACK)).tenant.hourly_limit;
        return limit === 7 ? limit : undefined;
      },
      10_000,
      'the new limit',
    );
    assert.equal(hourly, 7);
  });

  it("answers a preflight origin as soon as another process's key lists it, and not after it is revoked", async () => {
    const origin = 'https://two-processes.example';
    assert.equal(await observer.apiKeys.originAllowed(origin), false); // kept by the observer
    const shop = await actor.apiKeys.create(owner, {
      name: 'shop',
      type: 'publishable',
      allowed_origins: [origin],
    });
    const answer = async (expected: boolean) =>
      (await observer.apiKeys.originAllowed(origin)) === expected ? true : undefined;
    assert.equal(await eventually(() => answer(true), 10_000, 'the new key'), true);
    await actor.apiKeys.revoke(owner, shop.id);
    assert.equal(await eventually(() => answer(false), 10_000, 'the revocation'), true);
  });

  it('drops its cache after losing its listening connection, so changes it missed still apply', async () => {
    const missed = await actor.apiKeys.create(owner, { name: 'missed', permissions: ['read:products'] });
    const header = `Bearer ${missed.key}`;
    await observer.apiKeys.authenticate(header, LOOPBACK);
    // Revoked behind every process's back (no notification), and the listeners cut off.
    await sql`UPDATE api_keys SET revoked_at = ${Date.now()} WHERE id = ${missed.id}`.execute(actor.store.db);
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE pid <> pg_backend_pid() AND query LIKE ${`LISTEN "cp_${actor.store.schema}_%`}`.execute(
      actor.store.db,
    );
    assert.equal(await eventually(() => refused(header), 10_000, 'the reconnect'), 'invalid_api_key');
  });
});
