import { LRUCache } from 'lru-cache';
import type { InFlight } from './webhooks.fairness.js';
import type { Job } from './webhooks.queue.repository.js';

/**
 * A webhook worker's slots: the attempts it holds (claimed and not yet done talking to their
 * receivers: waiting to start, or sending) and those sending, per endpoint and per tenant; the
 * claimed attempts waiting for a slot; and each endpoint's recent attempt duration, which says how
 * far ahead to claim for it. Plain counting, no store and no clock: the worker asks it which
 * attempt to start next and what it may claim (webhooks.fairness.ts shares the claim out).
 */

/** Rounds of `perEndpoint` attempts a worker claims at once for an endpoint that answers fast. */
export const PREFETCH_ROUNDS = 16;
/** A worker claims more for an endpoint when this many rounds of its claimed attempts are left. */
const LOW_WATER_ROUNDS = 2;
/** An endpoint whose attempts took less than this (on average, recently) answers fast. */
const FAST_ENDPOINT_MS = 250;

/** A claimed attempt and when its lease runs out. */
export interface Claimed {
  job: Job;
  leaseUntil: number;
}

export interface SlotLimits {
  /** Attempts sending at once. */
  concurrency: number;
  /** Attempts sending at once per endpoint. */
  perEndpoint: number;
  /** Attempts sending at once per tenant. */
  perTenant: number;
}

function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** The keys whose count has reached `cap`. */
function full(counts: ReadonlyMap<string, number>, cap: (key: string) => number): string[] {
  return [...counts].filter(([key, n]) => n >= cap(key)).map(([key]) => key);
}

export type Slots = ReturnType<typeof createSlots>;

export function createSlots(limits: SlotLimits) {
  const { concurrency, perEndpoint, perTenant } = limits;
  /** Attempts held (claimed and not yet done talking to their receivers: waiting to start, or sending). */
  const held = { endpoints: new Map<string, number>(), tenants: new Map<string, number>() };
  let total = 0;
  /** Attempts talking to their receivers, per endpoint and per tenant. */
  const sending = { endpoints: new Map<string, number>(), tenants: new Map<string, number>() };
  let sendingTotal = 0;
  /** Claimed attempts waiting for a slot, per endpoint, oldest first. */
  const waitingToStart = new Map<string, Claimed[]>();
  /** Each endpoint's recent attempt duration (a moving average), for how far ahead to claim. */
  const durations = new LRUCache<string, number>({ max: 10_000 });

  /** How many attempts this worker holds at most for an endpoint: more when it answers fast. */
  function endpointCap(endpointId: string): number {
    const duration = durations.get(endpointId);
    return duration !== undefined && duration < FAST_ENDPOINT_MS
      ? perEndpoint * PREFETCH_ROUNDS
      : perEndpoint;
  }

  function letGo(job: Job): void {
    total -= 1;
    count(held.endpoints, job.endpoint_id, -1);
    count(held.tenants, job.tenant_id, -1);
  }

  return {
    /** The attempts held, per endpoint and per tenant. */
    held: held as InFlight,
    /** How many attempts are held. */
    get total(): number {
      return total;
    },
    endpointCap,

    /** The endpoints held up to their cap, and the tenants up to theirs: a claim leaves them out. */
    full(): { endpoints: string[]; tenants: string[] } {
      return {
        endpoints: full(held.endpoints, endpointCap),
        tenants: full(held.tenants, () => perTenant * PREFETCH_ROUNDS),
      };
    },

    /** Takes a claimed attempt: it waits for a slot of its endpoint and tenant (see `next`). */
    hold(claimed: Claimed): void {
      const { job } = claimed;
      total += 1;
      count(held.endpoints, job.endpoint_id, 1);
      count(held.tenants, job.tenant_id, 1);
      const queue = waitingToStart.get(job.endpoint_id);
      if (queue) queue.push(claimed);
      else waitingToStart.set(job.endpoint_id, [claimed]);
    },

    /** Drops a held attempt that will not be sent (its lease is given back). */
    letGo,

    /**
     * The waiting attempt to start next, taken out of the waiting ones, while a slot is free: the
     * slot goes to the tenant with the fewest attempts sending, and within the endpoints that have
     * room, to the one whose first attempt was claimed first. `runningLow`: its endpoint's
     * attempts claimed ahead are running low, time to claim more.
     */
    next(): { claimed: Claimed; runningLow: boolean } | undefined {
      if (sendingTotal >= concurrency) return undefined;
      let chosen: string | undefined;
      let chosenLoad = Infinity;
      for (const [endpointId, queue] of waitingToStart) {
        const first = queue[0];
        if (!first) continue;
        if ((sending.endpoints.get(endpointId) ?? 0) >= perEndpoint) continue;
        const load = sending.tenants.get(first.job.tenant_id) ?? 0;
        if (load >= perTenant || load >= chosenLoad) continue;
        chosen = endpointId;
        chosenLoad = load;
      }
      if (chosen === undefined) return undefined;
      const queue = waitingToStart.get(chosen) as Claimed[];
      const claimed = queue.shift() as Claimed;
      if (queue.length === 0) waitingToStart.delete(chosen);
      return { claimed, runningLow: queue.length === LOW_WATER_ROUNDS * perEndpoint };
    },

    /** An attempt starts sending: it holds a sending slot until the receiver has answered. */
    startSending(job: Job): void {
      sendingTotal += 1;
      count(sending.endpoints, job.endpoint_id, 1);
      count(sending.tenants, job.tenant_id, 1);
    },

    /**
     * The receiver has answered (or failed to): the attempt's sending slot is free, and it no longer
     * counts against what the worker claims while its outcome is written (its lease holds until
     * then).
     */
    sent(job: Job): void {
      sendingTotal -= 1;
      count(sending.endpoints, job.endpoint_id, -1);
      count(sending.tenants, job.tenant_id, -1);
      letGo(job);
    },

    /** Notes how long an attempt to the endpoint took, for its moving average. */
    took(endpointId: string, duration: number): void {
      const previous = durations.get(endpointId);
      durations.set(endpointId, previous === undefined ? duration : 0.8 * previous + 0.2 * duration);
    },

    /** Claimed attempts of the endpoint wait to start. */
    waiting(endpointId: string): boolean {
      return waitingToStart.has(endpointId);
    },

    /** Takes every attempt waiting to start out, letting each go (the worker stops). */
    takeWaiting(): Claimed[] {
      const unsent = [...waitingToStart.values()].flat();
      waitingToStart.clear();
      for (const { job } of unsent) letGo(job);
      return unsent;
    },
  };
}
