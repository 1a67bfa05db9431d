import type { Cart, Customer, Order, Page, Product, Settings, Variant } from '../types.js';
import { api, dataOf, type DownloadedFile } from './client.js';
import { type Resource, useApiQuery } from './query.js';

/**
 * The store's queries (its catalogue, orders, customers, carts and settings): keyed under the
 * resource like those of queries.ts (`['products', 'list', ...]`, `['orders', 'detail', id]`), so
 * a change that invalidates a resource (`['orders']`) reaches its lists on every page, the
 * overview's too.
 */
export const storeKeys = {
  products: ['products'],
  productList: (filters: ProductFilters, cursor: string | null) => ['products', 'list', filters, cursor],
  product: (id: string) => ['products', 'detail', id],
  orders: ['orders'],
  orderList: (filters: OrderFilters, cursor: string | null) => ['orders', 'list', filters, cursor],
  order: (id: string) => ['orders', 'detail', id],
  customers: ['customers'],
  customerList: (filters: CustomerFilters, cursor: string | null) => ['customers', 'list', filters, cursor],
  customer: (id: string) => ['customers', 'detail', id],
  customerOrders: (id: string, cursor: string | null) => ['customers', 'detail', id, 'orders', cursor],
  carts: ['carts'],
  cartList: (status: CartStatus, cursor: string | null) => ['carts', 'list', status, cursor],
  settings: ['settings'],
  locations: ['locations'],
} as const;

export const STORE_PAGE = 25;

/** A cursor, as a list's query takes it (none: the first page). */
function from(cursor: string | null): { cursor?: string } {
  return cursor ? { cursor } : {};
}

// Products.

export type ProductStatus = Product['status'];

/** The product list's filters (the API lists `active` products when no status is named). */
export interface ProductFilters {
  q?: string;
  category?: string;
  status?: ProductStatus;
  in_stock?: boolean;
}

export function useProductList(filters: ProductFilters, cursor: string | null): Resource<Page<Product>> {
  return useApiQuery({
    queryKey: storeKeys.productList(filters, cursor),
    queryFn: () =>
      dataOf(
        api.GET('/v1/products', { params: { query: { limit: STORE_PAGE, ...filters, ...from(cursor) } } }),
      ),
  });
}

/** A product with every one of its variants (the product carries its first 100; the rest are paged). */
export interface ProductWithVariants {
  product: Product;
  variants: Variant[];
}

export async function loadProduct(id: string): Promise<ProductWithVariants> {
  const product = await dataOf(api.GET('/v1/products/{id}', { params: { path: { id } } }));
  if (!product.variants_has_more) return { product, variants: product.variants ?? [] };
  const variants: Variant[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Variant> = await dataOf(
      api.GET('/v1/products/{id}/variants', {
        params: { path: { id }, query: { limit: 100, ...from(cursor) } },
      }),
    );
    variants.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor);
  return { product, variants };
}

/** A product and all its variants (none while `id` is null: a new product). */
export function useProduct(id: string | null): Resource<ProductWithVariants> {
  return useApiQuery(
    id === null ? null : { queryKey: storeKeys.product(id), queryFn: () => loadProduct(id) },
  );
}

// Orders.

export type OrderStatus = Order['status'];

export type OrderFulfillmentStatus = Order['fulfillment_status'];
/** The order list's `payment_status` filter: what was paid and refunded of an order. */
export type OrderPaymentStatus = 'unpaid' | 'paid' | 'partially_refunded' | 'refunded';

/**
 * The order list's filters: a status, a customer's email (matched whole, in any case), a
 * fulfilment status and a payment status.
 */
export interface OrderFilters {
  status?: OrderStatus;
  customer_email?: string;
  fulfillment_status?: OrderFulfillmentStatus;
  payment_status?: OrderPaymentStatus;
}

export function useOrderList(filters: OrderFilters, cursor: string | null): Resource<Page<Order>> {
  return useApiQuery({
    queryKey: storeKeys.orderList(filters, cursor),
    queryFn: () =>
      dataOf(
        api.GET('/v1/orders', { params: { query: { limit: STORE_PAGE, ...filters, ...from(cursor) } } }),
      ),
  });
}

export function useOrder(id: string): Resource<Order> {
  return useApiQuery({
    queryKey: storeKeys.order(id),
    queryFn: () => dataOf(api.GET('/v1/orders/{id}', { params: { path: { id } } })),
  });
}

/** The store's locations, in its order (the default one first). */
export function useLocations() {
  return useApiQuery({
    queryKey: storeKeys.locations,
    queryFn: () => dataOf(api.GET('/v1/locations', { params: { query: { limit: 100 } } })),
  });
}

// Customers.

/** The customer list's filters: text in the email, name or phone, and a tag. */
export interface CustomerFilters {
  q?: string;
  tag?: string;
}

export function useCustomerList(filters: CustomerFilters, cursor: string | null): Resource<Page<Customer>> {
  return useApiQuery({
    queryKey: storeKeys.customerList(filters, cursor),
    queryFn: () =>
      dataOf(
        api.GET('/v1/customers', { params: { query: { limit: STORE_PAGE, ...filters, ...from(cursor) } } }),
      ),
  });
}

export function useCustomer(id: string): Resource<Customer> {
  return useApiQuery({
    queryKey: storeKeys.customer(id),
    queryFn: () => dataOf(api.GET('/v1/customers/{id}', { params: { path: { id } } })),
  });
}

export function useCustomerOrders(id: string, cursor: string | null): Resource<Page<Order>> {
  return useApiQuery({
    queryKey: storeKeys.customerOrders(id, cursor),
    queryFn: () =>
      dataOf(
        api.GET('/v1/customers/{id}/orders', {
          params: { path: { id }, query: { limit: 10, ...from(cursor) } },
        }),
      ),
  });
}

/** What the store holds about a customer (`GET /v1/customers/{id}/export`), as a JSON file to save. */
export async function downloadCustomerExport(id: string): Promise<DownloadedFile> {
  const data = await dataOf(api.GET('/v1/customers/{id}/export', { params: { path: { id } } }));
  return {
    blob: new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' }),
    filename: `customer-${id}.json`,
  };
}

// Carts.

export type CartStatus = 'open' | 'abandoned' | 'completed' | 'expired';

export function useCartList(status: CartStatus, cursor: string | null): Resource<Page<Cart>> {
  return useApiQuery({
    queryKey: storeKeys.cartList(status, cursor),
    queryFn: () =>
      dataOf(api.GET('/v1/carts', { params: { query: { limit: STORE_PAGE, status, ...from(cursor) } } })),
  });
}

// Settings.

export function useSettings(): Resource<Settings> {
  return useApiQuery({ queryKey: storeKeys.settings, queryFn: () => dataOf(api.GET('/v1/settings')) });
}
