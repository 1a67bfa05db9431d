import type { Config } from '../../config.js';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
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
 */

export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** Attempts in flight in one worker, unless its options say otherwise. */
export const DEFAULT_CONCURRENCY = 64;
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
  const id = `wkr_${randomBase62(12)}`;
  /** Attempts in flight, per endpoint and per tenant. */
  const inFlight = { endpoints: new Map<string, number>(), tenants: new Map<string, number>() };
  const active = new Set<Promise<void>>();
  let total = 0;
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
      const recorded: Pick<Outcome, 'job' | 'result' | 'at'>[] = [];
      for (const { job, result, at, ended } of batch) {
        const gone = result.status === 410;
        const delay =
          result.ok || gone || job.manual === 1
            ? null
            : retryDelayMs(config.webhooks.retryScheduleSeconds, job.attempt);
        // The retry delay counts from when the attempt ended, not when it started.
        const nextAt = delay === null ? null : Math.max(ended, at) + delay;
        const mine = await repo.completeAttempt(trx, job.id, id, {
          status: result.ok ? 'succeeded' : 'failed',
          time: at,
          url: job.url,
          response: result.response,
          response_status: result.status,
          response_body: result.body,
          duration: result.duration,
          next_retry_at: nextAt,
        });
        if (!mine) {
          logger.warn({ delivery: job.id }, 'webhook lease lost before the outcome was recorded');
          continue;
        }
        recorded.push({ job, result, at });
        // The installation token travels once: delivered, it is not kept in the event any longer.
        if (result.ok && job.event_type === 'app.installed') await repo.forgetAppToken(trx, job.event_id);
        if (nextAt !== null) {
          const event = { id: job.event_id, tenant_id: job.event_tenant_id, type: job.event_type };
          const next = pendingDelivery(job.endpoint_id, event, at, job.attempt + 1);
          await repo.insertDeliveries(trx, [{ ...next, due_at: nextAt }]);
        }
      }
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
   * Records an attempt's outcome. Outcomes that come in within a few milliseconds of each other,
   * or while a write is running, are written together in one transaction (a group commit: one
   * fsync for many deliveries). The attempt keeps its slot until its outcome is stored.
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
          // Gather the outcomes of responses arriving about now into this batch.
          await new Promise((resolve) => setTimeout(resolve, 5));
          const batch = outcomes.splice(0, 256);
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

  async function deliver(job: repo.Job): Promise<void> {
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
    await record(job, result, at, clock.now());
  }

  function count(counts: Map<string, number>, key: string, by: number): void {
    const n = (counts.get(key) ?? 0) + by;
    if (n > 0) counts.set(key, n);
    else counts.delete(key);
  }

  function track(job: repo.Job): void {
    total += 1;
    count(inFlight.endpoints, job.endpoint_id, 1);
    count(inFlight.tenants, job.tenant_id, 1);
    const running = deliver(job)
      .catch((error: unknown) => logger.error({ err: error, delivery: job.id }, 'webhook delivery failed'))
      .finally(() => {
        total -= 1;
        count(inFlight.endpoints, job.endpoint_id, -1);
        count(inFlight.tenants, job.tenant_id, -1);
        active.delete(running);
        wake();
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
    const free = concurrency - total;
    if (free <= 0) return 0;
    const now = clock.now();
    const waiting = await repo.waitingEndpoints(store.db, {
      now,
      readyCap: perEndpoint,
      skipEndpoints: full(inFlight.endpoints, perEndpoint),
      skipTenants: full(inFlight.tenants, perTenant),
    });
    nextDueAt = repo.earliestDue(waiting);
    const shares = shareSlots(
      waiting.filter((w) => w.ready > 0),
      inFlight,
      { free, perEndpoint, perTenant },
    );
    if (shares.length === 0) return 0;
    const jobs = await store.transaction(async (trx) => {
      const candidates = await repo.dueCandidates(trx, {
        now,
        endpoints: shares,
        rowLocks: store.supportsRowLocks,
      });
      const chosen = candidates.map((candidate) => candidate.id);
      await repo.leaseDeliveries(trx, chosen, id, now + leaseMs);
      return repo.loadJobs(trx, chosen);
    });
    for (const job of jobs) track(job);
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
      let claimed = 0;
      try {
        claimed = await claim();
      } catch (error) {
        logger.error({ err: error }, 'webhook worker could not claim deliveries');
        await idle(1_000);
        continue;
      }
      if (!running) break;
      if (claimed === 0 || total >= concurrency) await idle(untilNextLook());
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

    /** Stops claiming and lets the attempts in flight finish and record their outcome. */
    async stop(): Promise<void> {
      running = false;
      wake();
      await loop;
      loop = undefined;
      await Promise.allSettled([...active]);
    },

    get inFlight(): number {
      return total;
    },
  };
}
