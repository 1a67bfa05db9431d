import { lazy, type ReactNode, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { useUpgradeVersion } from '../api/mutations.js';
import {
  useAnalytics,
  useOrders,
  useProducts,
  useUsage,
  useVersions,
  useWalletBalances,
  useWebhooks,
} from '../api/queries.js';
import type { Resource } from '../api/query.js';
import { ConfirmDialog, SecretDialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { PlansButton } from '../components/Plans.js';
import { Async, Empty, ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import {
  formatDateTime,
  formatMoney,
  formatMs,
  formatNumber,
  formatUtcDate,
  humanize,
  percent,
  plural,
  timeAgo,
} from '../format.js';
import { useAccount, useSession } from '../session.js';
import { useNow } from '../timing.js';
import { usePageTitle } from '../title.js';
import type {
  Analytics,
  Order,
  Page,
  Product,
  Usage,
  VersionList,
  Versions,
  WalletBalances,
  Webhook,
} from '../types.js';

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

function VersionBanner({ versions }: { versions: Versions }) {
  const [open, setOpen] = useState(false);
  const { refresh } = useSession();
  const upgradeTo = useUpgradeVersion(refresh);
  const toast = useToast();
  if (!versions.upgrade_available) return null;
  const latest = versions.data.find((v) => v.latest);

  function upgrade() {
    upgradeTo.mutate(versions.latest, {
      onSuccess: () => {
        toast(`Upgraded to API ${versions.latest_release}.`);
        setOpen(false);
      },
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
          busy={upgradeTo.isPending}
          error={upgradeTo.error}
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
        {usage.quota.used > usage.total_calls ? (
          <p className="stat-note" data-testid="quota-ahead">
            {usage.total_calls === 0
              ? 'This page’s own calls count here at once; Total API calls adds them a second later.'
              : 'Counts each call as it is made; Total API calls adds them a second later.'}
          </p>
        ) : null}
      </section>
    </div>
  );
}

// The chart library loads with the chart, after the overview's figures.
const StoreChart = lazy(() => import('../components/StoreChart.js'));

const ORDER_TONES: Record<string, string> = {
  pending: 'neutral',
  paid: 'info',
  shipped: 'info',
  delivered: 'success',
  cancelled: 'neutral',
  refunded: 'warning',
};

/** "+12% on the 30 days before", or nothing to compare with. */
function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? 'No change on the 30 days before' : 'None in the 30 days before';
  const share = Math.round(((now - before) * 100) / Math.abs(before));
  return `${share > 0 ? '+' : share < 0 ? '−' : '±'}${Math.abs(share)}% on the 30 days before`;
}

/** Revenue, orders and average order value of the last 30 days, and the wallets' balances. */
function StoreFigures({ analytics, wallets }: { analytics: Analytics; wallets: WalletBalances | undefined }) {
  const { summary, previous_period: previous, currency } = analytics;
  return (
    <div className="cards" data-testid="store-figures">
      <section className="card stat" aria-labelledby="stat-revenue">
        <h2 id="stat-revenue" className="stat-label">
          Revenue, last 30 days
        </h2>
        <p className="stat-value" data-testid="revenue">
          {formatMoney(summary.revenue, currency)}
        </p>
        <p className="stat-note">{change(summary.revenue, previous.revenue)}</p>
      </section>
      <section className="card stat" aria-labelledby="stat-orders">
        <h2 id="stat-orders" className="stat-label">
          Orders, last 30 days
        </h2>
        <p className="stat-value" data-testid="orders">
          {formatNumber(summary.orders)}
        </p>
        <p className="stat-note">
          {formatNumber(summary.paid_orders)} paid · {change(summary.orders, previous.orders)}
        </p>
      </section>
      <section className="card stat" aria-labelledby="stat-aov">
        <h2 id="stat-aov" className="stat-label">
          Average order value
        </h2>
        <p className="stat-value">
          {summary.paid_orders === 0 ? '—' : formatMoney(summary.average_order_value, currency)}
        </p>
        <p className="stat-note">{plural(summary.customers, 'customer')}</p>
      </section>
      <section className="card stat" aria-labelledby="stat-wallet">
        <h2 id="stat-wallet" className="stat-label">
          Wallet balance
        </h2>
        {wallets === undefined ? (
          <p className="stat-value">…</p>
        ) : (
          <ul className="wallets" aria-label="Wallet balance per currency">
            {wallets.data.map((wallet) => (
              <li key={wallet.currency} data-currency={wallet.currency}>
                <span className="stat-value">{formatMoney(wallet.available, wallet.currency)}</span>{' '}
                <span className="stat-of">{wallet.currency}</span>
              </li>
            ))}
          </ul>
        )}
        <p className="stat-note">Available to transfer or refund</p>
      </section>
    </div>
  );
}

/** No order in the last 60 days: nothing to chart (an axis of $0 says nothing). */
function noSales(analytics: Analytics): boolean {
  return analytics.summary.orders === 0 && analytics.previous_period.orders === 0;
}

/** What a store without sales does next, in place of the sales figures and chart. */
function FirstSteps() {
  return (
    <section className="card" aria-labelledby="first-steps" data-testid="first-steps">
      <div className="card-header">
        <h2 id="first-steps">No sales yet</h2>
        <span className="hint">Revenue and orders show here, day by day, from the first order</span>
      </div>
      <ol className="first-steps">
        <li>
          <Link to="/products/new">Add a product</Link>, or bring your catalogue in from a CSV file (Shopify
          exports too) on the <Link to="/imports">Imports</Link> page.
        </li>
        <li>
          Set your currency and how your shop behaves in <Link to="/settings">Settings</Link>.
        </li>
        <li>
          Make a publishable key on the <Link to="/keys">API keys</Link> page for your shop, or place an order
          with <code>POST /v1/orders</code>: it shows on the <Link to="/orders">Orders</Link> page, to ship or
          refund.
        </li>
      </ol>
    </section>
  );
}

function SalesChart({ analytics }: { analytics: Analytics }) {
  return (
    <section className="card" aria-labelledby="sales-title">
      <div className="card-header">
        <h2 id="sales-title">Revenue and orders</h2>
        <span className="hint">Last 30 days · {analytics.currency} · UTC days</span>
      </div>
      <Suspense fallback={<Loading label="Loading the chart" rows={3} />}>
        <StoreChart analytics={analytics} />
      </Suspense>
    </section>
  );
}

function RecentOrders({ orders }: { orders: Resource<Page<Order>> }) {
  const now = useNow();
  return (
    <section className="card" aria-labelledby="recent-orders">
      <div className="card-header">
        <h2 id="recent-orders">Recent orders</h2>
        {orders.data ? (
          <span className="hint">
            {plural(orders.data.total, 'order')} in all
            {orders.data.total > 0 ? (
              <>
                {' · '}
                <Link to="/orders">See all</Link>
              </>
            ) : null}
          </span>
        ) : null}
      </div>
      <Async resource={orders} loadingLabel="Loading orders">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No orders yet">
              Orders from your shop and from <code>POST /v1/orders</code> show up here as they are placed.
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table table-orders">
                <caption className="visually-hidden">The latest orders, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Customer</th>
                    <th scope="col">Status</th>
                    <th scope="col">Total</th>
                    <th scope="col">Placed</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((order) => (
                    <tr key={order.id} data-order-id={order.id}>
                      <td data-label="Customer" className="break-anywhere">
                        <div>
                          <Link to={`/orders/${order.id}`}>
                            {order.customer.name ?? order.customer.email}
                          </Link>
                          <div className="hint mono">{order.id}</div>
                        </div>
                      </td>
                      <td data-label="Status">
                        <span className={`badge badge-${ORDER_TONES[order.status] ?? 'neutral'}`}>
                          <span className="badge-dot" aria-hidden="true" />
                          {humanize(order.status)}
                        </span>
                      </td>
                      <td data-label="Total" className="numeric nowrap">
                        {formatMoney(order.total, order.currency)}
                      </td>
                      <td data-label="Placed" className="nowrap">
                        <time dateTime={order.created} title={formatDateTime(order.created)}>
                          {timeAgo(order.created, now)}
                        </time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
    </section>
  );
}

/** What needs the owner: the quota from 80% used, paid orders to ship, sold-out products, failing webhooks. */
function Attention({
  soldOut,
  toShip,
  webhooks,
  usage,
}: {
  soldOut: Page<Product> | undefined;
  toShip: Page<Order> | undefined;
  webhooks: Page<Webhook> | undefined;
  usage: Usage | undefined;
}) {
  if (soldOut === undefined || toShip === undefined || webhooks === undefined || usage === undefined) {
    return null;
  }
  const failing = webhooks.data.filter((hook) => hook.status !== 'Active');
  const items: { key: string; tone: 'warning' | 'danger' | 'info'; body: ReactNode }[] = [];
  if (toShip.total > 0) {
    items.push({
      key: 'ship',
      tone: 'info',
      body: (
        <>
          <strong>{plural(toShip.total, 'paid order')} to ship.</strong>{' '}
          <Link to="/orders?status=paid">Open the paid orders</Link> and mark each shipped.
        </>
      ),
    });
  }
  if (soldOut.total > 0) {
    const names = soldOut.data.map((product) => product.name);
    const more = soldOut.total - names.length;
    items.push({
      key: 'sold-out',
      tone: 'warning',
      body: (
        <>
          <strong>{plural(soldOut.total, 'product')} sold out:</strong> {names.join(', ')}
          {more > 0 ? ` and ${formatNumber(more)} more` : ''}.{' '}
          <Link to="/products?stock=out">Restock them</Link>
        </>
      ),
    });
  }
  for (const hook of failing) {
    items.push({
      key: hook.id,
      tone: hook.status === 'Disabled' ? 'danger' : 'warning',
      body: (
        <>
          <strong>Webhook {hook.status === 'Disabled' ? 'disabled' : 'degraded'}:</strong>{' '}
          <Link to={`/webhooks/${hook.id}`} className="break-anywhere">
            {hook.url}
          </Link>{' '}
          {hook.status === 'Disabled'
            ? 'receives nothing until you enable it.'
            : 'its last delivery failed; failed deliveries are retried.'}
        </>
      ),
    });
  }
  return (
    <section className="card" aria-labelledby="attention-title" data-testid="attention">
      <h2 id="attention-title">Needs attention</h2>
      {/* The quota first: past it, every API call is refused. */}
      <QuotaWarning usage={usage} />
      {items.length === 0 && usage.quota.warning ? null : items.length === 0 ? (
        <p className="muted">
          Nothing needs your attention: no sold-out products, orders to ship or failing webhooks.
        </p>
      ) : (
        <ul className="attention">
          {items.map((item) => (
            <li key={item.key} className={`attention-item attention-${item.tone}`} data-attention={item.key}>
              {item.body}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Overview() {
  usePageTitle('Overview');
  const account = useAccount();
  const usage = useUsage();
  const versionList = useVersions();
  const versions = versionList.data && describeVersions(versionList.data);
  const analytics = useAnalytics();
  const wallets = useWalletBalances();
  const orders = useOrders({ limit: 5 });
  const toShip = useOrders({ status: 'paid', limit: 1 });
  const soldOut = useProducts({ in_stock: false, limit: 5 });
  const webhooks = useWebhooks();
  const { firstKey, dismissFirstKey } = useSession();

  return (
    <>
      <PageHeader title="Overview" description={`${account.tenant.name} · your store at a glance.`} />
      {versions ? <VersionBanner versions={versions} /> : null}
      <Attention soldOut={soldOut.data} toShip={toShip.data} webhooks={webhooks.data} usage={usage.data} />
      {analytics.data && noSales(analytics.data) ? (
        <FirstSteps />
      ) : analytics.data ? (
        <>
          <StoreFigures analytics={analytics.data} wallets={wallets.data} />
          <SalesChart analytics={analytics.data} />
        </>
      ) : analytics.error !== undefined ? (
        <ErrorState error={analytics.error} onRetry={analytics.reload} title="Sales could not be loaded" />
      ) : (
        <Loading label="Loading sales" rows={3} />
      )}
      <RecentOrders orders={orders} />
      <h2 className="section-title">API this month</h2>
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
              {versions ? `${versions.pinned_release} (${versions.pinned})` : account.tenant.api_version}
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
