import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { LINE_OR_EMPTY_PATTERN, NONBLANK_TEXT_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { PermissionSchema } from '../api-keys/api-keys.schemas.js';
import { EVENT_TYPES } from '../events/events.types.js';

/** The marketplace's categories; every catalog entry has one of them. */
export const PLUGIN_CATEGORIES = [
  'accounting',
  'analytics',
  'customer-support',
  'inventory',
  'loyalty',
  'marketing',
  'notifications',
  'payments',
  'reviews',
  'sales-channels',
  'shipping',
  'tax',
] as const;

export const PLUGIN_SORTS = ['installs', 'rating', 'name'] as const;
export type PluginSort = (typeof PLUGIN_SORTS)[number];

const EventTypeSchema = Type.String({ enum: [...EVENT_TYPES] });

export const InstallationSchema = Type.Object(
  {
    installed_at: Timestamp,
    granted_permissions: Type.Array(PermissionSchema),
    granted_events: Type.Array(EventTypeSchema),
  },
  { description: 'What the calling tenant granted the plugin when it installed it.' },
);

export const PluginSchema = Type.Object({
  id: Type.String({ examples: ['plg_JzyZ3ddSKRqbTo5vIrpPwvll'] }),
  name: Type.String({ examples: ['Slack Order Notifications'] }),
  slug: Type.String({ examples: ['slack-order-notifications'] }),
  description: Type.String(),
  category: Type.String({ enum: [...PLUGIN_CATEGORIES] }),
  author: Type.String(),
  installs: Type.Integer({ minimum: 0, description: 'Active installations across all stores.' }),
  rating: Type.Number({
    minimum: 0,
    maximum: 5,
    description: 'Average stars, rounded half up to one decimal; 0 while unrated.',
    examples: [4.7],
  }),
  rating_count: Type.Integer({ minimum: 0 }),
  installed: Type.Boolean({ description: 'Whether the calling tenant has it installed.' }),
  permissions: Type.Array(PermissionSchema, { description: 'What the plugin needs to be granted.' }),
  events: Type.Array(EventTypeSchema, { description: 'The event types it listens to.' }),
  installation: Nullable(InstallationSchema),
});
export type PluginObject = Static<typeof PluginSchema>;

export const RatingSchema = Type.Object({
  plugin_id: Type.String(),
  stars: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Nullable(Type.String()),
  created: Timestamp,
  updated: Timestamp,
});
export type RatingObject = Static<typeof RatingSchema>;

export const PluginListQuery = Type.Object(
  {
    ...PageQuery,
    q: Type.Optional(
      Type.String({
        maxLength: 100,
        pattern: LINE_OR_EMPTY_PATTERN,
        description:
          'Words to find in the name, description, author, slug or category (case-insensitive); every word must match. Empty: no filter.',
      }),
    ),
    category: Type.Optional(Type.String({ enum: [...PLUGIN_CATEGORIES] })),
    installed: Type.Optional(Type.Boolean({ description: 'Only plugins the caller has (not) installed.' })),
    sort: Type.Optional(
      Type.String({
        enum: [...PLUGIN_SORTS],
        default: 'installs',
        description:
          '`installs`: most installed first (default); `rating`: best rated first, then most rated; `name`: A to Z, case-insensitive.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PluginListQuery = Static<typeof PluginListQuery>;

export const PluginParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The plugin id (`plg_...`) or its slug.' }),
});

export const InstallBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Optional: send no body or `{}`; no fields are accepted.' },
);

export const RatingBody = Type.Object(
  {
    stars: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: NONBLANK_TEXT_PATTERN })),
  },
  { additionalProperties: false },
);
export type RatingBody = Static<typeof RatingBody>;
