import { iso } from '../../lib/clock.js';
import type { PluginRatingsTable } from '../../db/schema.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import { eventList, permissionList } from './plugins.grants.js';
import type * as repo from './plugins.repository.js';
import { presentRevision } from './plugins.revisions.js';
import type { PluginObject, RatingObject } from './plugins.schemas.js';

/** A plugin as a tenant sees it (its author sees more), and a store's rating of one. */

export function presentPlugin(row: repo.PluginRow, tenantId: string, vocabulary: Vocabulary): PluginObject {
  const installation =
    row.installed_at === null || row.installation_id === null
      ? null
      : {
          id: row.installation_id,
          installed_at: iso(row.installed_at),
          granted_permissions: permissionList(row.granted_permissions, vocabulary),
          granted_events: eventList(row.granted_events, vocabulary),
          pending_permissions:
            row.pending_permissions === null
              ? null
              : {
                  permissions: permissionList(row.pending_permissions, vocabulary),
                  events: eventList(row.pending_events, vocabulary),
                },
        };
  const owned = row.owner_tenant_id !== null && row.owner_tenant_id === tenantId;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    category: row.category,
    author: row.author,
    installs: Number(row.installs),
    rating: Number(row.rating_tenths) / 10,
    rating_count: Number(row.rating_count),
    installed: installation !== null,
    permissions: permissionList(row.permissions, vocabulary),
    events: eventList(row.events, vocabulary),
    installation,
    status: row.status,
    homepage_url: row.homepage_url,
    first_party: row.runtime !== null,
    owned,
    my_rating: row.my_rating === null ? null : Number(row.my_rating),
    ...(owned
      ? {
          webhook_url: row.webhook_url ?? '',
          rejection_reason: row.rejection_reason,
          pending_revision: presentRevision(row, vocabulary),
        }
      : {}),
  };
}

export function presentRating(row: PluginRatingsTable): RatingObject {
  return {
    plugin_id: row.plugin_id,
    stars: row.stars,
    comment: row.comment,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}
