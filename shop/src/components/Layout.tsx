import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { useCart } from '../api/cart.js';
import { useRetryWait, waitText } from '../api/errors.js';
import { useCustomerToken } from '../api/session.js';
import { SHOP_NAME } from '../config.js';
import { Link, navigate, useLocation } from '../router.js';

/** The page's title in the tab: "Checkout · Shop". */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${SHOP_NAME}` : SHOP_NAME;
  }, [title]);
}

/** The search field, showing the search the page shows (Layout gives it a new `key` when that changes). */
function Search({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);

  function submit(event: FormEvent) {
    event.preventDefault();
    const q = text.trim();
    navigate(q ? `/?q=${encodeURIComponent(q)}` : '/');
  }
  return (
    <form className="search" role="search" onSubmit={submit}>
      <label htmlFor="search" className="visually-hidden">
        Search products
      </label>
      <input
        id="search"
        type="search"
        placeholder="Search products"
        value={text}
        onChange={(event) => setText(event.target.value)}
        maxLength={200}
      />
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

function CartLink() {
  const cart = useCart().data;
  const units = cart?.status === 'open' ? cart.lines.reduce((sum, line) => sum + line.quantity, 0) : 0;
  return (
    <Link to="/cart" className="header-link" aria-label={`Cart, ${units} item${units === 1 ? '' : 's'}`}>
      Cart <span className="count">{units}</span>
    </Link>
  );
}

/** The store's `429`: how long until it takes calls again, counted down. */
function RetryBanner() {
  const wait = useRetryWait();
  if (wait === 0) return null;
  return (
    <div className="banner banner-warning" role="alert">
      The store is getting too many requests from you. Try again in {waitText(wait)}.
    </div>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const signedIn = useCustomerToken() !== null;
  const { path, query } = useLocation();
  const searched = path === '/' ? (query.get('q') ?? '') : '';
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // A new page: focus goes to it, as a page load would put it at the top.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="header-inner">
          <Link to="/" className="brand">
            {SHOP_NAME}
          </Link>
          <Search key={searched} initial={searched} />
          <nav aria-label="Shop" className="header-nav">
            <Link to="/account" className="header-link">
              {signedIn ? 'Account' : 'Sign in'}
            </Link>
            <CartLink />
          </nav>
        </div>
      </header>
      <RetryBanner />
      <main id="main" ref={main} tabIndex={-1} className="main">
        {children}
      </main>
      <footer className="footer">
        <p>A sandbox store: pay with a test card, nothing is charged.</p>
      </footer>
    </>
  );
}
