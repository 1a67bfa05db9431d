import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import type { Delivery, JsonBody, Page, Plugin, Webhook } from '../types.js';
import { CONSOLE_API_VERSION } from '../version.js';
import { api, dataOf, fileIdentity, idempotencyKeyFor, submissionOf } from './client.js';
import { queryKeys } from './queries.js';

/**
 * The console's changes: a TanStack mutation per call that changes something, each invalidating
 * the queries its change makes out of date (their pages load them again), or putting the answer
 * in place when the answer is the new state. Pages read `isPending` and `error` of the mutation
 * they show, and say what succeeded in the `onSuccess` of their `mutate`.
 */

function invalidate(client: QueryClient, ...keys: (readonly unknown[])[]): void {
  for (const queryKey of keys) void client.invalidateQueries({ queryKey });
}

// API keys.

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: JsonBody<'createApiKey'>) => dataOf(api.POST('/v1/api-keys', { body })),
    onSuccess: () => invalidate(client, queryKeys.apiKeys),
  });
}

export function useRollApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, expiresInSeconds }: { id: string; expiresInSeconds: number }) =>
      dataOf(
        api.POST('/v1/api-keys/{id}/roll', {
          params: { path: { id } },
          body: { expires_in_seconds: expiresInSeconds },
        }),
      ),
    onSuccess: () => invalidate(client, queryKeys.apiKeys),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => dataOf(api.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => invalidate(client, queryKeys.apiKeys),
  });
}

// Webhook endpoints.

/**
 * Adds an endpoint, sent in `version`: the API fixes the endpoint's payloads to the version of the
 * request that adds it.
 */
export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, version }: { body: JsonBody<'createWebhookEndpoint'>; version: string }) =>
      dataOf(api.POST('/v1/webhooks', { body, params: { header: { 'X-Service-Version': version } } })),
    onSuccess: () => invalidate(client, queryKeys.webhookList),
  });
}

/** Changes an endpoint (its URL, events and description, or whether it is enabled). */
export function useUpdateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: JsonBody<'updateWebhookEndpoint'> }) =>
      dataOf(api.PATCH('/v1/webhooks/{id}', { params: { path: { id } }, body })),
    onSuccess: (webhook: Webhook) => {
      client.setQueryData(queryKeys.webhook(webhook.id), webhook);
      invalidate(client, queryKeys.webhookList);
    },
  });
}

export function useSendTestEvent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      dataOf(api.POST('/v1/webhooks/{id}/test', { params: { path: { id } }, body: {} })),
    onSuccess: (_answer, id) => invalidate(client, queryKeys.webhookDeliveries(id), queryKeys.events),
  });
}

export function useRotateSecret() {
  return useMutation({
    mutationFn: (id: string) =>
      dataOf(api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body: {} })),
  });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => dataOf(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })),
    // Not the endpoint's own queries: its page, on the way out, would say it is missing.
    onSuccess: () => invalidate(client, queryKeys.webhookList, queryKeys.events),
  });
}

/** Sends a delivery to its endpoint again. */
export function useRetryDelivery() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({
      webhookId,
      delivery,
    }: {
      webhookId: string;
      delivery: Pick<Delivery, 'id' | 'event_id'>;
    }) =>
      dataOf(
        api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
          params: { path: { id: webhookId, delivery_id: delivery.id } },
          body: {},
        }),
      ),
    onSuccess: (_answer, { webhookId, delivery }) =>
      invalidate(
        client,
        queryKeys.webhookDeliveries(webhookId),
        queryKeys.eventDeliveries(delivery.event_id),
      ),
  });
}

// The store's version.

/** Pins the store to `version`, then has the session read again (it names the pinned version). */
export function useUpgradeVersion(refreshSession: () => Promise<void>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (version: string) => {
      await dataOf(api.POST('/v1/versions/upgrade', { body: { version } }));
      await refreshSession();
    },
    onSuccess: () => invalidate(client, queryKeys.versions),
  });
}

// Plugins.

/** Puts a plugin's new state in every list of plugins shown, then has them loaded again. */
function pluginChanged(client: QueryClient, plugin: Plugin): void {
  client.setQueriesData<Page<Plugin>>({ queryKey: [...queryKeys.plugins, 'list'] }, (page) =>
    page ? { ...page, data: page.data.map((p) => (p.id === plugin.id ? plugin : p)) } : page,
  );
  invalidate(client, queryKeys.plugins, queryKeys.usage);
}

export function useInstallPlugin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      dataOf(api.POST('/v1/plugins/{id}/install', { params: { path: { id } }, body: {} })),
    onSuccess: (plugin) => pluginChanged(client, plugin),
  });
}

export function useUninstallPlugin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => dataOf(api.DELETE('/v1/plugins/{id}/install', { params: { path: { id } } })),
    onSuccess: (plugin) => pluginChanged(client, plugin),
  });
}

/** Rates a plugin, then reads it again (its average and count changed with the rating). */
export function useRatePlugin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, stars }: { id: string; stars: number }) => {
      await dataOf(api.POST('/v1/plugins/{id}/ratings', { params: { path: { id } }, body: { stars } }));
      return dataOf(api.GET('/v1/plugins/{id}', { params: { path: { id } } }));
    },
    onSuccess: (plugin) => pluginChanged(client, plugin),
  });
}

/** Creates a plugin (no `id`), or changes one of yours. */
export function useSavePlugin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      change:
        { id?: undefined; body: JsonBody<'createPlugin'> } | { id: string; body: JsonBody<'updatePlugin'> },
    ) =>
      change.id === undefined
        ? dataOf(api.POST('/v1/plugins', { body: change.body }))
        : dataOf(api.PATCH('/v1/plugins/{id}', { params: { path: { id: change.id } }, body: change.body })),
    onSuccess: () => invalidate(client, queryKeys.plugins),
  });
}

export function useSubmitPlugin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      dataOf(api.POST('/v1/plugins/{id}/submit', { params: { path: { id } }, body: {} })),
    onSuccess: () => invalidate(client, queryKeys.plugins),
  });
}

// Imports.

export interface ImportSettings {
  resource: 'products' | 'customers';
  mode: 'upsert' | 'create';
  onError: 'abort' | 'skip';
}

/** How the API is told what the file holds: JSON Lines by its name or type, anything else as CSV. */
function contentTypeOf(file: File): 'application/x-ndjson' | 'text/csv' {
  const name = file.name.toLowerCase();
  return name.endsWith('.jsonl') || name.endsWith('.ndjson') || file.type === 'application/x-ndjson'
    ? 'application/x-ndjson'
    : 'text/csv';
}

/**
 * The file's name as the import keeps it: `Content-Disposition` with `filename*` (RFC 8187), its
 * UTF-8 percent-encoded, and the characters that encoding leaves but the header may not hold too.
 */
function dispositionOf(file: File): string {
  const encoded = encodeURIComponent(file.name).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename*=UTF-8''${encoded}`;
}

/** Sends a file to import (or, `dryRun`, to check), as it is: its bytes, never read into text here. */
export function useStartImport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ file, settings, dryRun }: { file: File; settings: ImportSettings; dryRun: boolean }) => {
      const query = {
        resource: settings.resource,
        mode: settings.mode,
        dry_run: dryRun,
        on_error: settings.onError,
      };
      const identity = `${JSON.stringify(query)}\n${fileIdentity(file)}`;
      const submission = submissionOf('POST', '/v1/imports', CONSOLE_API_VERSION, identity);
      return dataOf(
        api.POST('/v1/imports', {
          params: {
            query,
            header: {
              'Idempotency-Key': idempotencyKeyFor(submission),
              'Content-Disposition': dispositionOf(file),
            },
          },
          headers: { 'content-type': contentTypeOf(file) },
          // The document types the body as text; the file goes as it is (a Blob, streamed).
          body: '',
          bodySerializer: () => file,
        }),
      );
    },
    onSuccess: () => invalidate(client, queryKeys.importList),
  });
}
