import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The shop: built into dist/shop and served by the API server at /shop/. It imports the
 * TypeScript client's browser entry as a package would be imported; here it is the client's
 * source beside it. Build-time options (see docs/shop.md): `SHOP_API_URL`, `SHOP_PUBLISHABLE_KEY`,
 * `SHOP_NAME`, and `--base` for another path than /shop/.
 */
export default defineConfig({
  root: here,
  base: '/shop/',
  envPrefix: 'SHOP_',
  plugins: [react()],
  resolve: {
    alias: {
      '@commerce-platform/client/storefront': path.resolve(here, '../clients/typescript/src/storefront.ts'),
    },
  },
  build: {
    outDir: path.resolve(here, '../dist/shop'),
    emptyOutDir: true,
  },
});
