import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Principal } from '../../lib/principal.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import type { EventService } from '../events/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { eventList, permissionList } from './plugins.grants.js';
import { entry, loadPlugin, owned } from './plugins.lookups.js';
import * as repo from './plugins.repository.js';
import type { PluginRevisions } from './plugins.revisions.js';
import type { PluginInstallationObject, PluginObject } from './plugins.schemas.js';
import { mintInstallationToken } from './plugins.tokens.js';

/**
 * A store's installations of plugins: installing (the installation, its token, its subscription
 * and `app.installed`, in one transaction), accepting what a revision asks for, uninstalling; and,
 * for a plugin's author, the stores that have it and its delivery log.
 */
export function createPluginInstallations(deps: {
  store: Store;
  clock: Clock;
  events: EventService;
  vocabulary: Vocabulary;
  webhooks: Pick<
    WebhookService,
    'subscribeInstallation' | 'queueTo' | 'endInstallation' | 'pluginDeliveries'
  >;
  /** The version installation payloads are rendered in (the latest). */
  apiVersion: string;
  revisions: Pick<PluginRevisions, 'accept'>;
}) {
  const { store, clock, events, vocabulary, webhooks, revisions } = deps;
  const load = (db: Db, tenantId: string, ref: string) => loadPlugin(db, vocabulary, tenantId, ref);

  return {
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
  };
}
