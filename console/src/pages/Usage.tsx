import { useId, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { PageHeader } from '../components/Layout.js';
import { PlanOptions } from '../components/Plans.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import {
  formatCompact,
  formatDateTime,
  formatDay,
  formatMs,
  formatNumber,
  formatUtcDate,
  percent,
  plural,
} from '../format.js';
import { useUsage } from '../api/queries.js';
import { usePageTitle } from '../title.js';
import type { Usage as UsageData } from '../types.js';
import { QuotaWarning, UsageCards } from './Overview.js';

const PERIODS = [
  { value: 'month', label: 'This month' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
] as const;

function TopEndpoints({ usage }: { usage: UsageData }) {
  const top = usage.top_endpoints;
  const most = Math.max(1, ...top.map((e) => e.calls));
  return (
    <section className="card" aria-labelledby="top-endpoints">
      <h2 id="top-endpoints">Top endpoints</h2>
      {top.length === 0 ? (
        <Empty title="No calls in this period">
          Calls to the API, with your keys or from this console, show up here within seconds.
        </Empty>
      ) : (
        <ol className="bar-list">
          {top.map((endpoint) => (
            <li key={endpoint.endpoint} className="bar-item">
              <div className="bar-label">
                <span className="mono">{endpoint.endpoint}</span>
                <span className="bar-figures">
                  <strong>{plural(endpoint.calls, 'call')}</strong>
                  {endpoint.errors > 0 ? (
                    <span className="bar-errors"> · {plural(endpoint.errors, 'error')}</span>
                  ) : null}
                  <span className="muted"> · {formatMs(endpoint.average_response_time_ms)}</span>
                </span>
              </div>
              <div className="bar-track" aria-hidden="true">
                <div className="bar-fill" style={{ width: `${percent(endpoint.calls, most)}%` }} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Dark amber: the legend's "Errors", set in it, reads 5:1 on white (a lighter amber, 2:1). */
const ERRORS_COLOR = '#b45309';

/** The hourly limit as it stands: nothing to wait for when none of it is used. */
export function hourlyLimitText(rate: UsageData['rate_limit']): string {
  if (rate.remaining >= rate.limit) {
    return `${formatNumber(rate.limit)} calls an hour, all of them available now`;
  }
  return `${formatNumber(rate.remaining)} of ${formatNumber(rate.limit)} left; calls come back continuously, all of them by ${formatDateTime(rate.resets_at)}`;
}

function DailyChart({ usage, periodLabel }: { usage: UsageData; periodLabel: string }) {
  const days = usage.days;
  const data = days.map((day) => ({
    day: formatDay(day.date, true),
    date: day.date,
    Successful: day.calls - day.errors,
    Errors: day.errors,
  }));
  const total = days.reduce((sum, day) => sum + day.calls, 0);
  const titleId = useId();
  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <h2 id={titleId}>Daily calls, {periodLabel.toLowerCase()}</h2>
        <span className="hint">{plural(total, 'call')} · UTC days</span>
      </div>
      <div
        className="chart"
        role="img"
        data-days={days.length}
        aria-label={`Daily calls: ${days.map((d) => `${formatDay(d.date)} ${d.calls}`).join(', ')}`}
      >
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -12 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e5e7eb" />
            {/* Every day's label where there is room; on a narrow screen, as many as fit. */}
            <XAxis
              dataKey="day"
              interval="equidistantPreserveStart"
              tickLine={false}
              axisLine={false}
              fontSize={12}
            />
            <YAxis
              allowDecimals={false}
              tickLine={false}
              axisLine={false}
              fontSize={12}
              tickFormatter={(v: number) => formatCompact(v)}
            />
            <Tooltip
              cursor={{ fill: '#eef2ff' }}
              formatter={(value) => formatNumber(Number(value))}
              labelFormatter={(_label, payload) => {
                const date = (payload[0]?.payload as { date?: string } | undefined)?.date;
                return date ? formatDay(date) : '';
              }}
            />
            <Legend iconType="circle" iconSize={8} wrapperStyle={{ fontSize: 12 }} />
            <Bar
              dataKey="Successful"
              stackId="calls"
              fill="#4f46e5"
              radius={[0, 0, 0, 0]}
              isAnimationActive={false}
            />
            <Bar
              dataKey="Errors"
              stackId="calls"
              fill={ERRORS_COLOR}
              radius={[4, 4, 0, 0]}
              isAnimationActive={false}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <table className="visually-hidden">
        <caption>Daily calls</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Calls</th>
            <th scope="col">Errors</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <td>{day.date}</td>
              <td>{day.calls}</td>
              <td>{day.errors}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

type ModeUsage = NonNullable<NonNullable<UsageData['by_mode']>['live']>;

/** The store's live and test calls side by side, whichever mode the console shows. */
function ByMode({ usage }: { usage: UsageData }) {
  const modes = usage.by_mode;
  if (modes === undefined) return null;
  const rows: [string, ModeUsage | null][] = [
    ['Live', modes.live],
    ['Test', modes.test],
  ];
  return (
    <section className="card" aria-labelledby="by-mode-title">
      <h2 id="by-mode-title">Live and test</h2>
      <table className="table" data-testid="usage-by-mode">
        <caption>Calls of the period by mode; only live calls count against the monthly quota</caption>
        <thead>
          <tr>
            <th scope="col">Mode</th>
            <th scope="col">Calls</th>
            <th scope="col">Errors</th>
            <th scope="col">Average response</th>
            <th scope="col">Hourly rate limit</th>
            <th scope="col">Monthly quota</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, mode]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {mode === null ? (
                <td colSpan={5}>No test mode yet: make a test key to start one.</td>
              ) : (
                <>
                  <td>{formatNumber(mode.calls)}</td>
                  <td>{formatNumber(mode.errors)}</td>
                  <td>{formatMs(mode.average_response_time_ms)}</td>
                  <td>{hourlyLimitText(mode.rate_limit)}</td>
                  <td>{mode.counts_against_quota ? 'Counts' : 'Never counts'}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Usage() {
  usePageTitle('Usage');
  const [period, setPeriod] = useState<(typeof PERIODS)[number]['value']>('month');
  const usage = useUsage(period, { refreshMs: 10_000 });
  const periodId = useId();

  return (
    <>
      <PageHeader
        title="Usage"
        description="API calls of every key of your store, as counted against your limits."
        actions={
          <div className="field field-inline">
            <label htmlFor={periodId}>Period</label>
            <select id={periodId} value={period} onChange={(e) => setPeriod(e.target.value as typeof period)}>
              {PERIODS.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </div>
        }
      />
      {usage.data === undefined ? (
        usage.error !== undefined ? (
          <ErrorState error={usage.error} onRetry={usage.reload} title="Usage could not be loaded" />
        ) : (
          <Loading label="Loading usage" rows={4} />
        )
      ) : (
        <>
          <QuotaWarning usage={usage.data} />
          <UsageCards usage={usage.data} />
          <div className="split">
            <DailyChart
              usage={usage.data}
              periodLabel={PERIODS.find((p) => p.value === period)?.label ?? 'this period'}
            />
            <TopEndpoints usage={usage.data} />
          </div>
          <ByMode usage={usage.data} />
          <section className="card" aria-labelledby="limits-title">
            <h2 id="limits-title">Limits</h2>
            <dl className="details-grid">
              <div>
                <dt>Monthly quota</dt>
                <dd>
                  {formatNumber(usage.data.quota.used)} of {formatNumber(usage.data.quota.limit)} used (
                  {usage.data.quota.percent_used}%), resets {formatUtcDate(usage.data.quota.resets_at)}
                </dd>
              </div>
              <div>
                <dt>Hourly rate limit</dt>
                <dd data-testid="hourly-limit">{hourlyLimitText(usage.data.rate_limit)}</dd>
              </div>
            </dl>
          </section>
          <section className="card" aria-labelledby="plans-title">
            <h2 id="plans-title">Plans</h2>
            <PlanOptions />
          </section>
        </>
      )}
    </>
  );
}
