/// <reference types="vite/client" />

/** The build-time options (`SHOP_API_URL=... npm run build`; docs/shop.md). */
interface ImportMetaEnv {
  /** The API's origin; default: the page's own (the shop served by the API server itself). */
  readonly SHOP_API_URL?: string;
  /** A publishable key to use when the address names none (`?key=`) and none was kept. */
  readonly SHOP_PUBLISHABLE_KEY?: string;
  /** The name in the header and the page titles; default "Shop". */
  readonly SHOP_NAME?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
