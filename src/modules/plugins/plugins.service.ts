import type { Db, Store } from '../../db/store.js';
import type { PluginRatingsTable } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import { isPermission, type Permission } from '../../lib/permissions.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Principal } from '../../lib/principal.js';
import { type EventType, isEventType } from '../events/events.types.js';
import * as repo from './plugins.repository.js';
import {
  PLUGIN_SORTS,
  type PluginListQuery,
  type PluginObject,
  type PluginSort,
  type RatingBody,
  type RatingObject,
} from './plugins.schemas.js';

/**
 * The plugin marketplace. Installing records what the tenant grants the plugin (its permissions
 * and events) in an installation row; the `installs` counter moves in the same transaction, and
 * only when a row was really inserted or deleted, so repeats and races count once. A rating per
 * tenant keeps `rating_sum`/`rating_count` in step the same way.
 */

function parseList<T extends string>(json: string, accept: (value: string) => value is T): T[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((v): v is T => typeof v === 'string' && accept(v)) : [];
}

function isSort(value: string): value is PluginSort {
  return (PLUGIN_SORTS as readonly string[]).includes(value);
}

export function presentPlugin(row: repo.PluginRow): PluginObject {
  const installation =
    row.installed_at === null
      ? null
      : {
          installed_at: iso(row.installed_at),
          granted_permissions: parseList<Permission>(row.granted_permissions ?? '[]', isPermission),
          granted_events: parseList<EventType>(row.granted_events ?? '[]', isEventType),
        };
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
    permissions: parseList<Permission>(row.permissions, isPermission),
    events: parseList<EventType>(row.events, isEventType),
    installation,
  };
}

function presentRating(row: PluginRatingsTable): RatingObject {
  return {
    plugin_id: row.plugin_id,
    stars: row.stars,
    comment: row.comment,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

export type PluginService = ReturnType<typeof createPluginService>;

export function createPluginService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  async function load(db: Db, tenantId: string, ref: string): Promise<PluginObject> {
    const row = await repo.findPlugin(db, tenantId, ref);
    if (!row) throw notFound('plugin');
    return presentPlugin(row);
  }

  /** The catalog entry behind `ref` (an id or a slug), or 404. */
  async function entry(db: Db, ref: string, lock = false) {
    const found = await repo.findCatalogEntry(db, ref, lock);
    if (!found) throw notFound('plugin');
    return found;
  }

  return {
    async list(tenantId: string, query: PluginListQuery) {
      const sort = query.sort !== undefined && isSort(query.sort) ? query.sort : 'installs';
      const window = pageWindow(query, sort, sort === 'name' ? 'string' : 'number');
      const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const filter = { words, category: query.category, installed: query.installed };
      const { rows, total } = await repo.listPlugins(store.db, store.dialect, tenantId, filter, sort, window);
      return envelope(rows, total, window, sort, (row) => [row.sort_key, row.id], presentPlugin);
    },

    get(tenantId: string, ref: string): Promise<PluginObject> {
      return load(store.db, tenantId, ref);
    },

    /**
     * Installs the plugin for the caller's tenant, granting it the plugin's permissions and
     * events. A key can only grant permissions it holds itself (403 otherwise). `created` is false
     * when the tenant already had it installed: nothing changes then.
     */
    async install(principal: Principal, ref: string): Promise<{ plugin: PluginObject; created: boolean }> {
      const tenantId = principal.tenant.id;
      // The catalog does not change at run time: checks before taking the write transaction.
      const plugin = await entry(store.db, ref);
      const missing = parseList<Permission>(plugin.permissions, isPermission).find(
        (permission) => !principal.key.permissions.has(permission),
      );
      if (missing) {
        throw new AppError(
          'insufficient_permissions',
          `This plugin needs ${missing}, which this API key does not hold; a key can only grant permissions it holds.`,
          { extra: { required_permission: missing } },
        );
      }
      return store.transaction(async (trx) => {
        const created = await repo.insertInstallationIfAbsent(trx, {
          tenant_id: tenantId,
          plugin_id: plugin.id,
          granted_permissions: plugin.permissions,
          granted_events: plugin.events,
          installed_at: clock.now(),
        });
        if (created) await repo.addInstalls(trx, plugin.id, 1);
        return { plugin: await load(trx, tenantId, plugin.id), created };
      });
    },

    /** Removes the tenant's installation and its grant; uninstalling what is not installed is a no-op. */
    async uninstall(tenantId: string, ref: string): Promise<PluginObject> {
      const plugin = await entry(store.db, ref);
      return store.transaction(async (trx) => {
        if (await repo.deleteInstallation(trx, tenantId, plugin.id))
          await repo.addInstalls(trx, plugin.id, -1);
        return load(trx, tenantId, plugin.id);
      });
    },

    /** One rating per tenant: the first creates it (`created`), later ones replace it whole. */
    async rate(
      tenantId: string,
      ref: string,
      input: RatingBody,
    ): Promise<{ rating: RatingObject; created: boolean }> {
      return store.transaction(async (trx) => {
        // PostgreSQL: the plugin's row lock makes concurrent ratings of it apply one after another,
        // so the tenant's previous stars read here are the ones being replaced.
        const plugin = await entry(trx, ref, store.supportsRowLocks);
        const now = clock.now();
        const comment = input.comment ?? null;
        const previous = await repo.findRating(trx, tenantId, plugin.id);
        if (previous) {
          const row = { ...previous, stars: input.stars, comment, updated: now };
          await repo.updateRating(trx, row);
          await repo.addRatings(trx, plugin.id, input.stars - previous.stars, 0);
          return { rating: presentRating(row), created: false };
        }
        const row: PluginRatingsTable = {
          tenant_id: tenantId,
          plugin_id: plugin.id,
          stars: input.stars,
          comment,
          created: now,
          updated: now,
        };
        await repo.insertRating(trx, row);
        await repo.addRatings(trx, plugin.id, input.stars, 1);
        return { rating: presentRating(row), created: true };
      });
    },
  };
}
