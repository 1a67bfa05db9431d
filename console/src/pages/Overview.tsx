import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api.js';
import { ConfirmDialog, SecretDialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { PlansButton } from '../components/Plans.js';
import { ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatMs, formatNumber, formatUtcDate, humanize, percent, plural } from '../format.js';
import { useAction, useResource } from '../hooks.js';
import { useAccount, useSession } from '../session.js';
import { usePageTitle } from '../title.js';
import type { Usage, VersionList, Versions } from '../types.js';

export function QuotaBar({ used, limit, label }: { used: number; limit: number; label: string }) {
  const share = Math.min(100, percent(used, limit));
  const tone = share >= 100 ? 'danger' : share >= 80 ? 'warning' : 'ok';
  return (
    <div className="quota">
      <div
        className={`meter meter-${tone}`}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
        aria-valuetext={`${formatNumber(used)} of ${formatNumber(limit)} calls (${Math.floor(share)}%)`}
      >
        <div className="meter-fill" style={{ width: `${share}%` }} />
      </div>
    </div>
  );
}

export function QuotaWarning({ usage }: { usage: Usage }) {
  if (!usage.quota.warning) return null;
  const used = Math.floor(usage.quota.percent_used);
  const over = usage.quota.remaining === 0;
  return (
    <div className={`banner ${over ? 'banner-danger' : 'banner-warning'}`} role="alert">
      <div>
        <strong>
          {over ? 'You have used your whole monthly quota' : `You have used ${used}% of your monthly quota`}
        </strong>
        <p>
          {over
            ? `API calls are refused with 429 until the quota resets on ${formatUtcDate(usage.quota.resets_at)}.`
            : `${plural(usage.quota.remaining, 'call')} left until it resets on ${formatUtcDate(usage.quota.resets_at)}.`}{' '}
          Upgrade your plan for a larger quota.
        </p>
      </div>
      <PlansButton label="Upgrade plan" className="button button-primary" />
    </div>
  );
}

/** A changelog line, its `code` spans in code type (a line with an odd backtick shows as written). */
function ChangelogLine({ line }: { line: string }) {
  const parts = line.split('`');
  if (parts.length % 2 === 0) return <>{line}</>;
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

/** The versions' list with the releases of the latest and the pinned version named. */
function describeVersions(list: VersionList): Versions {
  const release = (version: string) => list.data.find((v) => v.version === version)?.release ?? version;
  return {
    ...list,
    latest_release: release(list.latest),
    pinned_release: release(list.pinned),
    upgrade_available: list.pinned < list.latest,
  };
}

function VersionBanner({ versions, onUpgraded }: { versions: Versions; onUpgraded: () => void }) {
  const [open, setOpen] = useState(false);
  const { busy, error, run } = useAction();
  const toast = useToast();
  const { refresh } = useSession();
  if (!versions.upgrade_available) return null;
  const latest = versions.data.find((v) => v.latest);

  function upgrade() {
    void run(async () => {
      await api.post('/versions/upgrade', { version: versions.latest });
      await refresh();
      toast(`Upgraded to API ${versions.latest_release}.`);
      setOpen(false);
      onUpgraded();
    });
  }

  return (
    <div className="banner banner-info" role="region" aria-label="API upgrade">
      <div>
        <strong>API {versions.latest_release} is available</strong>
        <p>
          Your requests use {versions.pinned_release} ({versions.pinned}) unless they send X-Service-Version.
          Upgrade to get {versions.latest_release} ({versions.latest}) by default.
        </p>
      </div>
      <button type="button" className="button button-primary" onClick={() => setOpen(true)}>
        Upgrade to {versions.latest_release}
      </button>
      {open ? (
        <ConfirmDialog
          title={`Upgrade to API ${versions.latest_release}?`}
          tone="primary"
          confirmLabel={`Upgrade to ${versions.latest_release}`}
          busy={busy}
          error={error}
          onClose={() => setOpen(false)}
          onConfirm={upgrade}
          message={
            <>
              <p>
                Requests without an X-Service-Version header will use {versions.latest} at once, and new
                webhooks will get its payloads. What changes:
              </p>
              <ul className="changelog">
                {(latest?.changelog ?? []).map((line) => (
                  <li key={line}>
                    <ChangelogLine line={line} />
                  </li>
                ))}
              </ul>
              <p className="hint">You cannot go back to an older version afterwards.</p>
            </>
          }
        />
      ) : null}
    </div>
  );
}

export function UsageCards({ usage }: { usage: Usage }) {
  const errorRate = percent(usage.total_errors, usage.total_calls);
  return (
    <div className="cards">
      <section className="card stat" aria-labelledby="stat-calls">
        <h2 id="stat-calls" className="stat-label">
          Total API calls
        </h2>
        <p className="stat-value" data-testid="total-calls">
          {formatNumber(usage.total_calls)}
        </p>
        <p className="stat-note">Since {formatUtcDate(usage.period.from)}</p>
      </section>
      <section className="card stat" aria-labelledby="stat-latency">
        <h2 id="stat-latency" className="stat-label">
          Average response time
        </h2>
        <p className="stat-value">
          {usage.total_calls === 0 ? '—' : formatMs(usage.average_response_time_ms)}
        </p>
        <p className="stat-note">Across every endpoint</p>
      </section>
      <section className="card stat" aria-labelledby="stat-errors">
        <h2 id="stat-errors" className="stat-label">
          Total errors
        </h2>
        <p className="stat-value">{formatNumber(usage.total_errors)}</p>
        <p className="stat-note">
          {usage.total_calls === 0 ? 'No calls yet' : `${errorRate.toFixed(1)}% of calls (4xx and 5xx)`}
        </p>
      </section>
      <section className="card stat" aria-labelledby="stat-quota">
        <h2 id="stat-quota" className="stat-label">
          Monthly quota used
        </h2>
        <p className="stat-value">
          {formatNumber(usage.quota.used)}{' '}
          <span className="stat-of">/ {formatNumber(usage.quota.limit)}</span>
        </p>
        <QuotaBar used={usage.quota.used} limit={usage.quota.limit} label="Monthly quota used" />
        <p className="stat-note">Resets {formatUtcDate(usage.quota.resets_at)}</p>
      </section>
    </div>
  );
}

export function Overview() {
  usePageTitle('Overview');
  const account = useAccount();
  const usage = useResource<Usage>('/usage');
  const versionList = useResource<VersionList>('/versions');
  const versions = { ...versionList, data: versionList.data && describeVersions(versionList.data) };
  const { firstKey, dismissFirstKey } = useSession();

  return (
    <>
      <PageHeader
        title="Overview"
        description={`${account.tenant.name} · this month’s API activity at a glance.`}
      />
      {versions.data ? <VersionBanner versions={versions.data} onUpgraded={versions.reload} /> : null}
      {usage.data ? <QuotaWarning usage={usage.data} /> : null}
      {usage.data ? (
        <UsageCards usage={usage.data} />
      ) : usage.error !== undefined ? (
        <ErrorState error={usage.error} onRetry={usage.reload} title="Usage could not be loaded" />
      ) : (
        <Loading label="Loading usage" rows={2} />
      )}
      <section className="card" aria-labelledby="access">
        <h2 id="access">API access</h2>
        <dl className="details-grid">
          <div className="details-span">
            <dt>Base URL</dt>
            <dd className="mono">{`${window.location.origin}/v1`}</dd>
          </div>
          <div>
            <dt>Pinned version</dt>
            <dd>
              {versions.data
                ? `${versions.data.pinned_release} (${versions.data.pinned})`
                : account.tenant.api_version}
            </dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd className="plan-field">
              {humanize(account.tenant.plan)}
              <PlansButton label="Compare plans" className="button button-small" />
            </dd>
          </div>
        </dl>
      </section>
      <section className="card" aria-labelledby="start">
        <h2 id="start">Build with the API</h2>
        <ul className="links">
          <li>
            <Link to="/keys">Create an API key</Link>{' '}
            <span>with only the permissions an integration needs.</span>
          </li>
          <li>
            <Link to="/webhooks">Add a webhook endpoint</Link>{' '}
            <span>to hear about orders, payments and products as they happen.</span>
          </li>
          <li>
            <Link to="/plugins">Browse plugins</Link>{' '}
            <span>for shipping, accounting, marketing and more.</span>
          </li>
          <li>
            <a href="/docs">Read the API reference</a> <span>(OpenAPI 3.1).</span>
          </li>
        </ul>
      </section>
      {firstKey ? (
        <SecretDialog
          title="Welcome! Here is your first API key"
          description="It holds every permission. Copy it now: it is shown only this once. You can create narrower keys on the API keys page."
          label="API key"
          value={firstKey}
          hint="Send it as Authorization: Bearer <key>."
          onClose={dismissFirstKey}
          doneLabel="I have saved it"
        />
      ) : null}
    </>
  );
}
