import { CommerceApiError } from '@commerce-platform/client/storefront';
import { type FormEvent, useState } from 'react';
import { useCartActions } from '../api/cart.js';
import { useProduct } from '../api/queries.js';
import { usePageTitle } from '../components/Layout.js';
import { Gallery } from '../components/Gallery.js';
import { OptionPicker } from '../components/OptionPicker.js';
import { ErrorNotice, Loading } from '../components/States.js';
import { money } from '../format.js';
import { Link } from '../router.js';
import type { Product as ProductData } from '../types.js';
import { choose, initialSelection, type Selection, variantFor } from '../variants.js';
import { NotFound } from './NotFound.js';

/** A product: its pictures, its options (what can be bought in which combination), and Add to cart. */

function Buy({
  product,
  selection,
  setSelection,
}: {
  product: ProductData;
  selection: Selection;
  setSelection: (update: (current: Selection) => Selection) => void;
}) {
  const [quantity, setQuantity] = useState('1');
  const [added, setAdded] = useState<string>();
  const { add } = useCartActions();
  const variant = variantFor(product, selection);
  const canAdd = variant !== undefined && variant.available && !add.isPending;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!variant || !canAdd) return;
    setAdded(undefined);
    add.mutate(
      { variantId: variant.id, quantity: Number(quantity) },
      {
        onSuccess: () => setAdded(`${product.name}${product.options.length > 0 ? `, ${variant.title}` : ''}`),
      },
    );
  }

  return (
    <form className="buy" onSubmit={submit}>
      <p className="price">
        {variant ? money(variant.price, product.currency) : null}
        {variant?.compare_at_price && variant.compare_at_price > variant.price ? (
          <s className="compare">
            <span className="visually-hidden">was </span>
            {money(variant.compare_at_price, product.currency)}
          </s>
        ) : null}
      </p>
      <OptionPicker
        product={product}
        selection={selection}
        onChoose={(option, value) => {
          setAdded(undefined);
          setSelection((current) => choose(product, current, option, value));
        }}
      />
      <p className={variant?.available ? 'stock stock-in' : 'stock stock-out'} role="status">
        {variant === undefined
          ? 'This combination is not made.'
          : variant.available
            ? 'In stock'
            : product.options.length > 0
              ? `${variant.title} is sold out.`
              : 'Sold out'}
      </p>
      <div className="buy-row">
        <div className="field field-quantity">
          <label htmlFor="quantity">Quantity</label>
          <input
            id="quantity"
            type="number"
            min={1}
            max={999}
            step={1}
            required
            value={quantity}
            onChange={(event) => setQuantity(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary" disabled={!canAdd}>
          {add.isPending ? 'Adding…' : 'Add to cart'}
        </button>
      </div>
      <ErrorNotice error={add.error} />
      {added ? (
        <div className="notice notice-success" role="status">
          <p>Added {added} to your cart.</p>
          <Link to="/cart">View cart</Link>
        </div>
      ) : null}
    </form>
  );
}

export function Product({ handle }: { handle: string }) {
  const product = useProduct(handle);
  usePageTitle(product.data?.name ?? 'Product');
  if (product.error instanceof CommerceApiError && product.error.status === 404)
    return <NotFound what="product" />;
  if (product.isPending) return <Loading label="Loading the product" />;
  if (!product.data) return <ErrorNotice error={product.error} onRetry={() => void product.refetch()} />;
  // A new product (another page of the shop): its own choices.
  return <ProductPage key={product.data.id} product={product.data} />;
}

/** The pictures follow the chosen variant: its own picture first when it has one. */
function ProductPage({ product }: { product: ProductData }) {
  const [selection, setSelection] = useState<Selection>(() => initialSelection(product));
  const image = variantFor(product, selection)?.image ?? null;
  const images =
    image === null
      ? product.media
      : [
          product.media.find((picture) => picture.url === image) ?? { url: image, alt: null },
          ...product.media.filter((picture) => picture.url !== image),
        ];
  return (
    <article className="product">
      <Gallery key={image ?? ''} images={images} name={product.name} />
      <div className="product-info">
        {product.category ? (
          <Link to={`/?category=${encodeURIComponent(product.category)}`} className="muted category-link">
            {product.category}
          </Link>
        ) : null}
        <h1>{product.name}</h1>
        {product.description ? <p className="description">{product.description}</p> : null}
        <Buy product={product} selection={selection} setSelection={setSelection} />
      </div>
    </article>
  );
}
