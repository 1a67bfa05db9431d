import { useCategories, useProducts, type Sort } from '../api/queries.js';
import { usePageTitle } from '../components/Layout.js';
import { ProductCard } from '../components/ProductCard.js';
import { ErrorNotice, Loading } from '../components/States.js';
import { Link, navigate, useLocation } from '../router.js';

/** The store's catalog: its categories, a search (`?q=`), a sort, and its products a page at a time. */

const SORTS: [Sort, string][] = [
  ['-created', 'Newest'],
  ['price', 'Price: low to high'],
  ['-price', 'Price: high to low'],
  ['name', 'Name'],
];

function title(category: string, q: string): string {
  if (q) return `Results for “${q}”`;
  return category ? category.charAt(0).toUpperCase() + category.slice(1) : 'All products';
}

/** The catalog's address with one parameter changed (an empty value drops it). */
function withParam(query: URLSearchParams, name: string, value: string): string {
  const next = new URLSearchParams(query);
  if (value) next.set(name, value);
  else next.delete(name);
  const text = next.toString();
  return text ? `/?${text}` : '/';
}

function Categories({ current, query }: { current: string; query: URLSearchParams }) {
  const categories = useCategories();
  if (!categories.data || categories.data.length === 0) return null;
  const base = new URLSearchParams(query);
  base.delete('q');
  return (
    <nav aria-label="Categories" className="categories">
      <ul>
        {['', ...categories.data].map((category) => (
          <li key={category || 'all'}>
            <Link
              to={withParam(base, 'category', category)}
              className="chip"
              aria-current={category === current ? 'page' : undefined}
            >
              {category ? title(category, '') : 'All'}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function Catalog() {
  const { query } = useLocation();
  const category = query.get('category') ?? '';
  const q = query.get('q') ?? '';
  const sortParam = query.get('sort');
  const sort = SORTS.some(([value]) => value === sortParam) ? (sortParam as Sort) : '-created';
  const products = useProducts({ category, q, sort });
  const heading = title(category, q);
  usePageTitle(heading === 'All products' ? '' : heading);
  const items = products.data?.pages.flatMap((page) => page.data) ?? [];
  const total = products.data?.pages[0]?.total;

  return (
    <>
      <Categories current={category} query={query} />
      <div className="catalog-head">
        <h1>{heading}</h1>
        <div className="field field-inline">
          <label htmlFor="sort">Sort by</label>
          <select
            id="sort"
            value={sort}
            onChange={(event) => navigate(withParam(query, 'sort', event.target.value), { replace: true })}
          >
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {total !== undefined ? (
        <p className="muted" role="status">
          {total} product{total === 1 ? '' : 's'}
        </p>
      ) : null}
      {products.isPending ? <Loading label="Loading products" /> : null}
      <ErrorNotice error={products.error} onRetry={() => void products.refetch()} />
      {products.isSuccess && items.length === 0 ? (
        <p>
          Nothing matches. <Link to="/">See all products</Link>.
        </p>
      ) : null}
      {/* The previous list stays on screen, dimmed and marked busy, until the new one comes. */}
      <ul className="grid" aria-label="Products" aria-busy={products.isPlaceholderData}>
        {items.map((product) => (
          <ProductCard key={product.id} product={product} />
        ))}
      </ul>
      {products.hasNextPage ? (
        <button
          type="button"
          className="button more"
          disabled={products.isFetchingNextPage}
          onClick={() => void products.fetchNextPage()}
        >
          {products.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      ) : null}
    </>
  );
}
