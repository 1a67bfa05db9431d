import {
  keepPreviousData,
  MutationCache,
  QueryCache,
  QueryClient,
  useInfiniteQuery,
  useQuery,
} from '@tanstack/react-query';
import { CommerceApiError } from '@commerce-platform/client/storefront';
import { storefront } from './client.js';
import { noteFailure } from './errors.js';
import { forgetEndedSession, useCustomerToken } from './session.js';

/**
 * The shop's server data through TanStack Query: a key per thing it reads, and a hook per page's
 * need. Reads are kept a little while (the catalog a minute) and asked again when the tab comes
 * back; a cart is priced by the API at every read, so it is never kept (cart.ts).
 */

export const queryKeys = {
  products: (filters: ProductFilters) => ['products', filters] as const,
  categories: ['categories'] as const,
  product: (handle: string) => ['product', handle] as const,
  cart: (id: string | null) => ['cart', id] as const,
  customer: (token: string | null) => ['customer', token] as const,
  orders: (token: string | null) => ['orders', token] as const,
};

/** A network error or a 5xx is asked again (twice); an answer the store gave on purpose is not. */
function retryable(failures: number, error: unknown): boolean {
  if (failures >= 2) return false;
  return !(error instanceof CommerceApiError) || error.status >= 500;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    // Every failure goes by the banner's wait first: a 429 says when to try again.
    queryCache: new QueryCache({ onError: noteFailure }),
    mutationCache: new MutationCache({ onError: noteFailure }),
    defaultOptions: {
      queries: { retry: retryable, staleTime: 60_000, networkMode: 'always' },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}

export type Sort = 'created' | '-created' | 'price' | '-price' | 'name';

export interface ProductFilters {
  category?: string;
  q?: string;
  sort?: Sort;
}

const PAGE = 24;

/** The catalog's products, a page at a time (`Show more` asks for the next by its cursor). */
export function useProducts(filters: ProductFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.products(filters),
    queryFn: async ({ pageParam }) =>
      storefront().store.listProducts({
        limit: PAGE,
        ...(filters.category ? { category: filters.category } : {}),
        ...(filters.q ? { q: filters.q } : {}),
        ...(filters.sort ? { sort: filters.sort } : {}),
        ...(pageParam ? { cursor: pageParam } : {}),
      }),
    initialPageParam: '',
    getNextPageParam: (page) => (page.has_more ? (page.next_cursor ?? undefined) : undefined),
    placeholderData: keepPreviousData,
  });
}

/**
 * The store's categories, from its first 100 products by name: the storefront lists products,
 * not categories, and a store's categories show among its first products.
 */
export function useCategories() {
  return useQuery({
    queryKey: queryKeys.categories,
    queryFn: async () => {
      const page = await storefront().store.listProducts({ limit: 100, sort: 'name' });
      const names = page.data.map((product) => product.category).filter((c): c is string => !!c);
      return [...new Set(names)].sort((a, b) => a.localeCompare(b));
    },
    staleTime: 5 * 60_000,
  });
}

/** One product by its handle (or id), with all its variants. */
export function useProduct(handle: string) {
  return useQuery({
    queryKey: queryKeys.product(handle),
    queryFn: () => storefront().store.getProduct(handle),
  });
}

/** A read for the signed-in shopper: a session the store no longer takes is forgotten (they sign in again). */
async function asShopper<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    forgetEndedSession(error);
    throw error;
  }
}

/** The signed-in shopper, or null when nobody is. */
export function useCustomer() {
  const token = useCustomerToken();
  return useQuery({
    queryKey: queryKeys.customer(token),
    queryFn: () => (token === null ? null : asShopper(() => storefront().store.getCustomer())),
  });
}

/** The signed-in shopper's orders, newest first (the first 50). */
export function useOrders() {
  const token = useCustomerToken();
  return useQuery({
    queryKey: queryKeys.orders(token),
    queryFn: async () =>
      token === null
        ? null
        : asShopper(async () => (await storefront().store.listCustomerOrders({ limit: 50 })).data),
    staleTime: 0,
  });
}
