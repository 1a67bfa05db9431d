import type { Config } from '../../config.js';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { LRUCache } from 'lru-cache';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/events.service.js';
import { shareSlots } from './webhooks.fairness.js';
import * as repo from './webhooks.repository.js';
import { pendingDelivery } from './webhooks.service.js';
import { type AttemptResult, signatures, type Transport } from './webhooks.transport.js';

/**
 * The delivery worker. It claims due pending attempts under a lease (several workers share the
 * queue on PostgreSQL through SKIP LOCKED; on SQLite the write lock admits one claimer at a time),
 * signs and sends each, and records the outcome in the attempt's row together with the next
 * attempt and the endpoint's status, in one transaction. A worker that dies leaves its leases to
 * run out; the attempt is then claimed again and sent with the same `webhook-id` (at least once).
 * At most `perEndpoint` attempts per endpoint and `perTenant` per tenant are in flight in one
 * worker, and free slots go round robin between the tenants with deliveries due (see
 * webhooks.fairness.ts): a slow receiver holds only its own slots, and a tenant's flood (a bulk
 * import) only its share, so other tenants' deliveries never wait behind its backlog.
 *
 * For an endpoint that answers fast, a worker claims several rounds of attempts at once
 * (`PREFETCH_ROUNDS`) and sends them as its slots free up, so that one claim and one outcome write
 * serve many deliveries. An attempt claimed ahead is only started while its lease still covers a
 * whole attempt; one that waited too long is given back to the queue unsent.
 */

export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** Attempts in flight in one worker, unless its options say otherwise. */
export const DEFAULT_CONCURRENCY = 64;
/** Rounds of `perEndpoint` attempts a worker claims at once for an endpoint that answers fast. */
export const PREFETCH_ROUNDS = 16;
/** A worker claims more for an endpoint when this many rounds of its claimed attempts are left. */
const LOW_WATER_ROUNDS = 2;
/** An endpoint whose attempts took less than this (on average, recently) answers fast. */
const FAST_ENDPOINT_MS = 250;
/**
 * How long outcomes gather before they are written together: every write commits (and its pages
 * go to the WAL), so fewer, larger batches cost far less a delivery. Only the delivery log waits;
 * the attempt's slot to its receiver is free already.
 */
const OUTCOME_GATHER_MS = 15;
/** Outcomes written in one transaction at most. */
const OUTCOME_BATCH = 256;
/**
 * Attempts sent whose outcomes are not written yet, at most: past this a worker claims nothing
 * until its writes catch up (an attempt being written holds its lease, not a slot).
 */
const MAX_RECORDING = 4 * OUTCOME_BATCH;
/** Random spread of each retry delay: +/- this fraction. */
const RETRY_JITTER = 0.1;

export interface WorkerOptions {
  /** Attempts in flight in this worker. */
  concurrency?: number;
  /** Attempts in flight per endpoint in this worker. */
  perEndpoint?: number;
  /** Attempts in flight per tenant in this worker; half of `concurrency` unless set. */
  perTenant?: number;
  /**
   * The longest an idle worker waits before looking for due deliveries again. It wakes sooner when
   * this process adds deliveries, when one of its attempts ends, and when the first waiting
   * delivery (a scheduled retry) comes due; the poll finds what other processes add.
   */
  pollMs?: number;
}

export interface WorkerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: Config;
  events: Pick<EventService, 'present'>;
  transport: Transport;
  /** Registers a callback for "deliveries may be due" signals of this process. */
  onDue?: (listener: () => void) => void;
}

/** The delay before attempt `attempt + 1`, or null when `attempt` was the last one. */
export function retryDelayMs(
  schedule: readonly number[],
  attempt: number,
  random = Math.random,
): number | null {
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (1 + RETRY_JITTER * (2 * random() - 1)));
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;

export function createWebhookWorker(deps: WorkerDeps, options: WorkerOptions = {}) {
  const { store, clock, logger, config, events, transport } = deps;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perEndpoint = options.perEndpoint ?? 8;
  const perTenant = options.perTenant ?? Math.max(1, Math.floor(concurrency / 2));
  let pollMs = options.pollMs ?? 100;
  // Long enough for an attempt (connect + timeout) and its bookkeeping; a dead worker's claims
  // come back after this.
  const leaseMs = 2 * config.webhooks.timeoutMs + 5_000;
  // A claimed attempt starts only while its lease has this long left: a whole attempt and margin.
  const startMarginMs = config.webhooks.timeoutMs + 5_000;
  const id = `wkr_${randomBase62(12)}`;
  /** Attempts held (claimed and not yet done talking to their receivers: waiting to start, or sending). */
  const held = { endpoints: new Map<string, number>(), tenants: new Map<string, number>() };
  let total = 0;
  /** Attempts sent whose outcomes are being written. */
  let recording = 0;
  /** Attempts talking to their receivers, per endpoint and per tenant. */
  const sending = { endpoints: new Map<string, number>(), tenants: new Map<string, number>() };
  let sendingTotal = 0;
  /** Claimed attempts waiting for a slot, per endpoint, oldest first. */
  const waitingToStart = new Map<string, { job: repo.Job; leaseUntil: number }[]>();
  /** Each endpoint's recent attempt duration (a moving average), for how far ahead to claim. */
  const durations = new LRUCache<string, number>({ max: 10_000 });
  const active = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  /** When the first delivery waiting at the last look comes due (undefined: none waited). */
  let nextDueAt: number | undefined;

  function wake(): void {
    woken = true;
    wakeUp?.();
  }
  deps.onDue?.(wake);

  function idle(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  interface Outcome {
    job: repo.Job;
    result: AttemptResult;
    at: number;
    /** When the response (or the error) came in. */
    ended: number;
    done: (error?: unknown) => void;
  }
  const outcomes: Outcome[] = [];
  let flushing: Promise<void> | undefined;

  /** Writes a batch of outcomes, with the next attempts they schedule and the endpoints' status. */
  async function writeOutcomes(batch: readonly Outcome[]): Promise<void> {
    await store.transaction(async (trx) => {
      const planned = batch.map(({ job, result, at, ended }) => {
        const gone = result.status === 410;
        const delay =
          result.ok || gone || job.manual === 1
            ? null
            : retryDelayMs(config.webhooks.retryScheduleSeconds, job.attempt);
        // The retry delay counts from when the attempt ended, not when it started.
        const nextAt = delay === null ? null : Math.max(ended, at) + delay;
        return { job, result, at, nextAt };
      });
      const mine = await repo.completeAttempts(
        trx,
        store.dialect,
        id,
        planned.map(({ job, result, at, nextAt }) => ({
          id: job.id,
          status: result.ok ? 'succeeded' : 'failed',
          time: at,
          url: job.url,
          response: result.response,
          response_status: result.status,
          response_body: result.body,
          duration: result.duration,
          next_retry_at: nextAt,
        })),
      );
      const recorded: Pick<Outcome, 'job' | 'result' | 'at'>[] = [];
      const retries: repo.DeliveryRow[] = [];
      for (const { job, result, at, nextAt } of planned) {
        if (!mine.has(job.id)) {
          logger.warn({ delivery: job.id }, 'webhook lease lost before the outcome was recorded');
          continue;
        }
        recorded.push({ job, result, at });
        // The installation token travels once: delivered, it is not kept in the event any longer.
        if (result.ok && job.event_type === 'app.installed') await repo.forgetAppToken(trx, job.event_id);
        if (nextAt !== null) {
          const event = { id: job.event_id, tenant_id: job.event_tenant_id, type: job.event_type };
          retries.push({ ...pendingDelivery(job.endpoint_id, event, at, job.attempt + 1), due_at: nextAt });
        }
      }
      await repo.insertDeliveries(trx, retries);
      // The next look finds when the retries come due (a look before this commit did not).
      if (retries.length > 0) store.afterCommit(trx, wake);
      // One status update per endpoint, in id order so concurrent batches never deadlock.
      recorded.sort((a, b) =>
        a.job.endpoint_id === b.job.endpoint_id
          ? a.at - b.at
          : a.job.endpoint_id < b.job.endpoint_id
            ? -1
            : 1,
      );
      const byEndpoint = new Map<string, repo.EndpointOutcome>();
      for (const { job, result, at } of recorded) {
        const previous = byEndpoint.get(job.endpoint_id);
        byEndpoint.set(job.endpoint_id, {
          at,
          ok: result.ok,
          gone: (previous?.gone ?? false) || result.status === 410,
          failingFrom: result.ok ? null : (previous?.failingFrom ?? at),
          succeeded: (previous?.succeeded ?? false) || result.ok,
        });
      }
      for (const [endpointId, outcome] of byEndpoint) {
        await repo.recordEndpointOutcome(trx, endpointId, outcome, DISABLE_AFTER_MS);
      }
    });
  }

  /**
   * Records an attempt's outcome. Outcomes that come in within OUTCOME_GATHER_MS of each other,
   * or while a write is running, are written together in one transaction (a group commit: one
   * fsync for many deliveries). The attempt keeps its lease until its outcome is stored, but no
   * longer counts against what the worker claims (see `send`), up to MAX_RECORDING of them.
   */
  function record(job: repo.Job, result: AttemptResult, at: number, ended: number): Promise<void> {
    return new Promise((resolve, reject) => {
      outcomes.push({
        job,
        result,
        at,
        ended,
        done: (error) => (error === undefined ? resolve() : reject(error)),
      });
      flushing ??= (async () => {
        while (outcomes.length > 0) {
          // Gather the outcomes of responses arriving about now into this batch: until the oldest
          // has waited OUTCOME_GATHER_MS (no wait when the last write took that long already).
          const wait = (outcomes[0] as Outcome).ended + OUTCOME_GATHER_MS - clock.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const batch = outcomes.splice(0, OUTCOME_BATCH);
          try {
            await writeOutcomes(batch);
            for (const outcome of batch) outcome.done();
          } catch (error) {
            for (const outcome of batch) outcome.done(error);
          }
        }
        flushing = undefined;
      })();
    });
  }

  async function deliver(job: repo.Job, release: () => void): Promise<void> {
    const event = {
      id: job.event_id,
      tenant_id: job.event_tenant_id,
      type: job.event_type,
      object_type: job.event_object_type,
      object_id: job.event_object_id,
      data: job.event_data,
      extra: job.event_extra,
      created: job.event_created,
    };
    const presented = events.present(event, job.api_version);
    // A plugin's deliveries say which installation (which store) they are for, inside what is signed.
    const body = JSON.stringify(
      job.installation_id === null
        ? presented
        : { ...presented, installation_id: job.installation_id, tenant_id: job.tenant_id },
    );
    const at = clock.now();
    const timestamp = Math.floor(at / 1000);
    const signed = signatures(job, job.event_id, timestamp, body, at);
    const result = await transport.send(
      job.url,
      {
        'webhook-id': job.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signed.join(' '),
      },
      body,
    );
    const previous = durations.get(job.endpoint_id);
    durations.set(
      job.endpoint_id,
      previous === undefined ? result.duration : 0.8 * previous + 0.2 * result.duration,
    );
    // The exchange with the receiver is over: its slots go to the next attempts while this one's
    // outcome is written (its lease holds until then).
    release();
    await record(job, result, at, clock.now());
  }

  function count(counts: Map<string, number>, key: string, by: number): void {
    const n = (counts.get(key) ?? 0) + by;
    if (n > 0) counts.set(key, n);
    else counts.delete(key);
  }

  /** How many attempts this worker holds at most for an endpoint: more when it answers fast. */
  function endpointCap(endpointId: string): number {
    const duration = durations.get(endpointId);
    return duration !== undefined && duration < FAST_ENDPOINT_MS
      ? perEndpoint * PREFETCH_ROUNDS
      : perEndpoint;
  }

  /** Takes a claimed attempt: it waits for a slot of its endpoint and tenant, then is sent. */
  function hold(job: repo.Job, leaseUntil: number): void {
    total += 1;
    count(held.endpoints, job.endpoint_id, 1);
    count(held.tenants, job.tenant_id, 1);
    const queue = waitingToStart.get(job.endpoint_id);
    if (queue) queue.push({ job, leaseUntil });
    else waitingToStart.set(job.endpoint_id, [{ job, leaseUntil }]);
  }

  function letGo(job: repo.Job): void {
    total -= 1;
    count(held.endpoints, job.endpoint_id, -1);
    count(held.tenants, job.tenant_id, -1);
  }

  /**
   * Starts waiting attempts while slots are free: each slot to the tenant with the fewest attempts
   * sending, and within the endpoints that have room, the one whose first attempt was claimed
   * first. An attempt whose lease no longer covers a whole attempt is given back unsent.
   */
  function startWaiting(): void {
    const expired: { id: string; leaseUntil: number }[] = [];
    while (sendingTotal < concurrency) {
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
      if (chosen === undefined) break;
      const queue = waitingToStart.get(chosen) as { job: repo.Job; leaseUntil: number }[];
      const next = queue.shift() as { job: repo.Job; leaseUntil: number };
      if (queue.length === 0) waitingToStart.delete(chosen);
      // Running low on attempts claimed ahead for this endpoint: time to claim more.
      if (queue.length === LOW_WATER_ROUNDS * perEndpoint) wake();
      if (next.leaseUntil - clock.now() < startMarginMs) {
        letGo(next.job);
        expired.push({ id: next.job.id, leaseUntil: next.leaseUntil });
        continue;
      }
      send(next.job);
    }
    if (expired.length > 0) {
      repo
        .releaseLeases(store.db, expired, id)
        .catch((error: unknown) => logger.warn({ err: error }, 'webhook leases could not be given back'))
        .finally(wake);
    }
  }

  /** Sends an attempt: it holds a sending slot until the receiver has answered. */
  function send(job: repo.Job): void {
    sendingTotal += 1;
    count(sending.endpoints, job.endpoint_id, 1);
    count(sending.tenants, job.tenant_id, 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      sendingTotal -= 1;
      count(sending.endpoints, job.endpoint_id, -1);
      count(sending.tenants, job.tenant_id, -1);
      // Sent: it no longer counts against what the worker claims while its outcome is written
      // (its lease holds until then).
      letGo(job);
      recording += 1;
      startWaiting();
      // Room for the endpoint: look for more, unless attempts claimed ahead still wait
      // (startWaiting looks when they run low).
      if (!waitingToStart.has(job.endpoint_id)) wake();
    };
    const running = deliver(job, release)
      .catch((error: unknown) => logger.error({ err: error, delivery: job.id }, 'webhook delivery failed'))
      .finally(() => {
        release();
        recording -= 1;
        active.delete(running);
        // Claims wait while too many outcomes are unwritten: one fewer now.
        if (recording === MAX_RECORDING - 1) wake();
      });
    active.add(running);
  }

  /** The keys whose count has reached `cap`. */
  function full(counts: ReadonlyMap<string, number>, cap: number): string[] {
    return [...counts].filter(([, n]) => n >= cap).map(([key]) => key);
  }

  /**
   * Claims what this worker has room for and starts sending it. Returns how many it claimed. A
   * cheap read first finds the endpoints with deliveries due, leaving out the endpoints and tenants
   * already at their cap (their backlog is never read); the free slots are shared round robin
   * between tenants; then, in one write transaction, each chosen endpoint's oldest deliveries are
   * taken, as many as its share, and leased.
   */
  async function claim(): Promise<number> {
    const free = concurrency * PREFETCH_ROUNDS - total;
    if (free <= 0 || recording >= MAX_RECORDING) return 0;
    const now = clock.now();
    const waiting = await repo.waitingEndpoints(store.db, {
      now,
      readyCap: perEndpoint * PREFETCH_ROUNDS,
      skipEndpoints: [...held.endpoints].filter(([key, n]) => n >= endpointCap(key)).map(([key]) => key),
      skipTenants: full(held.tenants, perTenant * PREFETCH_ROUNDS),
    });
    nextDueAt = repo.earliestDue(waiting);
    const shares = shareSlots(
      waiting.filter((w) => w.ready > 0),
      held,
      { free, perEndpoint, perTenant: perTenant * PREFETCH_ROUNDS, endpointCap },
    );
    if (shares.length === 0) return 0;
    const leaseUntil = now + leaseMs;
    // PostgreSQL takes, leases and reads them in one statement (its row locks keep other workers
    // off); SQLite in a write transaction, which admits one claimer at a time.
    const jobs = store.supportsRowLocks
      ? await repo.claimJobs(store.db, { now, endpoints: shares, owner: id, leaseUntil })
      : await store.transaction(async (trx) => {
          const candidates = await repo.dueCandidates(trx, { now, endpoints: shares, rowLocks: false });
          const chosen = candidates.map((candidate) => candidate.id);
          await repo.leaseDeliveries(trx, chosen, id, leaseUntil);
          // In the order they were chosen: each endpoint's oldest first.
          const loaded = new Map((await repo.loadJobs(trx, chosen)).map((job) => [job.id, job]));
          return chosen.flatMap((jobId) => loaded.get(jobId) ?? []);
        });
    for (const job of jobs) hold(job, leaseUntil);
    startWaiting();
    return jobs.length;
  }

  /** Until the first waiting delivery comes due, at most `pollMs`. */
  function untilNextLook(): number {
    const wait = nextDueAt === undefined ? pollMs : nextDueAt - clock.now();
    // Due already yet nothing was claimed (another worker took it, or its endpoint is busy): poll.
    return wait > 0 ? Math.min(wait, pollMs) : pollMs;
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        await claim();
      } catch (error) {
        logger.error({ err: error }, 'webhook worker could not claim deliveries');
        await idle(1_000);
        continue;
      }
      if (!running) break;
      // A claim takes what every endpoint has room for; the next look waits for room (an attempt
      // ending, claimed attempts running low), new deliveries, or the poll.
      await idle(untilNextLook());
    }
  }

  return {
    id,
    wake,

    /** `pollMs` overrides the construction option (see `WorkerOptions.pollMs`). */
    start(startOptions: { pollMs?: number } = {}): void {
      if (running) return;
      pollMs = startOptions.pollMs ?? pollMs;
      running = true;
      loop = run();
    },

    /**
     * Stops claiming, gives back the attempts claimed and not started, and lets the attempts in
     * flight finish and record their outcome.
     */
    async stop(): Promise<void> {
      running = false;
      wake();
      await loop;
      loop = undefined;
      const unsent = [...waitingToStart.values()].flat();
      waitingToStart.clear();
      for (const { job } of unsent) letGo(job);
      await repo
        .releaseLeases(
          store.db,
          unsent.map(({ job, leaseUntil }) => ({ id: job.id, leaseUntil })),
          id,
        )
        .catch((error: unknown) => logger.warn({ err: error }, 'webhook leases could not be given back'));
      await Promise.allSettled([...active]);
    },

    /** Attempts this worker holds: claimed and not yet recorded. */
    get inFlight(): number {
      return total + recording;
    },
  };
}
