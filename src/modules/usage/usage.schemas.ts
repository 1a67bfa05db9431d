import { type Static, Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { AppsUsageSchema } from './usage.apps.js';
import { USAGE_EXAMPLE } from './usage.examples.js';

export const USAGE_PERIODS = ['7d', '30d', 'month'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

export const UsageQuery = Type.Object(
  {
    period: Type.Optional(
      Type.Unsafe<UsagePeriod>({
        type: 'string',
        enum: [...USAGE_PERIODS],
        default: 'month',
        description:
          '`7d` and `30d`: the last 7 or 30 UTC days, today included; `month` (default): since 00:00 UTC on the 1st.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
const DayCalls = Type.Object({
  date: Type.String({ format: 'date', examples: ['2026-11-21'] }),
  calls: Count,
  errors: Count,
});
const Milliseconds = Type.Number({ minimum: 0, description: 'Milliseconds, one decimal.' });
const EndpointCalls = Type.Object({
  endpoint: Type.String({ examples: ['GET /products'] }),
  calls: Count,
  errors: Count,
  average_response_time_ms: Milliseconds,
});

const StorefrontUsageSchema = Type.Object(
  {
    calls: Type.Integer({
      minimum: 0,
      description:
        'Calls to the storefront routes (`/store/*`) in the period, those refused with 429 included.',
    }),
    errors: Type.Integer({ minimum: 0, description: 'Storefront responses with status 4xx or 5xx.' }),
    rate_limited: Type.Integer({
      minimum: 0,
      description: 'Storefront calls refused with 429 `rate_limited` by the storefront’s limits.',
    }),
    average_response_time_ms: Milliseconds,
    top_endpoints: Type.Array(EndpointCalls, {
      description: 'The 10 most called storefront endpoints of the period, most calls first.',
    }),
    days: Type.Array(DayCalls, {
      description: 'Every UTC day of the period, oldest first; days without storefront calls are 0.',
    }),
  },
  {
    description:
      'The storefront’s calls (`/store/*`, by publishable and secret keys alike), reported apart: they count against neither the quota nor the hourly limit, and are not in `total_calls`, `total_errors`, `top_endpoints`, `daily_calls` or `days`. From version 2027-01-20.',
  },
);

const ModeUsageSchema = Type.Object(
  {
    calls: Type.Integer({
      minimum: 0,
      description:
        'The mode’s authenticated requests in the period (storefront calls excepted), those refused with 429 included.',
    }),
    errors: Type.Integer({ minimum: 0, description: 'Its responses with status 4xx or 5xx.' }),
    average_response_time_ms: Milliseconds,
    counts_against_quota: Type.Boolean({
      description: 'true for live; test calls never count against the monthly quota.',
    }),
    rate_limit: Type.Object(
      {
        limit: Type.Integer({ minimum: 1, description: 'Requests per hour.' }),
        remaining: Count,
        resets_at: Type.String({
          format: 'date-time',
          description: 'When the whole hourly allowance is available again.',
        }),
      },
      { description: 'The mode’s own hourly limit (the plan’s, counted apart for each mode).' },
    ),
    top_endpoints: Type.Array(EndpointCalls, {
      description: 'The mode’s 10 most called endpoints of the period, most calls first.',
    }),
    days: Type.Array(DayCalls, {
      description: 'Every UTC day of the period, oldest first; days without calls are 0.',
    }),
  },
  { description: 'One mode’s calls in the period.' },
);
export type ModeUsage = Static<typeof ModeUsageSchema>;

export const UsageSchema = Type.Object(
  {
    period: Type.Object({ from: Timestamp, to: Timestamp }),
    total_calls: Type.Integer({
      minimum: 0,
      description:
        'Authenticated requests in the period, those refused with 429 included; storefront calls are in `storefront`.',
    }),
    average_response_time_ms: Milliseconds,
    total_errors: Type.Integer({
      minimum: 0,
      description: 'Responses with status 4xx or 5xx (storefront calls excepted).',
    }),
    quota: Type.Object({
      used: Type.Integer({
        minimum: 0,
        description: 'Calls counted this calendar month (UTC), this one included; refused ones never count.',
      }),
      limit: Count,
      remaining: Count,
      percent_used: Type.Number({ minimum: 0, description: 'Rounded down to one decimal.' }),
      resets_at: Timestamp,
      warning: Type.Boolean({ description: 'true from 80% used.' }),
    }),
    rate_limit: Type.Object({
      limit: Type.Integer({ minimum: 1, description: 'Requests per hour.' }),
      remaining: Count,
      resets_at: Type.String({
        format: 'date-time',
        description: 'When the whole hourly allowance is available again.',
      }),
    }),
    top_endpoints: Type.Array(EndpointCalls, {
      description: 'The 10 most called endpoints of the period, most calls first.',
    }),
    daily_calls: Type.Array(DayCalls, {
      description: 'The last 7 UTC days, today included, oldest first; days without calls are 0.',
    }),
    days: Type.Array(DayCalls, {
      description:
        'Every UTC day of the period (`period.from` to today), oldest first; days without calls are 0. From version 2026-12-15.',
    }),
    apps: AppsUsageSchema,
    storefront: StorefrontUsageSchema,
    by_mode: Type.Object(
      {
        live: ModeUsageSchema,
        test: Type.Union([ModeUsageSchema, Type.Null()], {
          description: 'null while the store has no test mode (no test key made yet).',
        }),
      },
      {
        description:
          'The store’s live and test calls side by side, whichever mode’s key asks (the figures above are the calling key’s mode’s). Only live calls count against the monthly quota; each mode has its own hourly limit. From version 2027-01-20.',
      },
    ),
  },
  { examples: [USAGE_EXAMPLE] },
);
export type Usage = Static<typeof UsageSchema>;
