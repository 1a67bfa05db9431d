import { Type } from 'typebox';
import type { Db } from '../../db/store.js';
import * as repo from './usage.repository.js';

/** The endpoints listed per plugin. */
const TOP_APP_ENDPOINTS = 10;

const Count = Type.Integer({ minimum: 0 });

/** `apps` of `GET /usage` (2026-12-15): the calls installed plugins made with their tokens. */
export const AppsUsageSchema = Type.Array(
  Type.Object({
    plugin_id: Type.String({ examples: ['plg_Vq3sX8hT2mKd9RpL4wZy6NbC'] }),
    name: Type.String({ description: "The plugin's name.", examples: ['Sold-out hider'] }),
    calls: Count,
    errors: Count,
    average_response_time_ms: Type.Number({ minimum: 0, description: 'Milliseconds, one decimal.' }),
    top_endpoints: Type.Array(
      Type.Object({
        endpoint: Type.String({ examples: ['PATCH /products/{id}'] }),
        calls: Count,
        errors: Count,
      }),
      { description: "The plugin's 10 most called endpoints of the period, most calls first." },
    ),
  }),
  {
    description:
      'Calls made in the period with plugin installation tokens, by plugin, most calls first (they are counted in the totals above too). From version 2026-12-15.',
  },
);

function averageMs(durationUs: number, calls: number): number {
  return calls === 0 ? 0 : Math.round(durationUs / calls / 100) / 10;
}

const byCallsThen =
  <T extends { calls: number }>(key: (row: T) => string) =>
  (a: T, b: T) =>
    b.calls - a.calls || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** The calls plugins made for the tenant over the days from `from` on, per plugin. */
export async function appUsage(db: Db, tenantId: string, from: number) {
  const rows = await repo.usageByApp(db, tenantId, from);
  const apps = new Map<string, { name: string; rows: repo.AppEndpointUsage[] }>();
  for (const row of rows) {
    const app = apps.get(row.plugin_id) ?? { name: row.name, rows: [] };
    app.rows.push(row);
    apps.set(row.plugin_id, app);
  }
  return [...apps]
    .map(([pluginId, app]) => {
      const calls = app.rows.reduce((sum, row) => sum + row.calls, 0);
      const durationUs = app.rows.reduce((sum, row) => sum + row.duration_us, 0);
      return {
        plugin_id: pluginId,
        name: app.name,
        calls,
        errors: app.rows.reduce((sum, row) => sum + row.errors, 0),
        average_response_time_ms: averageMs(durationUs, calls),
        top_endpoints: app.rows
          .sort(byCallsThen((row) => row.endpoint))
          .slice(0, TOP_APP_ENDPOINTS)
          .map((row) => ({ endpoint: row.endpoint, calls: row.calls, errors: row.errors })),
      };
    })
    .sort(byCallsThen((app) => app.plugin_id));
}
