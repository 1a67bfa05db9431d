import { defineModule } from '../../kernel/module.js';
import { shopPages } from './shop.pages.js';

/**
 * The shop: the storefront web app built from `shop/` into dist/shop, served at `/shop/` outside
 * `/v1`. It has no routes of its own beyond its pages: everything it shows it asks `/v1/store/*`
 * for, with the publishable key it is opened with (`/shop/?key=pk_live_...`).
 */

export default defineModule({
  name: 'shop',
  position: 165,
  routes: [{ prefix: '', plugin: () => shopPages() }],
});
