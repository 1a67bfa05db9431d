import { money } from '../format.js';
import { Link } from '../router.js';
import type { Product } from '../types.js';

/** "$24.00", or "From $24.00" when its variants differ in price. */
export function priceRange(product: Product): string {
  const from = money(product.price, product.currency);
  return product.price_max > product.price ? `From ${from}` : from;
}

export function ProductCard({ product }: { product: Product }) {
  const image = product.images[0];
  return (
    <li className="card">
      <Link to={`/products/${encodeURIComponent(product.handle)}`} className="card-link">
        <div className="card-image">
          {/* The product's name is the link's text beside it: the picture says nothing more (alt=""). */}
          {image ? (
            <img src={image} alt="" width={320} height={320} loading="lazy" decoding="async" />
          ) : (
            <span className="no-image" />
          )}
          {product.available ? null : (
            <span className="badge badge-muted" aria-hidden="true">
              Sold out
            </span>
          )}
        </div>
        <span className="card-name">{product.name}</span>
        <span className="card-price">
          {priceRange(product)}
          {product.available ? null : <span className="visually-hidden">, sold out</span>}
        </span>
      </Link>
    </li>
  );
}
