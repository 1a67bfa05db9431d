import { Link } from 'react-router';
import {
  type ProductFilters,
  type ProductStatus,
  STORE_PAGE,
  useProductList,
} from '../../api/store-queries.js';
import { SelectFilter, TextFilter, useAddressFilters } from '../../components/Filters.js';
import { PageHeader } from '../../components/Layout.js';
import { Pager, useCursorPaging } from '../../components/Pager.js';
import { Empty, ErrorState, Loading } from '../../components/States.js';
import { ProductStatusBadge, StockLabel } from '../../components/StoreBadges.js';
import { formatMoney, plural } from '../../format.js';
import { usePageTitle } from '../../title.js';
import type { Product } from '../../types.js';

const FILTERS = ['q', 'category', 'status', 'stock'] as const;

/** "$25.00", or "$25.00 – $27.00" when the variants' prices differ. */
export function priceRange(product: Product): string {
  const low = formatMoney(product.price, product.currency);
  return product.price_max > product.price
    ? `${low} – ${formatMoney(product.price_max, product.currency)}`
    : low;
}

function ProductTable({ products }: { products: Product[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-products">
        <caption className="visually-hidden">Products, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Status</th>
            <th scope="col">Category</th>
            <th scope="col">Price</th>
            <th scope="col">Stock</th>
          </tr>
        </thead>
        <tbody>
          {products.map((product) => (
            <tr key={product.id} data-product-id={product.id}>
              <th scope="row" data-label="Product" className="break-anywhere">
                <div>
                  <Link to={`/products/${product.id}`}>{product.name}</Link>
                  <div className="hint mono">{product.handle}</div>
                </div>
              </th>
              <td data-label="Status">
                <ProductStatusBadge status={product.status} />
              </td>
              <td data-label="Category">{product.category ?? <span className="muted">None</span>}</td>
              <td data-label="Price" className="numeric nowrap">
                {priceRange(product)}
              </td>
              <td data-label="Stock" className="nowrap">
                <StockLabel stock={product.stock} variants={product.variant_count} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Products() {
  usePageTitle('Products');
  const [values, update] = useAddressFilters(FILTERS);
  const filters: ProductFilters = {
    ...(values.q ? { q: values.q } : {}),
    ...(values.category ? { category: values.category } : {}),
    ...(values.status ? { status: values.status as ProductStatus } : {}),
    ...(values.stock === 'in' || values.stock === 'out' ? { in_stock: values.stock === 'in' } : {}),
  };
  const filtered = Object.keys(filters).length > 0;
  const paging = useCursorPaging(JSON.stringify(filters));
  const list = useProductList(filters, paging.cursor);
  const addButton = (
    <Link to="/products/new" className="button button-primary">
      Add product
    </Link>
  );

  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="Products could not be loaded" />
      ) : (
        <Loading label="Loading products" />
      );
  } else if (list.data.data.length === 0) {
    body = filtered ? (
      <Empty
        title="No products match"
        action={
          <button
            type="button"
            className="button"
            onClick={() => update({ q: '', category: '', status: '', stock: '' })}
          >
            Clear filters
          </button>
        }
      >
        {values.status ? '' : 'The list shows active products unless you choose another status. '}
        Change the filters to see more.
      </Empty>
    ) : (
      <Empty title="No products yet" action={addButton}>
        Add your first product here, or bring a whole catalogue in from a CSV file on the{' '}
        <Link to="/imports">Imports</Link> page (Shopify exports included).
      </Empty>
    );
  } else {
    body = (
      <>
        <ProductTable products={list.data.data} />
        <Pager
          page={paging.page}
          limit={STORE_PAGE}
          shown={list.data.data.length}
          total={list.data.total}
          noun="products"
          nextCursor={list.data.has_more ? list.data.next_cursor : null}
          onNext={paging.next}
          onPrevious={paging.previous}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="Products"
        description="Your catalogue: what each product sells, at what price, and how much is in stock."
        actions={addButton}
      />
      <section className="card" aria-labelledby="products-title">
        <div className="card-header">
          <h2 id="products-title">Catalogue</h2>
          <span className="hint">
            {list.data
              ? `${plural(list.data.total, values.status ? `${values.status} product` : 'active product')}`
              : null}
          </span>
        </div>
        <div className="filters" role="search" aria-label="Filter products">
          <TextFilter
            label="Search"
            grow
            placeholder="Name, SKU, option value…"
            value={values.q}
            onSettled={(q) => update({ q })}
          />
          <TextFilter
            label="Category"
            placeholder="e.g. shoes"
            value={values.category}
            onSettled={(category) => update({ category })}
          />
          <SelectFilter label="Status" value={values.status} onChange={(status) => update({ status })}>
            <option value="">Active</option>
            <option value="draft">Draft</option>
            <option value="archived">Archived</option>
          </SelectFilter>
          <SelectFilter label="Stock" value={values.stock} onChange={(stock) => update({ stock })}>
            <option value="">Any stock</option>
            <option value="in">In stock</option>
            <option value="out">Sold out</option>
          </SelectFilter>
        </div>
        {body}
      </section>
    </>
  );
}
