import { useId } from 'react';
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatDay, formatMoney, formatNumber } from '../format.js';
import type { Analytics } from '../types.js';

/** Dark teal: the orders line and its legend label read 4.5:1 or better on white. */
const ORDERS_COLOR = '#0f766e';

/**
 * Revenue (bars, left axis) and orders (a line, right axis) per day of an analytics period. It
 * carries the chart library, so the overview loads it on its own (React.lazy), after its figures.
 */
export default function StoreChart({ analytics }: { analytics: Analytics }) {
  const { currency } = analytics;
  const data = analytics.timeseries.map((bucket) => ({
    day: formatDay(bucket.period_start, true),
    date: bucket.period_start,
    Revenue: bucket.revenue,
    Orders: bucket.orders,
  }));
  const tableId = useId();
  return (
    <>
      <div
        className="chart"
        role="img"
        data-days={data.length}
        aria-label={`Revenue and orders per day: ${analytics.timeseries
          .map((b) => `${formatDay(b.period_start)} ${formatMoney(b.revenue, currency)}, ${plural(b.orders)}`)
          .join('; ')}`}
        aria-describedby={tableId}
      >
        <ResponsiveContainer width="100%" height={260}>
          <ComposedChart data={data} margin={{ top: 8, right: 0, bottom: 0, left: -4 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e5e7eb" />
            <XAxis
              dataKey="day"
              interval="equidistantPreserveStart"
              tickLine={false}
              axisLine={false}
              fontSize={12}
            />
            <YAxis
              yAxisId="revenue"
              tickLine={false}
              axisLine={false}
              fontSize={12}
              width={56}
              tickFormatter={(v: number) => formatMoney(v, currency, true)}
            />
            <YAxis
              yAxisId="orders"
              orientation="right"
              allowDecimals={false}
              tickLine={false}
              axisLine={false}
              fontSize={12}
              width={32}
            />
            <Tooltip
              cursor={{ fill: '#eef2ff' }}
              formatter={(value, name) =>
                name === 'Revenue' ? formatMoney(Number(value), currency) : formatNumber(Number(value))
              }
              labelFormatter={(_label, payload) => {
                const date = (payload[0]?.payload as { date?: string } | undefined)?.date;
                return date ? formatDay(date) : '';
              }}
            />
            <Legend iconType="circle" iconSize={8} wrapperStyle={{ fontSize: 12 }} />
            <Bar
              yAxisId="revenue"
              dataKey="Revenue"
              fill="#4f46e5"
              radius={[3, 3, 0, 0]}
              isAnimationActive={false}
            />
            <Line
              yAxisId="orders"
              dataKey="Orders"
              type="linear"
              stroke={ORDERS_COLOR}
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <table className="visually-hidden" id={tableId}>
        <caption>Revenue and orders per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Revenue</th>
            <th scope="col">Orders</th>
          </tr>
        </thead>
        <tbody>
          {analytics.timeseries.map((bucket) => (
            <tr key={bucket.period_start}>
              <td>{bucket.period_start}</td>
              <td>{formatMoney(bucket.revenue, currency)}</td>
              <td>{bucket.orders}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function plural(orders: number): string {
  return `${formatNumber(orders)} order${orders === 1 ? '' : 's'}`;
}
