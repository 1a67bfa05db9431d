import { lazy, type ReactNode, Suspense } from 'react';
import { BrowserRouter, Link, Navigate, Route, Routes, useLocation, useSearchParams } from 'react-router';
import { Layout, PageHeader } from './components/Layout.js';
import { ErrorState, Loading } from './components/States.js';
import { ToastProvider } from './components/Toast.js';
import { PAGES } from './routes.js';
import { ApiKeys } from './pages/ApiKeys.js';
import { Carts } from './pages/Carts.js';
import { CustomerPage } from './pages/customers/CustomerPage.js';
import { Customers } from './pages/customers/Customers.js';
import { OrderPage } from './pages/orders/OrderPage.js';
import { Orders } from './pages/orders/Orders.js';
import { NewProduct, ProductPage } from './pages/products/ProductPage.js';
import { Products } from './pages/products/Products.js';
import { Settings } from './pages/Settings.js';
import { Events } from './pages/Events.js';
import { Imports } from './pages/Imports.js';
import { Logs } from './pages/Logs.js';
import { Login, Signup } from './pages/Auth.js';
import { Overview } from './pages/Overview.js';
import { Plugins } from './pages/Plugins.js';
import { WebhookDetail } from './pages/WebhookDetail.js';
import { Webhooks } from './pages/Webhooks.js';
import { SessionProvider, useSession } from './session.js';

// The usage page carries the chart library: it loads when first visited.
const Usage = lazy(() => import('./pages/Usage.js').then((module) => ({ default: module.Usage })));

function Starting() {
  const { error, refresh } = useSession();
  return (
    <main className="auth" id="main">
      {error !== undefined ? (
        <ErrorState
          error={error}
          onRetry={() => void refresh()}
          title="The console could not reach the server"
        />
      ) : (
        <Loading label="Starting the console" rows={1} />
      )}
    </main>
  );
}

/**
 * Pages for signed-in users; others go to the login page and come back afterwards (also when the
 * session expired on a page: the login page says so).
 */
function RequireSession({ children }: { children: ReactNode }) {
  const { account, loggedOut } = useSession();
  const location = useLocation();
  if (account === undefined) return <Starting />;
  if (account === null) {
    const next = location.pathname + location.search + location.hash;
    const back = !loggedOut && next !== '/';
    return <Navigate to={back ? `${PAGES.login}?next=${encodeURIComponent(next)}` : PAGES.login} replace />;
  }
  return <>{children}</>;
}

/** The login and sign-up pages; once signed in, on to the page the visitor asked for. */
function AnonymousOnly({ children }: { children: ReactNode }) {
  const { account } = useSession();
  const [params] = useSearchParams();
  if (account === undefined) return <Starting />;
  if (account) {
    const next = params.get('next');
    return <Navigate to={next?.startsWith('/') && !next.startsWith('//') ? next : PAGES.overview} replace />;
  }
  return <>{children}</>;
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no such page. <Link to={PAGES.overview}>Go to the overview</Link>.
      </p>
    </>
  );
}

export function App() {
  return (
    <BrowserRouter basename="/console">
      <SessionProvider>
        <ToastProvider>
          <Routes>
            <Route
              path={PAGES.login}
              element={
                <AnonymousOnly>
                  <Login />
                </AnonymousOnly>
              }
            />
            <Route
              path={PAGES.signup}
              element={
                <AnonymousOnly>
                  <Signup />
                </AnonymousOnly>
              }
            />
            <Route
              element={
                <RequireSession>
                  <Layout />
                </RequireSession>
              }
            >
              <Route index element={<Overview />} />
              <Route path={PAGES.products} element={<Products />} />
              <Route path={PAGES.productNew} element={<NewProduct />} />
              <Route path={PAGES.product} element={<ProductPage />} />
              <Route path={PAGES.orders} element={<Orders />} />
              <Route path={PAGES.order} element={<OrderPage />} />
              <Route path={PAGES.customers} element={<Customers />} />
              <Route path={PAGES.customer} element={<CustomerPage />} />
              <Route path={PAGES.carts} element={<Carts />} />
              <Route path={PAGES.settings} element={<Settings />} />
              <Route path={PAGES.keys} element={<ApiKeys />} />
              <Route path={PAGES.webhooks} element={<Webhooks />} />
              <Route path={PAGES.webhook} element={<WebhookDetail />} />
              <Route path={PAGES.events} element={<Events />} />
              <Route path={PAGES.logs} element={<Logs />} />
              <Route path={PAGES.imports} element={<Imports />} />
              <Route path={PAGES.plugins} element={<Plugins />} />
              <Route
                path={PAGES.usage}
                element={
                  <Suspense fallback={<Loading label="Loading usage" rows={4} />}>
                    <Usage />
                  </Suspense>
                }
              />
              <Route path="*" element={<NotFound />} />
            </Route>
          </Routes>
        </ToastProvider>
      </SessionProvider>
    </BrowserRouter>
  );
}
