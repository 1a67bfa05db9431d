import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import type { Customer, JsonBody, Order } from '../types.js';
import { api, dataOf } from './client.js';
import { queryKeys } from './queries.js';
import { type ProductWithVariants, storeKeys } from './store-queries.js';

/**
 * The store's changes (products, orders and their refunds, customers, settings), as mutations.ts
 * makes the rest: each invalidates what its change makes out of date, or puts the answer in place.
 * Every POST carries an `Idempotency-Key` (the client's middleware), the same on a retry.
 */

function invalidate(client: QueryClient, ...keys: (readonly unknown[])[]): void {
  for (const queryKey of keys) void client.invalidateQueries({ queryKey });
}

// Products.

/** Saves a product (the call is the page's: its several steps), then shows the product as stored. */
export function useSaveProduct() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (save: () => Promise<ProductWithVariants>) => save(),
    onSuccess: (saved) => {
      client.setQueryData(storeKeys.product(saved.product.id), saved);
      invalidate(client, [...storeKeys.products, 'list'], queryKeys.events);
    },
    // Some calls may have gone through before the one refused: the lists read again.
    onError: () => invalidate(client, storeKeys.products),
  });
}

export function useDeleteProduct() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => dataOf(api.DELETE('/v1/products/{id}', { params: { path: { id } } })),
    onSuccess: () => invalidate(client, [...storeKeys.products, 'list'], queryKeys.events),
  });
}

/** Writes a description with the AI endpoint (not saved: the form takes the text, and saves it with the rest). */
export function useGenerateDescription() {
  return useMutation({
    mutationFn: (body: JsonBody<'generateProductDescription'>) =>
      dataOf(api.POST('/v1/ai/generate-description', { body })),
  });
}

// Orders.

/** What an order's lifecycle actions take. */
export type OrderAction =
  | { action: 'pay'; payment_method: string }
  | { action: 'ship'; carrier?: string; tracking_number?: string }
  | { action: 'deliver' }
  | { action: 'cancel' };

function runAction(id: string, change: OrderAction): Promise<Order> {
  const path = { params: { path: { id } } };
  switch (change.action) {
    case 'pay':
      return dataOf(
        api.POST('/v1/orders/{id}/pay', { ...path, body: { payment_method: change.payment_method } }),
      );
    case 'ship': {
      const { action: _action, ...body } = change;
      return dataOf(api.POST('/v1/orders/{id}/ship', { ...path, body }));
    }
    case 'deliver':
      return dataOf(api.POST('/v1/orders/{id}/deliver', { ...path, body: {} }));
    case 'cancel':
      return dataOf(api.POST('/v1/orders/{id}/cancel', { ...path, body: {} }));
  }
}

/** What an order's change moves besides the order: stock, the customer's figures, the wallet, sales. */
function orderChanged(client: QueryClient, order: Order): void {
  client.setQueryData(storeKeys.order(order.id), order);
  invalidate(
    client,
    storeKeys.orders,
    storeKeys.products,
    storeKeys.customers,
    queryKeys.walletBalances,
    queryKeys.analytics,
    queryKeys.events,
  );
}

export function useOrderAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: OrderAction }) => runAction(id, change),
    onSuccess: (order) => orderChanged(client, order),
  });
}

/** Refunds a part of an order, or all that is left (an empty body), then reads the order again. */
export function useRefund() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string; body: JsonBody<'createRefund'> }) => {
      const refund = await dataOf(api.POST('/v1/orders/{id}/refunds', { params: { path: { id } }, body }));
      const order = await dataOf(api.GET('/v1/orders/{id}', { params: { path: { id } } }));
      return { refund, order };
    },
    onSuccess: ({ order }) => orderChanged(client, order),
  });
}

/** Ships units of an order (a fulfilment), then reads the order again. */
export function useFulfil() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: string; body: JsonBody<'createFulfillment'> }) => {
      const fulfillment = await dataOf(
        api.POST('/v1/orders/{id}/fulfillments', { params: { path: { id } }, body }),
      );
      const order = await dataOf(api.GET('/v1/orders/{id}', { params: { path: { id } } }));
      return { fulfillment, order };
    },
    onSuccess: ({ order }) => orderChanged(client, order),
  });
}

// Customers.

/** Erases a customer's personal data everywhere the store keeps it (irreversible). */
export function useRedactCustomer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      dataOf(api.POST('/v1/customers/{id}/redact', { params: { path: { id } }, body: {} })),
    onSuccess: (customer: Customer) => {
      client.setQueryData(storeKeys.customer(customer.id), customer);
      invalidate(client, storeKeys.customers, storeKeys.orders, queryKeys.events);
    },
  });
}

// Settings.

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: JsonBody<'updateSettings'>) => dataOf(api.PATCH('/v1/settings', { body })),
    onSuccess: (settings) => {
      client.setQueryData(storeKeys.settings, settings);
      invalidate(client, storeKeys.carts, queryKeys.walletBalances);
    },
  });
}
