import type { Db, Store } from '../../db/store.js';
import type { PluginRatingsTable, PluginsTable } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError, isAppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../../lib/principal.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import { type WebhookService, newSecret } from '../webhooks/index.js';
import { eventList, permissionList } from './plugins.grants.js';
import * as repo from './plugins.repository.js';
import {
  createPluginRevisions,
  pluginChanges,
  presentRevision,
  type RevisionChanges,
  type RevisionDiff,
} from './plugins.revisions.js';
import {
  type CreatePluginBody,
  PLUGIN_SORTS,
  type PluginInstallationObject,
  type PluginListQuery,
  type PluginObject,
  type PluginSort,
  type RatingBody,
  type RatingObject,
  type UpdatePluginBody,
} from './plugins.schemas.js';
import { mintInstallationToken } from './plugins.tokens.js';

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

function presentRating(row: PluginRatingsTable): RatingObject {
  return {
    plugin_id: row.plugin_id,
    stars: row.stars,
    comment: row.comment,
    created: iso(row.created),
    updated: iso(row.updated),
  };
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

  async function load(db: Db, tenantId: string, ref: string): Promise<PluginObject> {
    const row = await repo.findPlugin(db, tenantId, ref);
    if (!row) throw notFound('plugin');
    return presentPlugin(row, tenantId, vocabulary);
  }

  /** The plugin behind `ref` (an id or a slug) if the tenant may see it, or 404. */
  async function entry(db: Db, tenantId: string, ref: string, lock = false) {
    const found = await repo.findCatalogEntry(db, tenantId, ref, lock);
    if (!found) throw notFound('plugin');
    return found;
  }

  /** One of the tenant's own plugins; anyone else's is 404, as if it did not exist. */
  async function owned(db: Db, tenantId: string, ref: string, lock = false): Promise<PluginsTable> {
    const found = await entry(db, tenantId, ref, lock);
    if (found.owner_tenant_id !== tenantId) throw notFound('plugin');
    return found;
  }

  /** The plugin's `webhook_url`, checked exactly as a webhook's URL (422 `invalid_webhook_url`). */
  async function safeUrl(raw: string): Promise<string> {
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

  return {
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
      const url = await safeUrl(input.webhook_url);
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
      if (input.webhook_url !== undefined) changes.webhook_url = await safeUrl(input.webhook_url);
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
    async install(principal: Principal, ref: string): Promise<{ plugin: PluginObject; created: boolean }> {
      const tenantId = principal.tenant.id;
      const before = await entry(store.db, tenantId, ref);
      return store.transaction(async (trx) => {
        // Read again under the plugin's row lock: an approved revision may have changed what it
        // asks for, and the token must get what the plugin asks for now.
        const plugin = await entry(trx, tenantId, before.id, true);
        const permissions = permissionList(plugin.permissions, vocabulary);
        const missing = permissions.find((permission) => !principal.key.permissions.has(permission));
        if (missing) {
          throw new AppError(
            'insufficient_permissions',
            `This plugin needs ${missing}, which this API key does not hold; a key can only grant permissions it holds.`,
            { extra: { required_permission: missing } },
          );
        }
        const pluginEvents = eventList(plugin.events, vocabulary);
        const installationId = newId('ins');
        const token = mintInstallationToken();
        const endpointId = newId('wh');
        const now = clock.now();
        const created = await repo.insertInstallationIfAbsent(trx, {
          id: installationId,
          tenant_id: tenantId,
          plugin_id: plugin.id,
          user_id: principal.userId,
          permissions: JSON.stringify(permissions),
          events: JSON.stringify(pluginEvents),
          token_hash: token.hash,
          token_last4: token.last4,
          endpoint_id: endpointId,
          installed_at: now,
          uninstalled_at: null,
          pending_permissions: null,
          pending_events: null,
        });
        if (!created) return { plugin: await load(trx, tenantId, plugin.id), created: false };
        await repo.addInstalls(trx, plugin.id, 1);
        const subscription = await webhooks.subscribeInstallation(trx, {
          id: endpointId,
          tenantId,
          pluginId: plugin.id,
          pluginName: plugin.name,
          installationId,
          url: plugin.webhook_url ?? '',
          events: pluginEvents,
          secret: plugin.secret ?? '',
          apiVersion: deps.apiVersion,
        });
        const event = await events.emit(trx, {
          tenantId,
          type: 'app.installed',
          objectType: 'app_installation',
          object: {
            id: installationId,
            installation_id: installationId,
            plugin_id: plugin.id,
            tenant_id: tenantId,
            access_token: token.value,
            permissions,
            events: pluginEvents,
          },
        });
        await webhooks.queueTo(trx, subscription, event);
        return { plugin: await load(trx, tenantId, plugin.id), created: true };
      });
    },

    /**
     * The store accepts what its installation waits for since a revision of the plugin asked for
     * more (`installation.pending_permissions`): its token and subscription take it at this commit.
     */
    async accept(principal: Principal, ref: string): Promise<PluginObject> {
      const tenantId = principal.tenant.id;
      const plugin = await entry(store.db, tenantId, ref);
      return store.transaction(async (trx) => {
        await revisions.accept(trx, principal, plugin.id);
        return load(trx, tenantId, plugin.id);
      });
    },

    /**
     * Ends the tenant's installation: its token stops working at this commit, in every process;
     * its subscription takes no more events and its pending deliveries are dropped; `app.uninstalled`
     * is queued to the plugin. Uninstalling what is not installed changes nothing.
     */
    async uninstall(principal: Principal, ref: string): Promise<PluginObject> {
      const tenantId = principal.tenant.id;
      const plugin = await entry(store.db, tenantId, ref);
      return store.transaction(async (trx) => {
        const installation = await repo.findActiveInstallation(trx, tenantId, plugin.id);
        if (installation && (await repo.endInstallation(trx, installation.id, clock.now()))) {
          await repo.addInstalls(trx, plugin.id, -1);
          await webhooks.endInstallation(trx, installation.endpoint_id);
          const event = await events.emit(trx, {
            tenantId,
            type: 'app.uninstalled',
            objectType: 'app_installation',
            object: {
              id: installation.id,
              installation_id: installation.id,
              plugin_id: plugin.id,
              tenant_id: tenantId,
            },
          });
          await webhooks.queueTo(trx, installation.endpoint_id, event);
        }
        return load(trx, tenantId, plugin.id);
      });
    },

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

    /** The stores that have the caller's plugin installed now, newest first. */
    async installations(principal: Principal, ref: string, query: PageQuery) {
      // The page's bounds are checked first: a bad one is a 400 whatever the plugin.
      const window = pageWindow(query, 'installed_at');
      const plugin = await owned(store.db, principal.tenant.id, ref);
      const { rows, total } = await repo.listInstallations(store.db, plugin.id, window);
      return envelope(
        rows,
        total,
        window,
        'installed_at',
        (row) => [Number(row.installed_at), row.id],
        (row): PluginInstallationObject => ({
          id: row.id,
          tenant_id: row.tenant_id,
          store_name: row.store_name,
          installed_at: iso(Number(row.installed_at)),
        }),
      );
    },

    /** The delivery log of the caller's plugin, across its installations, newest first. */
    async deliveries(principal: Principal, ref: string, query: PageQuery) {
      pageWindow(query, 'created');
      const plugin = await owned(store.db, principal.tenant.id, ref);
      return webhooks.pluginDeliveries(plugin.id, query);
    },

    /** The plugins the first-party runtimes serve (their secrets included). */
    firstParty(): Promise<PluginsTable[]> {
      return repo.firstPartyPlugins(store.db);
    },
  };
}
