import { usePageTitle } from '../components/Layout.js';

/**
 * Without a store's publishable key the shop has nothing to sell: how to open it with one. A secret
 * key in the address is refused, never sent anywhere.
 */
export function NoKey({ refused }: { refused?: 'secret' | 'malformed' }) {
  usePageTitle('');
  return (
    <main id="main" className="main narrow">
      <h1>Which store?</h1>
      {refused === 'secret' ? (
        <p className="notice notice-error" role="alert">
          That is a secret key: it must never be put in a page or an address, where anyone can read it. Roll
          it in the console now if this address was shared, and open the shop with the store’s publishable key
          (<code>pk_live_…</code>) instead.
        </p>
      ) : refused === 'malformed' ? (
        <p className="notice notice-error" role="alert">
          The key in the address is not a publishable key (<code>pk_live_…</code>).
        </p>
      ) : null}
      <p>
        This shop sells for the store whose publishable key it is opened with:{' '}
        <code>/shop/?key=pk_live_…</code>. <code>npm start</code> prints the demo store’s link, and the
        developer console shows the link of each of your store’s publishable keys (API keys page).
      </p>
    </main>
  );
}
