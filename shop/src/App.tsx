import { Layout } from './components/Layout.js';
import { KEY } from './config.js';
import { Account, SignUp } from './pages/Account.js';
import { Cart } from './pages/Cart.js';
import { Catalog } from './pages/Catalog.js';
import { Checkout } from './pages/Checkout.js';
import { Confirmation } from './pages/Confirmation.js';
import { NoKey } from './pages/NoKey.js';
import { NotFound } from './pages/NotFound.js';
import { Product } from './pages/Product.js';
import { match, useLocation } from './router.js';

/** The shop's pages by path (under /shop/; the server answers index.html for each). */
function Page() {
  const { path } = useLocation();
  if (path === '/') return <Catalog />;
  const product = match('/products/:handle', path);
  if (product?.handle) return <Product key={product.handle} handle={product.handle} />;
  if (path === '/cart') return <Cart />;
  if (path === '/checkout') return <Checkout />;
  const order = match('/orders/:id', path);
  if (order?.id) return <Confirmation id={order.id} />;
  if (path === '/account') return <Account />;
  if (path === '/account/signup') return <SignUp />;
  return <NotFound />;
}

export function App() {
  if (KEY.key === undefined) return <NoKey refused={KEY.refused} />;
  return (
    <Layout>
      <Page />
    </Layout>
  );
}
