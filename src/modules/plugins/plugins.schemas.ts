import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import {
  LINE_OR_EMPTY_PATTERN,
  LINE_PATTERN,
  NONBLANK_TEXT_PATTERN,
  Nullable,
  Timestamp,
} from '../../http/schemas.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import { permissionSchema } from '../api-keys/index.js';
import { PLUGIN_CATEGORIES, pluginEvents, pluginPermissions } from './plugins.catalog.js';
import { DeliverySchema, MAX_URL_LENGTH } from '../webhooks/index.js';
import {
  NEW_PLUGIN_EXAMPLE,
  PLUGIN_DELIVERY_EXAMPLE,
  PLUGIN_EXAMPLE,
  PLUGIN_INSTALLATION_EXAMPLE,
  PLUGIN_REVISION_EXAMPLE,
  RATING_EXAMPLE,
} from './plugins.examples.js';

export const PLUGIN_SORTS = ['installs', 'rating', 'name'] as const;
export type PluginSort = (typeof PLUGIN_SORTS)[number];

export const PLUGIN_STATUSES = ['draft', 'in_review', 'published', 'rejected'] as const;
export const REVISION_STATUSES = ['pending', 'rejected'] as const;

const Url = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description, examples: [example] });

/**
 * The schemas that name permissions and event types: the modules declare them, so the lists are
 * known once the modules are found, not when this file is imported. Built once by the routes and
 * the manifest.
 */
export function pluginSchemas(vocabulary: Vocabulary) {
  const PermissionSchema = permissionSchema(vocabulary);
  const EventTypeSchema = Type.String({ enum: [...vocabulary.eventTypes] });
  const permissions = pluginPermissions(vocabulary);
  const events = pluginEvents(vocabulary);

  const manifest = {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN, examples: ['Stock Sync'] }),
    slug: Type.String({
      minLength: 3,
      maxLength: 64,
      pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      description: 'Unique in the marketplace: lowercase letters, digits and single hyphens.',
      examples: ['stock-sync'],
    }),
    description: Type.String({
      minLength: 1,
      maxLength: 2000,
      pattern: NONBLANK_TEXT_PATTERN,
      examples: ['Keeps stock levels in step with your warehouse system.'],
    }),
    category: Type.String({ enum: [...PLUGIN_CATEGORIES] }),
    permissions: Type.Array(Type.String({ enum: [...permissions] }), {
      maxItems: permissions.length,
      uniqueItems: true,
      description:
        'What its installation token may do. Key, plugin, settings and audit permissions cannot be asked for.',
      examples: [['read:products', 'write:products']],
    }),
    events: Type.Array(Type.String({ enum: [...events] }), {
      maxItems: events.length,
      uniqueItems: true,
      description:
        'The store events delivered to `webhook_url` (beside the `app.*` events about its installations).',
      examples: [['product.updated', 'product.outofstock']],
    }),
    webhook_url: Url(
      'Where events are delivered, checked as webhook URLs are: https, without credentials, resolving to public addresses only (422 `invalid_webhook_url`).',
      'https://apps.example.com/hooks/commerce',
    ),
    homepage_url: Url('https, shown in the marketplace.', 'https://apps.example.com/stock-sync'),
  };

  const PluginRevisionSchema = Type.Object(
    {
      status: Type.String({
        enum: [...REVISION_STATUSES],
        description:
          '`pending` until the operator approves it (its changes then go live) or rejects it (`rejected`, with `rejection_reason`; the plugin stays as it is). Changing the plugin again makes it `pending` again.',
      }),
      changes: Type.Object(
        {
          name: Type.Optional(manifest.name),
          description: Type.Optional(manifest.description),
          category: Type.Optional(manifest.category),
          permissions: Type.Optional(manifest.permissions),
          events: Type.Optional(manifest.events),
          webhook_url: Type.Optional(manifest.webhook_url),
          homepage_url: Type.Optional(Nullable(manifest.homepage_url)),
        },
        { description: 'The fields it changes, with their new values; the plugin shows the live ones.' },
      ),
      rejection_reason: Nullable(Type.String({ description: "The operator's reason, when rejected." })),
      created: Timestamp,
      updated: Timestamp,
    },
    {
      description:
        'Changes to a published plugin awaiting the operator’s approval; shown to its publisher only (since 2026-12-15).',
      examples: [PLUGIN_REVISION_EXAMPLE],
    },
  );

  const PendingGrantSchema = Type.Object(
    {
      permissions: Type.Array(PermissionSchema, {
        description: 'Every permission the token will hold once the store accepts.',
      }),
      events: Type.Array(EventTypeSchema, { description: 'Every event delivered once the store accepts.' }),
    },
    {
      description:
        'What an approved revision of the plugin asks for, being more than this store granted: the token keeps its `granted_permissions` and the plugin its `granted_events` until the store accepts (`POST /plugins/{id}/install/accept`). Null when nothing waits.',
      examples: [
        {
          permissions: ['read:products', 'write:products', 'read:orders'],
          events: ['product.updated', 'product.outofstock', 'order.paid'],
        },
      ],
    },
  );

  const InstallationSchema = Type.Object(
    {
      id: Type.String({
        description: 'The installation (`ins_...`).',
        examples: ['ins_7Hq2LmX9aZ0bC3dE5fG7hJ9k'],
      }),
      installed_at: Timestamp,
      granted_permissions: Type.Array(PermissionSchema, {
        description: 'What its installation token may do in this store.',
      }),
      granted_events: Type.Array(EventTypeSchema, { description: 'The events delivered to the plugin.' }),
      pending_permissions: Nullable(PendingGrantSchema),
    },
    {
      description: 'What the calling tenant granted the plugin, and what it asks for beyond that.',
      examples: [PLUGIN_EXAMPLE.installation],
    },
  );

  const PluginSchema = Type.Object(
    {
      id: Type.String({ examples: ['plg_Vq3sX8hT2mKd9RpL4wZy6NbC'] }),
      name: Type.String({ examples: ['Sold-out hider'] }),
      slug: Type.String({ examples: ['sold-out-hider'] }),
      description: Type.String(),
      category: Type.String({ enum: [...PLUGIN_CATEGORIES] }),
      author: Type.String({ description: 'The publisher: its store name, or `Commerce Platform`.' }),
      installs: Type.Integer({ minimum: 0, description: 'Stores that have it installed now.' }),
      rating: Type.Number({
        minimum: 0,
        maximum: 5,
        description: 'Average stars, rounded half up to one decimal; 0 while unrated.',
        examples: [4.7],
      }),
      rating_count: Type.Integer({ minimum: 0 }),
      installed: Type.Boolean({ description: 'Whether the calling tenant has it installed.' }),
      permissions: Type.Array(PermissionSchema, {
        description: 'What its installation token may do in a store that installs it.',
      }),
      events: Type.Array(EventTypeSchema, { description: 'The event types delivered to it.' }),
      installation: Nullable(InstallationSchema),
      status: Type.String({
        enum: [...PLUGIN_STATUSES],
        description:
          '`published` plugins are listed for every store; `draft`, `in_review` and `rejected` ones only for their publisher (since 2026-12-15).',
      }),
      homepage_url: Nullable(Type.String({ examples: ['https://apps.example.com/stock-sync'] })),
      first_party: Type.Boolean({ description: 'Made and run by the platform itself (since 2026-12-15).' }),
      owned: Type.Boolean({ description: 'Whether the calling tenant publishes it (since 2026-12-15).' }),
      my_rating: Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 5,
          description: "The calling store's own stars, or null when it has not rated it (since 2026-12-15).",
        }),
      ),
      webhook_url: Type.Optional(
        Type.String({
          description: 'Where its events are delivered; shown to its publisher only.',
          examples: ['https://apps.example.com/hooks/commerce'],
        }),
      ),
      rejection_reason: Type.Optional(
        Nullable(Type.String({ description: "The operator's reason, when rejected; publisher only." })),
      ),
      pending_revision: Type.Optional(Nullable(PluginRevisionSchema)),
      secret: Type.Optional(
        Type.String({
          description:
            'The signing secret of its deliveries (`whsec_` + base64), in the response that creates the plugin only.',
          examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwZ0vj1xDkQ8c='],
        }),
      ),
    },
    { examples: [PLUGIN_EXAMPLE] },
  );

  /** The answer that publishes a plugin: its example is a draft with its secret, shown this once. */
  const NewPluginSchema = { ...PluginSchema, examples: [NEW_PLUGIN_EXAMPLE] };

  const CreatePluginBody = Type.Object(
    { ...manifest, homepage_url: Type.Optional(manifest.homepage_url) },
    {
      additionalProperties: false,
      examples: [
        {
          name: 'Stock Sync',
          slug: 'stock-sync',
          description: 'Keeps stock levels in step with your warehouse system.',
          category: 'inventory',
          permissions: ['read:products', 'write:products'],
          events: ['product.updated', 'product.outofstock'],
          webhook_url: 'https://apps.example.com/hooks/commerce',
          homepage_url: 'https://apps.example.com/stock-sync',
        },
      ],
    },
  );

  const UpdatePluginBody = Type.Object(
    {
      name: Type.Optional(manifest.name),
      description: Type.Optional(manifest.description),
      category: Type.Optional(manifest.category),
      permissions: Type.Optional(manifest.permissions),
      events: Type.Optional(manifest.events),
      webhook_url: Type.Optional(manifest.webhook_url),
      homepage_url: Type.Optional(Nullable(manifest.homepage_url)),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      examples: [{ description: 'Keeps stock levels and prices in step with your warehouse system.' }],
      description:
        'A `draft` or `rejected` plugin changes at once (a `rejected` one is a `draft` again); nothing changes while it is `in_review` (409 `invalid_state_transition`). A `published` plugin does not change: the fields go into its `pending_revision`, which the operator approves or rejects, merged with those of earlier changes; a field set back to its live value leaves the revision. The slug never changes.',
    },
  );

  return { PluginRevisionSchema, PluginSchema, NewPluginSchema, CreatePluginBody, UpdatePluginBody };
}

type PluginSchemas = ReturnType<typeof pluginSchemas>;
export type PluginRevisionObject = Static<PluginSchemas['PluginRevisionSchema']>;
export type PluginObject = Static<PluginSchemas['PluginSchema']>;
export type CreatePluginBody = Static<PluginSchemas['CreatePluginBody']>;
export type UpdatePluginBody = Static<PluginSchemas['UpdatePluginBody']>;

export const RatingSchema = Type.Object(
  {
    plugin_id: Type.String(),
    stars: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Nullable(Type.String()),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [RATING_EXAMPLE] },
);
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
    owned: Type.Optional(
      Type.Boolean({ description: 'Only plugins the caller publishes (any status), or only others.' }),
    ),
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
  {
    additionalProperties: false,
    description: 'Optional: send no body or `{}`; no fields are accepted.',
    examples: [{}],
  },
);

export const RatingBody = Type.Object(
  {
    stars: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: NONBLANK_TEXT_PATTERN })),
  },
  {
    additionalProperties: false,
    examples: [{ stars: 5, comment: 'Set up in minutes; stock has matched the warehouse ever since.' }],
  },
);
export type RatingBody = Static<typeof RatingBody>;

export const PluginInstallationSchema = Type.Object(
  {
    id: Type.String({ examples: ['ins_7Hq2LmX9aZ0bC3dE5fG7hJ9k'] }),
    tenant_id: Type.String({ examples: ['ten_2bX9sT2uV7wY3cE5fG7hJ9kL'] }),
    store_name: Type.String({ examples: ['Northwind Outfitters'] }),
    installed_at: Timestamp,
  },
  { examples: [PLUGIN_INSTALLATION_EXAMPLE] },
);
export type PluginInstallationObject = Static<typeof PluginInstallationSchema>;

export const PluginDeliverySchema = Type.Object(
  {
    ...DeliverySchema.properties,
    tenant_id: Type.String({ description: 'The store the event came from.' }),
    installation_id: Nullable(Type.String({ examples: ['ins_7Hq2LmX9aZ0bC3dE5fG7hJ9k'] })),
  },
  { examples: [PLUGIN_DELIVERY_EXAMPLE] },
);

export const PublisherListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

/** A plugin's installation in a store, as the `app.*` events carry it. */
export const AppInstallationSchema = Type.Object(
  {
    id: Type.String({ examples: ['ins_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
    installation_id: Type.String(),
    plugin_id: Type.String(),
    tenant_id: Type.String(),
    access_token: Type.Optional(
      Type.String({ description: 'On `app.installed` only: the installation token, `sk_app_…`; sent once.' }),
    ),
    permissions: Type.Optional(
      Type.Array(Type.String(), {
        description: 'On `app.installed` and `app.permissions_updated`: what the token may do now.',
      }),
    ),
    events: Type.Optional(
      Type.Array(Type.String(), {
        description: 'On `app.installed` and `app.permissions_updated`: the store events delivered now.',
      }),
    ),
  },
  {
    examples: [
      {
        id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
        installation_id: 'ins_0vU6ZE7aoxDJ2WuQCTZYESp9',
        plugin_id: 'plg_FPECyw0wQoVnKyEBdlHyWdK2',
        tenant_id: 'ten_zxhCY4hnvnD7uaGOkWU8LrY1',
        access_token: 'sk_app_Qm3vX9cT2bL7wR4yN8pK1dF6hJ0sZ5aE',
        permissions: ['read:products', 'write:products'],
        events: ['product.updated', 'product.outofstock'],
      },
    ],
  },
);
