import { usePageTitle } from '../components/Layout.js';
import { Link } from '../router.js';

export function NotFound({ what = 'page' }: { what?: 'page' | 'product' }) {
  usePageTitle(what === 'product' ? 'Product not found' : 'Page not found');
  return (
    <>
      <h1>{what === 'product' ? 'Product not found' : 'Page not found'}</h1>
      <p>
        {what === 'product' ? 'The store does not sell this product (any more).' : 'There is no such page.'}{' '}
        <Link to="/">See all products</Link>.
      </p>
    </>
  );
}
