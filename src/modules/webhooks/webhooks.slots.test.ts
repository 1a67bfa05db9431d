import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from './webhooks.queue.repository.js';
import { createSlots, PREFETCH_ROUNDS, type Slots } from './webhooks.slots.js';

/**
 * A worker's slot accounting (webhooks.slots.ts), without a store: which claimed attempt starts
 * next, within which caps, and how much the worker may claim. The worker's tests (delivery,
 * prefetch, fairness) prove the same through real deliveries.
 */

let ids = 0;
/** A claimed attempt of `endpoint` (of `tenant`); the slots read only these fields. */
function job(endpoint: string, tenant: string): Job {
  ids += 1;
  return { id: `del_${ids}`, endpoint_id: endpoint, tenant_id: tenant } as Job;
}

/** Takes the next attempt to start and starts it; its endpoint, or undefined when none may start. */
function startNext(slots: Slots): string | undefined {
  const next = slots.next();
  if (!next) return undefined;
  slots.startSending(next.claimed.job);
  return next.claimed.job.endpoint_id;
}

describe('webhook worker slots', () => {
  it('starts each free slot for the tenant with the fewest sending, within every cap', () => {
    const slots = createSlots({ concurrency: 4, perEndpoint: 2, perTenant: 4 });
    for (let i = 0; i < 4; i++) slots.hold({ job: job('a0', 'a'), leaseUntil: 1 });
    for (let i = 0; i < 2; i++) slots.hold({ job: job('a1', 'a'), leaseUntil: 1 });
    slots.hold({ job: job('b0', 'b'), leaseUntil: 1 });
    assert.equal(slots.total, 7);
    // a0 was claimed first; then tenant b, which has none sending; then a0 up to its 2, then a1.
    assert.deepEqual(
      [startNext(slots), startNext(slots), startNext(slots), startNext(slots)],
      ['a0', 'b0', 'a0', 'a1'],
    );
    assert.equal(startNext(slots), undefined, 'all 4 slots are taken, though a1 and tenant a have room');
    assert.equal(slots.total, 7, 'attempts sending are still held');
  });

  it('frees an attempt slot once its receiver has answered, and keeps to the endpoint and tenant caps', () => {
    const slots = createSlots({ concurrency: 10, perEndpoint: 2, perTenant: 3 });
    const sent = [job('a0', 'a'), job('a0', 'a')];
    for (const claimed of sent) slots.hold({ job: claimed, leaseUntil: 1 });
    for (let i = 0; i < 2; i++) slots.hold({ job: job('a0', 'a'), leaseUntil: 1 });
    for (let i = 0; i < 2; i++) slots.hold({ job: job('a1', 'a'), leaseUntil: 1 });
    assert.deepEqual([startNext(slots), startNext(slots), startNext(slots)], ['a0', 'a0', 'a1']);
    assert.equal(startNext(slots), undefined, 'tenant a has its 3 sending');
    slots.sent(sent[0] as Job);
    assert.equal(slots.total, 5, 'an attempt sent no longer counts against the claim');
    assert.equal(startNext(slots), 'a0', 'a0 has room again, and its first attempt was claimed before a1');
  });

  it('says when an endpoint runs low on attempts claimed ahead', () => {
    const slots = createSlots({ concurrency: 10, perEndpoint: 1, perTenant: 10 });
    const claimed = Array.from({ length: 4 }, () => job('a0', 'a'));
    for (const held of claimed) slots.hold({ job: held, leaseUntil: 1 });
    const low: boolean[] = [];
    for (const held of claimed) {
      const next = slots.next();
      assert.ok(next);
      assert.equal(next.claimed.job, held, 'oldest first');
      low.push(next.runningLow);
      slots.startSending(held);
      slots.sent(held);
    }
    assert.deepEqual(low, [false, true, false, false], 'two rounds of perEndpoint left: time to claim more');
    assert.equal(slots.waiting('a0'), false);
  });

  it('claims further ahead for an endpoint that answers fast, and leaves full ones out of a claim', () => {
    const slots = createSlots({ concurrency: 64, perEndpoint: 8, perTenant: 2 });
    assert.equal(slots.endpointCap('a0'), 8);
    slots.took('a0', 20);
    assert.equal(slots.endpointCap('a0'), 8 * PREFETCH_ROUNDS);
    for (let i = 0; i < 5; i++) slots.took('a0', 2_000);
    assert.equal(slots.endpointCap('a0'), 8, 'slow again on average');
    for (let i = 0; i < 8; i++) slots.hold({ job: job('a0', 'a'), leaseUntil: 1 });
    for (let i = 0; i < 2 * PREFETCH_ROUNDS; i++) slots.hold({ job: job(`b${i}`, 'b'), leaseUntil: 1 });
    assert.deepEqual(slots.full(), { endpoints: ['a0'], tenants: ['b'] });
  });

  it('gives back every attempt waiting to start when the worker stops, and keeps those sending', () => {
    const slots = createSlots({ concurrency: 1, perEndpoint: 1, perTenant: 1 });
    for (let i = 0; i < 3; i++) slots.hold({ job: job('a0', 'a'), leaseUntil: 100 + i });
    startNext(slots);
    assert.deepEqual(
      slots.takeWaiting().map(({ leaseUntil }) => leaseUntil),
      [101, 102],
    );
    assert.equal(slots.total, 1, 'the attempt sending');
    assert.equal(slots.next(), undefined);
  });
});
