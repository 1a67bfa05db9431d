/**
 * The console's page routes under /console. The server answers index.html for exactly these
 * (src/modules/console/console.pages.ts, CONSOLE_PAGES), so a reload of any page works.
 */
export const PAGES = {
  overview: '/',
  login: '/login',
  signup: '/signup',
  keys: '/keys',
  webhooks: '/webhooks',
  webhook: '/webhooks/:id',
  plugins: '/plugins',
  usage: '/usage',
} as const;
