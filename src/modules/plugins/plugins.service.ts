import type { Db, Store } from '../../db/store.js';
import type { PluginRatingsTable, PluginsTable } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError, isAppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../../lib/principal.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import { type WebhookService, newSecret } from '../webhooks/index.js';
import { createPluginInstallations } from './plugins.installations.js';
import { entry, loadPlugin, owned } from './plugins.lookups.js';
import { presentPlugin, presentRating } from './plugins.presenter.js';
import * as repo from './plugins.repository.js';
import {
  createPluginRevisions,
  pluginChanges,
  type RevisionChanges,
  type RevisionDiff,
} from './plugins.revisions.js';
import {
  type CreatePluginBody,
  PLUGIN_SORTS,
  type PluginListQuery,
  type PluginObject,
  type PluginSort,
  type RatingBody,
  type RatingObject,
  type UpdatePluginBody,
} from './plugins.schemas.js';

/**
 * Plugins are apps. A tenant publishes one (draft -> in_review -> published or rejected, the last
 * two decided by the operator's CLI); a store installs it in one transaction that records the
 * installation, mints its token (`sk_app_...`, only the hash kept), subscribes the plugin's URL to
 * its events for that store and queues `app.installed` (the token's one appearance) to that URL
 * only. Uninstalling ends the installation in one transaction: the token stops at that commit
 * (tokens are never cached), the subscription takes nothing more and `app.uninstalled` is queued.
 * `installs` and `rating_sum`/`rating_count` move in the same transactions as the rows they count.
 * A published plugin changes only through a revision the operator approves (plugins.revisions.ts).
 */

function isSort(value: string): value is PluginSort {
  return (PLUGIN_SORTS as readonly string[]).includes(value);
}

function checkHomepage(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError('homepage_url', 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' || url.username || url.password) {
    throw validationError('homepage_url', 'must be an https URL without credentials');
  }
  return url.href;
}

/** The plugin's `webhook_url`, checked exactly as a webhook's URL (422 `invalid_webhook_url`). */
async function safeUrl(webhooks: Pick<WebhookService, 'safeUrl'>, raw: string): Promise<string> {
  try {
    return await webhooks.safeUrl(raw);
  } catch (error) {
    if (isAppError(error) && error.code === 'invalid_webhook_url')
      throw new AppError('invalid_webhook_url', `webhook_${error.detail}`);
    throw error;
  }
}

function conflict(detail: string): AppError {
  return new AppError('invalid_state_transition', detail);
}

export type PluginService = ReturnType<typeof createPluginService>;

export function createPluginService(deps: {
  store: Store;
  clock: Clock;
  events: EventService;
  vocabulary: Vocabulary;
  webhooks: Pick<
    WebhookService,
    | 'subscribeInstallation'
    | 'queueTo'
    | 'endInstallation'
    | 'movePlugin'
    | 'resubscribeInstallation'
    | 'safeUrl'
    | 'pluginDeliveries'
  >;
  /** The version installation payloads are rendered in (the latest). */
  apiVersion: string;
  audit: AuditRecorder;
}) {
  const { store, clock, events, vocabulary, webhooks, audit } = deps;
  /** A change of a plugin, in `tenantId`'s log: the plugin as that tenant sees it before and after. */
  const recordPlugin = (
    trx: Db,
    tenantId: string,
    action: string,
    before: PluginObject | null,
    after: PluginObject,
  ): Promise<void> =>
    audit.record(trx, { tenantId, action, resource: { type: 'plugin', id: after.id }, before, after });
  const revisions = createPluginRevisions({ clock, events, vocabulary, webhooks });
  const load = (db: Db, tenantId: string, ref: string) => loadPlugin(db, vocabulary, tenantId, ref);

  return {
    ...createPluginInstallations({ ...deps, revisions }),

    async list(tenantId: string, query: PluginListQuery) {
      const sort = query.sort !== undefined && isSort(query.sort) ? query.sort : 'installs';
      const window = pageWindow(query, sort, sort === 'name' ? 'string' : 'number');
      const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const filter = { words, category: query.category, installed: query.installed, owned: query.owned };
      const { rows, total } = await repo.listPlugins(store.db, store.dialect, tenantId, filter, sort, window);
      return envelope(
        rows,
        total,
        window,
        sort,
        (row) => [row.sort_key, row.id],
        (row) => presentPlugin(row, tenantId, vocabulary),
      );
    },

    get(tenantId: string, ref: string): Promise<PluginObject> {
      return load(store.db, tenantId, ref);
    },

    /**
     * A new plugin of the caller's tenant, in `draft`, with its signing secret shown in this answer
     * only. A retry whose first attempt committed answers the plugin without its secret.
     */
    async create(
      principal: Principal,
      input: CreatePluginBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<PluginObject> {
      const tenantId = principal.tenant.id;
      if (idempotent.committed !== null) return load(store.db, tenantId, idempotent.committed);
      const homepage = input.homepage_url === undefined ? null : checkHomepage(input.homepage_url);
      const url = await safeUrl(webhooks, input.webhook_url);
      const now = clock.now();
      const row: PluginsTable = {
        id: newId('plg'),
        slug: input.slug,
        name: input.name,
        description: input.description,
        category: input.category,
        author: principal.tenant.name,
        permissions: JSON.stringify(input.permissions),
        events: JSON.stringify(input.events),
        installs: 0,
        rating_sum: 0,
        rating_count: 0,
        owner_tenant_id: tenantId,
        status: 'draft',
        rejection_reason: null,
        webhook_url: url,
        homepage_url: homepage,
        secret: newSecret(),
        runtime: null,
        created: now,
        updated: now,
      };
      try {
        return await store.transaction(async (trx) => {
          await repo.insertPlugin(trx, row);
          await idempotent.mark(trx, row.id);
          const made = await load(trx, tenantId, row.id);
          await recordPlugin(trx, tenantId, 'plugin.created', null, made);
          return { ...made, secret: row.secret ?? '' };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw validationError('slug', 'is already taken by another plugin');
        throw error;
      }
    },

    /**
     * Changes the caller's own plugin. A draft or rejected one changes at once (a rejected one is a
     * draft again; installations by its publisher follow a new URL); nothing changes in review. A
     * published one does not change: the changes go into its revision for the operator to review
     * (plugins.revisions.ts). A new URL is checked as webhook URLs are, either way.
     */
    async update(principal: Principal, ref: string, input: UpdatePluginBody): Promise<PluginObject> {
      const tenantId = principal.tenant.id;
      const before = await owned(store.db, tenantId, ref);
      const changes: RevisionChanges = {};
      if (input.webhook_url !== undefined) changes.webhook_url = await safeUrl(webhooks, input.webhook_url);
      if (input.homepage_url !== undefined)
        changes.homepage_url = input.homepage_url === null ? null : checkHomepage(input.homepage_url);
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.category !== undefined) changes.category = input.category;
      if (input.permissions !== undefined) changes.permissions = input.permissions;
      if (input.events !== undefined) changes.events = input.events;
      return store.transaction(async (trx) => {
        const plugin = await owned(trx, tenantId, before.id, true);
        if (plugin.status === 'in_review')
          throw conflict('The plugin is in review; it can be changed again once it is approved or rejected.');
        const previous = await load(trx, tenantId, plugin.id);
        const changed = async (action: string) => {
          const after = await load(trx, tenantId, plugin.id);
          await recordPlugin(trx, tenantId, action, previous, after);
          return after;
        };
        if (plugin.status === 'published') {
          await revisions.propose(trx, plugin, changes);
          return changed('plugin.revision_proposed');
        }
        const row = pluginChanges(changes);
        if (plugin.status === 'rejected') {
          row.status = 'draft';
          row.rejection_reason = null;
        }
        await repo.updatePlugin(trx, plugin.id, row, clock.now());
        if (changes.webhook_url !== undefined) await webhooks.movePlugin(trx, plugin.id, changes.webhook_url);
        return changed('plugin.updated');
      });
    },

    /** Sends the caller's draft (or rejected) plugin to the operator's review. */
    async submit(principal: Principal, ref: string): Promise<PluginObject> {
      const tenantId = principal.tenant.id;
      const before = await owned(store.db, tenantId, ref);
      return store.transaction(async (trx) => {
        const plugin = await owned(trx, tenantId, before.id, true);
        if (plugin.status !== 'draft' && plugin.status !== 'rejected')
          throw conflict(`A ${plugin.status} plugin cannot be submitted; only a draft or a rejected one.`);
        const previous = await load(trx, tenantId, plugin.id);
        await repo.updatePlugin(trx, plugin.id, { status: 'in_review', rejection_reason: null }, clock.now());
        const after = await load(trx, tenantId, plugin.id);
        await recordPlugin(trx, tenantId, 'plugin.submitted', previous, after);
        return after;
      });
    },

    /**
     * The operator's decision (`admin plugin:approve` / `plugin:reject`) on a plugin in review, or
     * on the pending revision of a published one (`revision`: its changes, live and proposed).
     */
    async review(
      pluginId: string,
      decision: { approve: true } | { approve: false; reason: string },
    ): Promise<{
      id: string;
      name: string;
      status: PluginsTable['status'];
      rejection_reason: string | null;
      revision?: { status: 'approved' | 'rejected'; changes: RevisionDiff; rejection_reason: string | null };
    }> {
      return store.transaction(async (trx) => {
        const plugin = await repo.findPluginById(trx, pluginId, true);
        if (!plugin) throw notFound('plugin');
        // The decision is a change of the publisher's plugin (a first-party one has none).
        const owner = plugin.owner_tenant_id;
        const previous = owner === null ? null : await load(trx, owner, plugin.id);
        const decided = async (action: string) => {
          if (owner === null || previous === null) return;
          await recordPlugin(trx, owner, action, previous, await load(trx, owner, plugin.id));
        };
        if (plugin.status === 'published') {
          const revision = await revisions.decide(trx, plugin, decision);
          await decided(decision.approve ? 'plugin.revision_approved' : 'plugin.revision_rejected');
          const live = (await repo.findPluginById(trx, plugin.id)) ?? plugin;
          return {
            id: live.id,
            name: live.name,
            status: live.status,
            rejection_reason: live.rejection_reason,
            revision: { ...revision, rejection_reason: decision.approve ? null : decision.reason },
          };
        }
        if (plugin.status !== 'in_review')
          throw conflict(
            `The plugin is ${plugin.status}; only a plugin in review can be approved or rejected.`,
          );
        const changes: repo.PluginChanges = decision.approve
          ? { status: 'published', rejection_reason: null }
          : { status: 'rejected', rejection_reason: decision.reason };
        await repo.updatePlugin(trx, plugin.id, changes, clock.now());
        await decided(decision.approve ? 'plugin.approved' : 'plugin.rejected');
        return {
          id: plugin.id,
          name: plugin.name,
          status: changes.status ?? plugin.status,
          rejection_reason: changes.rejection_reason ?? null,
        };
      });
    },

    /**
     * Installs the plugin for the caller's tenant, in one transaction: the installation, its token
     * (exactly the plugin's permissions, which the calling key must hold: 403 otherwise), the
     * subscription of the plugin's URL to its events, and `app.installed` queued to it alone.
     * `created` is false when the tenant already has it installed: nothing changes then.
     */
    /**
     * One rating per tenant, from a tenant that installed the plugin (409 otherwise): the first
     * creates it (`created`), later ones replace it whole.
     */
    async rate(
      tenantId: string,
      ref: string,
      input: RatingBody,
    ): Promise<{ rating: RatingObject; created: boolean }> {
      return store.transaction(async (trx) => {
        // PostgreSQL: the plugin's row lock makes concurrent ratings of it apply one after another,
        // so the tenant's previous stars read here are the ones being replaced.
        const plugin = await entry(trx, tenantId, ref, true);
        if (!(await repo.everInstalled(trx, tenantId, plugin.id))) {
          throw conflict('Only a store that installed this plugin can rate it; install it first.');
        }
        const now = clock.now();
        const comment = input.comment ?? null;
        const previous = await repo.findRating(trx, tenantId, plugin.id);
        // The store's rating, one per plugin: a resource of its own, named by the plugin.
        const rated = (before: RatingObject | null, after: RatingObject) =>
          audit.record(trx, {
            tenantId,
            action: before === null ? 'plugin_rating.created' : 'plugin_rating.updated',
            resource: { type: 'plugin_rating', id: plugin.id },
            before,
            after,
          });
        if (previous) {
          const row = { ...previous, stars: input.stars, comment, updated: now };
          await repo.updateRating(trx, row);
          await repo.addRatings(trx, plugin.id, input.stars - previous.stars, 0);
          const rating = presentRating(row);
          await rated(presentRating(previous), rating);
          return { rating, created: false };
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
        const rating = presentRating(row);
        await rated(null, rating);
        return { rating, created: true };
      });
    },

    /** The plugins the first-party runtimes serve (their secrets included). */
    firstParty(): Promise<PluginsTable[]> {
      return repo.firstPartyPlugins(store.db);
    },
  };
}
