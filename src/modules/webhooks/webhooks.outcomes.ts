import type { Config } from '../../config.js';
import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { type DeliveryRow, insertDeliveries, pendingDelivery } from './webhooks.deliveries.repository.js';
import { completeAttempts, forgetAppToken, type Job } from './webhooks.queue.repository.js';
import { type EndpointOutcome, recordEndpointOutcome } from './webhooks.repository.js';
import type { AttemptResult } from './webhooks.transport.js';

/**
 * How a webhook worker records its attempts' outcomes: in the attempt's row, with the next attempt
 * a failure schedules and the endpoint's status, in one transaction. Outcomes arriving close
 * together are written together (a group commit).
 */

export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/**
 * How long outcomes gather before they are written together: every write commits (and its pages
 * go to the WAL), so fewer, larger batches cost far less a delivery. Only the delivery log waits;
 * the attempt's slot to its receiver is free already.
 */
const OUTCOME_GATHER_MS = 15;
/** Outcomes written in one transaction at most. */
export const OUTCOME_BATCH = 256;
/** Random spread of each retry delay: +/- this fraction. */
const RETRY_JITTER = 0.1;

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

/** An attempt that has ended, waiting for its outcome to be written. */
interface Outcome {
  job: Job;
  result: AttemptResult;
  at: number;
  /** When the response (or the error) came in. */
  ended: number;
  done: (error?: unknown) => void;
}

type Recorded = Pick<Outcome, 'job' | 'result' | 'at'>;

/** When each attempt's retry is due (null: none, after a success, a 410, a manual or the last attempt). */
function planRetries(batch: readonly Outcome[], schedule: readonly number[]) {
  return batch.map(({ job, result, at, ended }) => {
    const gone = result.status === 410;
    const delay = result.ok || gone || job.manual === 1 ? null : retryDelayMs(schedule, job.attempt);
    // The retry delay counts from when the attempt ended, not when it started.
    const nextAt = delay === null ? null : Math.max(ended, at) + delay;
    return { job, result, at, nextAt };
  });
}

/** What the recorded attempts amount to for each endpoint, in endpoint id order. */
function endpointOutcomes(recorded: Recorded[]): Map<string, EndpointOutcome> {
  // One status update per endpoint, in id order so concurrent batches never deadlock.
  recorded.sort((a, b) =>
    a.job.endpoint_id === b.job.endpoint_id ? a.at - b.at : a.job.endpoint_id < b.job.endpoint_id ? -1 : 1,
  );
  const byEndpoint = new Map<string, EndpointOutcome>();
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
  return byEndpoint;
}

export interface OutcomeDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** The worker whose leases the outcomes are written under. */
  owner: string;
  /** Called once retries the outcomes scheduled are committed. */
  onRetries: () => void;
}

/** Writes a batch of outcomes, with the next attempts they schedule and the endpoints' status. */
async function writeOutcomes(deps: OutcomeDeps, batch: readonly Outcome[]): Promise<void> {
  const { store, logger, owner } = deps;
  await store.transaction(async (trx) => {
    const planned = planRetries(batch, deps.config.webhooks.retryScheduleSeconds);
    const mine = await completeAttempts(
      trx,
      store.dialect,
      owner,
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
    const recorded: Recorded[] = [];
    const retries: DeliveryRow[] = [];
    for (const { job, result, at, nextAt } of planned) {
      if (!mine.has(job.id)) {
        logger.warn({ delivery: job.id }, 'webhook lease lost before the outcome was recorded');
        continue;
      }
      recorded.push({ job, result, at });
      // The installation token travels once: delivered, it is not kept in the event any longer.
      if (result.ok && job.event_type === 'app.installed') await forgetAppToken(trx, job.event_id);
      if (nextAt !== null) {
        const event = { id: job.event_id, tenant_id: job.event_tenant_id, type: job.event_type };
        retries.push({ ...pendingDelivery(job.endpoint_id, event, at, job.attempt + 1), due_at: nextAt });
      }
    }
    await insertDeliveries(trx, retries);
    // The next look finds when the retries come due (a look before this commit did not).
    if (retries.length > 0) store.afterCommit(trx, deps.onRetries);
    for (const [endpointId, outcome] of endpointOutcomes(recorded)) {
      await recordEndpointOutcome(trx, endpointId, outcome, DISABLE_AFTER_MS);
    }
  });
}

/**
 * The recorder of a worker's outcomes. `record` takes an attempt's outcome; outcomes that come in
 * within OUTCOME_GATHER_MS of each other, or while a write is running, are written together in
 * one transaction (a group commit: one fsync for many deliveries), at most OUTCOME_BATCH a write.
 * It resolves once the outcome is stored (rejects when its write failed).
 */
export function createOutcomeRecorder(deps: OutcomeDeps) {
  const outcomes: Outcome[] = [];
  let flushing: Promise<void> | undefined;

  async function flush(): Promise<void> {
    while (outcomes.length > 0) {
      // Gather the outcomes of responses arriving about now into this batch: until the oldest
      // has waited OUTCOME_GATHER_MS (no wait when the last write took that long already).
      const wait = (outcomes[0] as Outcome).ended + OUTCOME_GATHER_MS - deps.clock.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = outcomes.splice(0, OUTCOME_BATCH);
      try {
        await writeOutcomes(deps, batch);
        for (const outcome of batch) outcome.done();
      } catch (error) {
        for (const outcome of batch) outcome.done(error);
      }
    }
    flushing = undefined;
  }

  return function record(job: Job, result: AttemptResult, at: number, ended: number): Promise<void> {
    return new Promise((resolve, reject) => {
      outcomes.push({
        job,
        result,
        at,
        ended,
        done: (error) => (error === undefined ? resolve() : reject(error)),
      });
      flushing ??= flush();
    });
  };
}
