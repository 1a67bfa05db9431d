import type { Db, Store } from '../../db/store.js';
import type { EventsTable } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import { insertDeliveries, listPluginDeliveries, pendingDelivery } from './webhooks.deliveries.repository.js';
import { toDelivery } from './webhooks.presenter.js';
import * as repo from './webhooks.repository.js';

/**
 * The endpoints plugin installations subscribe (the plugins module calls these in its
 * transactions): subscribing one, queueing the app events to it, following the installation's
 * grant and its plugin's URL, ending it at an uninstall; and a plugin's delivery log across its
 * installations. They are the plugin's, not the tenant's webhooks. Part of the webhook service
 * (webhooks.service.ts).
 */

export interface InstallationDeps {
  store: Store;
  clock: Clock;
  /** Tells in-process workers that deliveries may be due, once `trx` has committed. */
  signalDue: (trx?: Db) => void;
}

export function createInstallationUseCases(deps: InstallationDeps) {
  const { store, clock, signalDue } = deps;
  return {
    /**
     * The endpoint a plugin installation subscribes for its tenant, in the install's transaction:
     * the plugin's URL, its events and its secret. It is the plugin's, not one of the tenant's
     * webhooks (which never list, change or count it). Returns its id.
     */
    async subscribeInstallation(
      trx: Db,
      input: {
        id: string;
        tenantId: string;
        pluginId: string;
        pluginName: string;
        installationId: string;
        url: string;
        events: readonly string[];
        secret: string;
        apiVersion: string;
      },
    ): Promise<string> {
      const now = clock.now();
      const row: repo.EndpointRow = {
        id: input.id,
        tenant_id: input.tenantId,
        url: input.url,
        events: JSON.stringify(input.events),
        description: `${input.pluginName} (installed app)`,
        status: 'Active',
        secret: input.secret,
        retired_secrets: '[]',
        api_version: input.apiVersion,
        last_triggered: null,
        failing_since: null,
        created: now,
        updated: now,
        plugin_id: input.pluginId,
        installation_id: input.installationId,
      };
      await repo.insertEndpoint(trx, row);
      return row.id;
    },

    /** Queues `event` to one endpoint only, in the event's transaction (the app events). */
    async queueTo(trx: Db, endpointId: string, event: EventsTable): Promise<void> {
      await insertDeliveries(trx, [pendingDelivery(endpointId, event, event.created)]);
      signalDue(trx);
    },

    /** An uninstall: the installation's endpoint takes no more events, its pending ones dropped. */
    async endInstallation(trx: Db, endpointId: string): Promise<void> {
      await repo.endInstallationEndpoint(trx, endpointId, clock.now());
    },

    /** An installation's new grant of events: its endpoint takes those from now on. */
    async resubscribeInstallation(trx: Db, endpointId: string, events: readonly string[]): Promise<void> {
      await repo.setInstallationEndpointEvents(trx, endpointId, events, clock.now());
    },

    /** A plugin's new URL: the endpoints of its active installations follow it. */
    async movePlugin(trx: Db, pluginId: string, url: string): Promise<void> {
      await repo.movePluginEndpoints(trx, pluginId, url, clock.now());
    },

    /** A plugin's delivery log across its installations, for its publisher. */
    async pluginDeliveries(pluginId: string, query: PageQuery) {
      const window = pageWindow(query, 'created');
      const { rows, total } = await listPluginDeliveries(store.db, pluginId, window);
      return newestFirstEnvelope(rows, total, window, (row) => ({
        ...toDelivery(row, row.endpoint_url),
        tenant_id: row.tenant_id,
        installation_id: row.installation_id,
      }));
    },
  };
}
