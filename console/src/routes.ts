/**
 * The console's page routes under /console. The server answers index.html for these, with or
 * without a trailing slash (src/modules/console/console.pages.ts, CONSOLE_PAGES), so a reload of
 * any page works; other page-like paths get index.html with a 404, and the app's "Page not found".
 */
export const PAGES = {
  overview: '/',
  login: '/login',
  signup: '/signup',
  products: '/products',
  productNew: '/products/new',
  product: '/products/:id',
  orders: '/orders',
  order: '/orders/:id',
  customers: '/customers',
  customer: '/customers/:id',
  carts: '/carts',
  settings: '/settings',
  keys: '/keys',
  webhooks: '/webhooks',
  webhook: '/webhooks/:id',
  events: '/events',
  logs: '/logs',
  imports: '/imports',
  plugins: '/plugins',
  usage: '/usage',
} as const;
