import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenantShare } from './tenant-share.js';

/**
 * The order a tenant's waiting requests get their connections in (src/db/tenant-share.ts): a
 * request already under way (it had a connection before) goes ahead of requests that have not
 * started, as does one whose route asks to (`ahead`: a cart's completion); each group first come,
 * first served; a request under way is not refused for the length of the queue.
 */
describe('tenant share: who waits ahead', () => {
  interface Connection {
    n: number;
  }

  /** A share of one connection per tenant, over a pool that hands out numbered connections. */
  function oneConnection(queueLimit = 10) {
    let made = 0;
    return createTenantShare<Connection>(async () => ({ n: ++made }), {
      perTenant: 1,
      waitMs: 5_000,
      queueLimit,
      refuse: (why) => new Error(why),
    });
  }

  /** Lets pending promise callbacks run. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('serves a request under way first, then one that asked to go ahead, then the new ones in order', async () => {
    const share = oneConnection();
    const served: string[] = [];
    const ask = (name: string) => share.connect().then((connection) => (served.push(name), connection));

    // A holds the tenant's one connection, then (later, in its own course) asks for a second one.
    let goOn!: () => void;
    const later = new Promise<void>((resolve) => (goOn = resolve));
    let first!: Connection;
    const second = share.run('t', async () => {
      first = await ask('A');
      await later;
      return ask('A again');
    });
    await settle();
    const b = share.run('t', () => ask('B')); // new requests, in this order
    const c = share.run('t', () => ask('C'));
    goOn();
    await settle();
    const d = share.run('t', () => ask('D (ahead)'), true);
    await settle();
    assert.deepEqual(served, ['A']);

    const held = { first };
    share.released(held.first);
    share.released(await second);
    share.released(await d);
    share.released(await b);
    await c;
    assert.deepEqual(served, ['A', 'A again', 'D (ahead)', 'B', 'C']);
  });

  it('refuses a new request when the queue is full, never one under way', async () => {
    const share = oneConnection(1);
    let goOn!: () => void;
    const later = new Promise<void>((resolve) => (goOn = resolve));
    let first!: Connection;
    const again = share.run('t', async () => {
      first = await share.connect();
      await later;
      return share.connect(); // under way: queued all the same
    });
    await settle();
    const waiting = share.run('t', () => share.connect()); // the queue's one place
    await assert.rejects(
      share.run('t', () => share.connect()),
      /queue_full/,
    );
    goOn();
    await settle();
    share.released(first);
    share.released(await again);
    share.released(await waiting);
  });

  it('leaves work outside a tenant to the pool, unqueued', async () => {
    const share = oneConnection();
    const held = await share.run('t', () => share.connect());
    const outside = await share.connect();
    assert.ok(outside.n > held.n);
    share.released(held);
  });
});
