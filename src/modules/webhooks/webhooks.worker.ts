import type { Config } from '../../config.js';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/index.js';
import { shareSlots, type Share } from './webhooks.fairness.js';
import { createOutcomeRecorder, OUTCOME_BATCH } from './webhooks.outcomes.js';
import * as queue from './webhooks.queue.repository.js';
import { createSlots, PREFETCH_ROUNDS } from './webhooks.slots.js';
import { type AttemptResult, signatures, type Transport } from './webhooks.transport.js';

/**
 * The delivery worker. It claims due pending attempts under a lease (several workers share the
 * queue on PostgreSQL through SKIP LOCKED; on SQLite the write lock admits one claimer at a time),
 * signs and sends each, and records the outcome in the attempt's row together with the next
 * attempt and the endpoint's status, in one transaction (webhooks.outcomes.ts). A worker that dies
 * leaves its leases to run out; the attempt is then claimed again and sent with the same
 * `webhook-id` (at least once). At most `perEndpoint` attempts per endpoint and `perTenant` per
 * tenant are in flight in one worker (webhooks.slots.ts), and free slots go round robin between the
 * tenants with deliveries due (see webhooks.fairness.ts): a slow receiver holds only its own slots,
 * and a tenant's flood (a bulk import) only its share, so other tenants' deliveries never wait
 * behind its backlog.
 *
 * For an endpoint that answers fast, a worker claims several rounds of attempts at once
 * (`PREFETCH_ROUNDS`) and sends them as its slots free up, so that one claim and one outcome write
 * serve many deliveries. An attempt claimed ahead is only started while its lease still covers a
 * whole attempt; one that waited too long is given back to the queue unsent.
 */

/** Attempts in flight in one worker, unless its options say otherwise. */
export const DEFAULT_CONCURRENCY = 64;
/**
 * Attempts sent whose outcomes are not written yet, at most: past this a worker claims nothing
 * until its writes catch up (an attempt being written holds its lease, not a slot).
 */
const MAX_RECORDING = 4 * OUTCOME_BATCH;

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

/**
 * Sends one attempt: its event rendered in the endpoint's API version, signed with the endpoint's
 * secrets. Returns the result and when the attempt was made.
 */
async function sendAttempt(
  deps: Pick<WorkerDeps, 'clock' | 'events' | 'transport'>,
  job: queue.Job,
): Promise<{ result: AttemptResult; at: number }> {
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
  const presented = deps.events.present(event, job.api_version);
  // A plugin's deliveries say which installation (which store) they are for, inside what is signed.
  const body = JSON.stringify(
    job.installation_id === null
      ? presented
      : { ...presented, installation_id: job.installation_id, tenant_id: job.tenant_id },
  );
  const at = deps.clock.now();
  const timestamp = Math.floor(at / 1000);
  const signed = signatures(job, job.event_id, timestamp, body, at);
  const result = await deps.transport.send(
    job.url,
    {
      'webhook-id': job.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signed.join(' '),
    },
    body,
  );
  return { result, at };
}

/**
 * Takes each endpoint's share of its oldest due deliveries and leases them to `owner`, with what
 * sending them needs, each endpoint's oldest first. PostgreSQL takes, leases and reads them in one
 * statement (its row locks keep other workers off); SQLite in a write transaction, which admits
 * one claimer at a time.
 */
async function leaseDue(
  store: Store,
  input: { now: number; endpoints: readonly Share[]; owner: string; leaseUntil: number },
): Promise<queue.Job[]> {
  if (store.dialect === 'postgres') return queue.claimJobs(store.db, input);
  const { now, endpoints, owner, leaseUntil } = input;
  return store.transaction(async (trx) => {
    const candidates = await queue.dueCandidates(trx, { now, endpoints, rowLocks: false });
    const chosen = candidates.map((candidate) => candidate.id);
    await queue.leaseDeliveries(trx, chosen, owner, leaseUntil);
    // In the order they were chosen: each endpoint's oldest first.
    const loaded = new Map((await queue.loadJobs(trx, chosen)).map((job) => [job.id, job]));
    return chosen.flatMap((jobId) => loaded.get(jobId) ?? []);
  });
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;

export function createWebhookWorker(deps: WorkerDeps, options: WorkerOptions = {}) {
  const { store, clock, logger, config } = deps;
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
  const slots = createSlots({ concurrency, perEndpoint, perTenant });
  const record = createOutcomeRecorder({ store, clock, logger, config, owner: id, onRetries: wake });
  /** Attempts sent whose outcomes are being written. */
  let recording = 0;
  const active = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  /** When the first delivery waiting at the last look comes due (undefined: none waited). */
  let nextDueAt: number | undefined;
  /** The time the last look read the queue at. */
  let lookedAt = 0;
  /** `drain` calls waiting for a look that begins after them to end. */
  let lookWaiters: (() => void)[] = [];

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

  function giveBack(leases: { id: string; leaseUntil: number }[]): Promise<void> {
    return queue
      .releaseLeases(store.db, leases, id)
      .catch((error: unknown) => logger.warn({ err: error }, 'webhook leases could not be given back'));
  }

  /**
   * Starts waiting attempts while slots are free (see `Slots.next`). An attempt whose lease no
   * longer covers a whole attempt is given back unsent.
   */
  function startWaiting(): void {
    const expired: { id: string; leaseUntil: number }[] = [];
    for (let next = slots.next(); next !== undefined; next = slots.next()) {
      // Running low on attempts claimed ahead for this endpoint: time to claim more.
      if (next.runningLow) wake();
      const { job, leaseUntil } = next.claimed;
      if (leaseUntil - clock.now() < startMarginMs) {
        slots.letGo(job);
        expired.push({ id: job.id, leaseUntil });
        continue;
      }
      send(job);
    }
    if (expired.length > 0) void giveBack(expired).finally(wake);
  }

  /**
   * Sends an attempt, then records its outcome. It holds a sending slot until the receiver has
   * answered; its slots then go to the next attempts while its outcome is written (its lease holds
   * until then), up to MAX_RECORDING of them.
   */
  function send(job: queue.Job): void {
    slots.startSending(job);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      slots.sent(job);
      recording += 1;
      startWaiting();
      // Room for the endpoint: look for more, unless attempts claimed ahead still wait
      // (startWaiting looks when they run low).
      if (!slots.waiting(job.endpoint_id)) wake();
    };
    const attempt = async () => {
      const { result, at } = await sendAttempt(deps, job);
      slots.took(job.endpoint_id, result.duration);
      // The exchange with the receiver is over.
      release();
      await record(job, result, at, clock.now());
    };
    const running = attempt()
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

  /**
   * Claims what this worker has room for and starts sending it. Returns how many it claimed. A
   * cheap read first finds the endpoints with deliveries due, leaving out the endpoints and tenants
   * already at their cap (their backlog is never read); the free slots are shared round robin
   * between tenants; then each chosen endpoint's oldest deliveries are taken, as many as its
   * share, and leased (`leaseDue`).
   */
  async function claim(): Promise<number> {
    const free = concurrency * PREFETCH_ROUNDS - slots.total;
    if (free <= 0 || recording >= MAX_RECORDING) return 0;
    const now = clock.now();
    const full = slots.full();
    const waiting = await queue.waitingEndpoints(store.db, {
      now,
      readyCap: perEndpoint * PREFETCH_ROUNDS,
      skipEndpoints: full.endpoints,
      skipTenants: full.tenants,
    });
    nextDueAt = queue.earliestDue(waiting);
    lookedAt = now;
    const shares = shareSlots(
      waiting.filter((w) => w.ready > 0),
      slots.held,
      { free, perEndpoint, perTenant: perTenant * PREFETCH_ROUNDS, endpointCap: slots.endpointCap },
    );
    if (shares.length === 0) return 0;
    const leaseUntil = now + leaseMs;
    const jobs = await leaseDue(store, { now, endpoints: shares, owner: id, leaseUntil });
    for (const job of jobs) slots.hold({ job, leaseUntil });
    startWaiting();
    return jobs.length;
  }

  /** Until the first waiting delivery comes due, at most `pollMs`. */
  function untilNextLook(): number {
    if (nextDueAt === undefined) return pollMs;
    // Due at the look yet not claimed (another worker took it, or its endpoint is busy): poll.
    if (nextDueAt <= lookedAt) return pollMs;
    // Due since the look read the queue (a slow look): look again now, not a poll later.
    return Math.min(Math.max(0, nextDueAt - clock.now()), pollMs);
  }

  async function run(): Promise<void> {
    while (running) {
      const waiters = lookWaiters;
      lookWaiters = [];
      try {
        await claim();
      } catch (error) {
        logger.error({ err: error }, 'webhook worker could not claim deliveries');
        await idle(1_000);
        continue;
      } finally {
        for (const done of waiters) done();
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
      // A drain waiting for a look that will not come now: what was sent is recorded below.
      for (const done of lookWaiters) done();
      lookWaiters = [];
      const unsent = slots.takeWaiting();
      await giveBack(unsent.map(({ job, leaseUntil }) => ({ id: job.id, leaseUntil })));
      await Promise.allSettled([...active]);
    },

    /**
     * Resolves once this worker has looked for due deliveries after the call, and every attempt
     * it started has been sent and recorded: what was due then has been delivered or scheduled
     * again, so a caller can tell that nothing more was due (a delivery held back is not sent).
     */
    async drain(): Promise<void> {
      if (running) {
        await new Promise<void>((resolve) => {
          lookWaiters.push(resolve);
          wake();
        });
      }
      while (active.size > 0) await Promise.allSettled([...active]);
    },

    /** Attempts this worker holds: claimed and not yet recorded. */
    get inFlight(): number {
      return slots.total + recording;
    },

    /**
     * Attempts holding a slot: claimed and not done talking to their receivers. A claim is bounded
     * by these; an attempt whose outcome is being written holds its lease but no slot.
     */
    get holding(): number {
      return slots.total;
    },
  };
}
