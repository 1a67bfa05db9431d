import type { EventType } from '../catalog.js';
import type {
  Analytics,
  ApiKey,
  Delivery,
  EventDelivery,
  Import,
  ImportError,
  Order,
  Page,
  Plugin,
  PluginDelivery,
  PluginInstallation,
  Product,
  Usage,
  VersionList,
  WalletBalances,
  Webhook,
  WebhookEvent,
} from '../types.js';
import { CONSOLE_API_VERSION } from '../version.js';
import { api, dataOf, type DownloadedFile, downloadedFile } from './client.js';
import { type Resource, useApiQuery } from './query.js';

/**
 * The console's queries: a key per resource (what mutations.ts invalidates after a change) and a
 * hook per thing a page reads. Lists are keyed under their resource (`['webhooks', 'list']`), one
 * item under its id (`['webhooks', 'detail', id]`), and what belongs to an item under it
 * (`['webhooks', 'detail', id, 'deliveries']`), so invalidating a resource reaches all of it.
 */
export const queryKeys = {
  apiKeys: ['api-keys'],
  webhooks: ['webhooks'],
  webhookList: ['webhooks', 'list'],
  webhook: (id: string) => ['webhooks', 'detail', id],
  webhookDeliveries: (id: string) => ['webhooks', 'detail', id, 'deliveries'],
  events: ['events'],
  eventList: (filters: EventFilters) => ['events', 'list', filters],
  event: (id: string, version: string) => ['events', 'detail', id, version],
  eventDeliveries: (id: string) => ['events', 'detail', id, 'deliveries'],
  versions: ['versions'],
  usage: ['usage'],
  analytics: ['analytics'],
  walletBalances: ['wallet', 'balances'],
  orders: ['orders'],
  products: ['products'],
  plugins: ['plugins'],
  pluginList: (filters: PluginFilters) => ['plugins', 'list', filters],
  pluginInstallations: (id: string) => ['plugins', 'detail', id, 'installations'],
  pluginDeliveries: (id: string) => ['plugins', 'detail', id, 'deliveries'],
  imports: ['imports'],
  importList: ['imports', 'list'],
  import: (id: string) => ['imports', 'detail', id],
} as const;

type Refresh = { refreshMs?: number | undefined };

export const KEYS_PAGE = 100;
export const WEBHOOKS_PAGE = 100;
export const DELIVERIES_PAGE = 25;
export const EVENTS_PAGE = 25;
export const IMPORTS_PAGE = 20;
export const IMPORT_ERRORS_PAGE = 100;

// API keys.

export function useApiKeys(): Resource<Page<ApiKey>> {
  return useApiQuery({
    queryKey: queryKeys.apiKeys,
    queryFn: () => dataOf(api.GET('/v1/api-keys', { params: { query: { limit: KEYS_PAGE } } })),
  });
}

// Webhook endpoints and their deliveries.

export function useWebhooks(options: Refresh = {}): Resource<Page<Webhook>> {
  return useApiQuery(
    {
      queryKey: queryKeys.webhookList,
      queryFn: () => dataOf(api.GET('/v1/webhooks', { params: { query: { limit: WEBHOOKS_PAGE } } })),
    },
    options,
  );
}

export function useWebhook(id: string, options: Refresh = {}): Resource<Webhook> {
  return useApiQuery(
    {
      queryKey: queryKeys.webhook(id),
      queryFn: () => dataOf(api.GET('/v1/webhooks/{id}', { params: { path: { id } } })),
    },
    options,
  );
}

/** A page of an endpoint's delivery log, newest first: the latest, or the one after `cursor`. */
export function deliveriesPage(id: string, cursor?: string): Promise<Page<Delivery>> {
  return dataOf(
    api.GET('/v1/webhooks/{id}/deliveries', {
      params: { path: { id }, query: { limit: DELIVERIES_PAGE, ...(cursor ? { cursor } : {}) } },
    }),
  );
}

export function useWebhookDeliveries(id: string, options: Refresh = {}): Resource<Page<Delivery>> {
  return useApiQuery(
    { queryKey: queryKeys.webhookDeliveries(id), queryFn: () => deliveriesPage(id) },
    options,
  );
}

// Events.

/** The event log's filters: a type, and the instants it starts and ends at (ISO). */
export interface EventFilters {
  type?: string;
  created_from?: string;
  created_to?: string;
}

/** A page of the event log, newest first: the latest, or the one after `cursor`. */
export function eventsPage(filters: EventFilters, cursor?: string): Promise<Page<WebhookEvent>> {
  const { type, ...range } = filters;
  return dataOf(
    api.GET('/v1/events', {
      params: {
        query: {
          limit: EVENTS_PAGE,
          // Sent as the page's address has it: the API says so when it is no event type.
          ...(type ? { type: type as EventType } : {}),
          ...range,
          ...(cursor ? { cursor } : {}),
        },
      },
    }),
  );
}

export function useEvents(filters: EventFilters, options: Refresh = {}): Resource<Page<WebhookEvent>> {
  return useApiQuery({ queryKey: queryKeys.eventList(filters), queryFn: () => eventsPage(filters) }, options);
}

/** One event (none while `id` is null), its payload in `version` (the console's own by default). */
export function useEvent(id: string | null, version = CONSOLE_API_VERSION): Resource<WebhookEvent> {
  return useApiQuery(
    id === null
      ? null
      : {
          queryKey: queryKeys.event(id, version),
          queryFn: () =>
            dataOf(
              api.GET('/v1/events/{id}', {
                params: { path: { id }, header: { 'X-Service-Version': version } },
              }),
            ),
        },
  );
}

export function useEventDeliveries(id: string, options: Refresh = {}): Resource<Page<EventDelivery>> {
  return useApiQuery(
    {
      queryKey: queryKeys.eventDeliveries(id),
      queryFn: () =>
        dataOf(api.GET('/v1/events/{id}/deliveries', { params: { path: { id }, query: { limit: 100 } } })),
    },
    options,
  );
}

// The store: versions, usage, sales, wallets, orders and products.

export function useVersions(): Resource<VersionList> {
  return useApiQuery({ queryKey: queryKeys.versions, queryFn: () => dataOf(api.GET('/v1/versions')) });
}

export type UsagePeriod = '7d' | '30d' | 'month';

/** Usage of `period` (this month when none is named). */
export function useUsage(period?: UsagePeriod, options: Refresh = {}): Resource<Usage> {
  return useApiQuery(
    {
      queryKey: [...queryKeys.usage, { period }],
      queryFn: () => dataOf(api.GET('/v1/usage', period ? { params: { query: { period } } } : {})),
    },
    options,
  );
}

/** The last 30 days' sales by day, against the 30 days before. */
export function useAnalytics(): Resource<Analytics> {
  return useApiQuery({
    queryKey: [...queryKeys.analytics, 'day'],
    queryFn: () => dataOf(api.GET('/v1/analytics', { params: { query: { interval: 'day' } } })),
  });
}

export function useWalletBalances(): Resource<WalletBalances> {
  return useApiQuery({
    queryKey: queryKeys.walletBalances,
    queryFn: () => dataOf(api.GET('/v1/wallet/balances')),
  });
}

type OrderQuery = { limit: number; status?: 'paid' };

export function useOrders(query: OrderQuery): Resource<Page<Order>> {
  return useApiQuery({
    queryKey: [...queryKeys.orders, query],
    queryFn: () => dataOf(api.GET('/v1/orders', { params: { query } })),
  });
}

type ProductQuery = { limit: number; in_stock?: boolean };

export function useProducts(query: ProductQuery): Resource<Page<Product>> {
  return useApiQuery({
    queryKey: [...queryKeys.products, query],
    queryFn: () => dataOf(api.GET('/v1/products', { params: { query } })),
  });
}

// Plugins.

/** What the plugin lists are asked for: the marketplace's search, the installed ones, your own. */
export interface PluginFilters {
  q?: string;
  category?: Plugin['category'];
  sort?: 'installs' | 'rating' | 'name';
  installed?: boolean;
  owned?: boolean;
}

export function usePlugins(filters: PluginFilters): Resource<Page<Plugin>> {
  return useApiQuery({
    queryKey: queryKeys.pluginList(filters),
    queryFn: () => dataOf(api.GET('/v1/plugins', { params: { query: { limit: 100, ...filters } } })),
  });
}

export function usePluginInstallations(id: string): Resource<Page<PluginInstallation>> {
  return useApiQuery({
    queryKey: queryKeys.pluginInstallations(id),
    queryFn: () =>
      dataOf(api.GET('/v1/plugins/{id}/installations', { params: { path: { id }, query: { limit: 100 } } })),
  });
}

export function usePluginDeliveries(id: string): Resource<Page<PluginDelivery>> {
  return useApiQuery({
    queryKey: queryKeys.pluginDeliveries(id),
    queryFn: () =>
      dataOf(api.GET('/v1/plugins/{id}/deliveries', { params: { path: { id }, query: { limit: 50 } } })),
  });
}

// Imports.

/** A page of the imports, newest first: the latest, or the one after `cursor`. */
export function importsPage(cursor?: string): Promise<Page<Import>> {
  return dataOf(
    api.GET('/v1/imports', { params: { query: { limit: IMPORTS_PAGE, ...(cursor ? { cursor } : {}) } } }),
  );
}

export function useImports(options: Refresh = {}): Resource<Page<Import>> {
  return useApiQuery({ queryKey: queryKeys.importList, queryFn: () => importsPage() }, options);
}

export function useImport(id: string, options: Refresh = {}): Resource<Import> {
  return useApiQuery(
    {
      queryKey: queryKeys.import(id),
      queryFn: () => dataOf(api.GET('/v1/imports/{id}', { params: { path: { id } } })),
    },
    options,
  );
}

/** A page of an import's errors by line: after the first `offset`, or after `cursor`. */
export function importErrorsPage(
  id: string,
  from: { offset: number } | { cursor: string },
): Promise<Page<ImportError>> {
  return dataOf(
    api.GET('/v1/imports/{id}/errors', {
      params: { path: { id }, query: { limit: IMPORT_ERRORS_PAGE, ...from } },
    }),
  );
}

export type ExportResource = 'products' | 'customers' | 'orders';

/** Every row of `resource` as a file (an export), read through the session, to be saved. */
export function downloadExport(resource: ExportResource, format: 'csv' | 'jsonl'): Promise<DownloadedFile> {
  const init = { params: { query: { format } }, parseAs: 'blob' as const, headers: { accept: '*/*' } };
  const call =
    resource === 'products'
      ? api.GET('/v1/exports/products', init)
      : resource === 'customers'
        ? api.GET('/v1/exports/customers', init)
        : api.GET('/v1/exports/orders', init);
  return downloadedFile(call, resource);
}
