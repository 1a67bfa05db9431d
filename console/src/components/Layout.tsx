import { type ReactNode, useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useAccount, useSession } from '../session.js';
import { humanize } from '../format.js';
import { consoleMode, switchMode } from '../mode.js';
import { StaleData } from './Stale.js';

/** The store's pages, then the developer's. */
const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/products', label: 'Products', end: false },
  { to: '/orders', label: 'Orders', end: false },
  { to: '/customers', label: 'Customers', end: false },
  { to: '/carts', label: 'Carts', end: false },
  { to: '/settings', label: 'Settings', end: false },
  { to: '/keys', label: 'API keys', end: false, first: true },
  { to: '/webhooks', label: 'Webhooks', end: false },
  { to: '/events', label: 'Events', end: false },
  { to: '/logs', label: 'Logs', end: false },
  { to: '/imports', label: 'Imports', end: false },
  { to: '/plugins', label: 'Plugins', end: false },
  { to: '/usage', label: 'Usage', end: false },
];

/** The signed-in shell: a sidebar (a top bar on phones), the page, and the account menu. */
export function Layout() {
  const account = useAccount();
  const { logout } = useSession();
  const [leaving, setLeaving] = useState(false);
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const arrived = useRef(false);
  const testMode = consoleMode() === 'test';

  // After moving to another page, keyboard and screen-reader users start at its content.
  useEffect(() => {
    if (arrived.current) main.current?.focus();
    arrived.current = true;
  }, [pathname]);

  return (
    <div className={testMode ? 'shell shell-test-mode' : 'shell'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <img src="/console/favicon.svg" alt="" width="28" height="28" />
          <div>
            <span className="brand-name">Commerce Platform</span>
            <span className="brand-sub">Developer console</span>
          </div>
        </div>
        <nav aria-label="Console">
          <ul className="nav">
            {NAV.map((item) => (
              <li key={item.to} className={item.first ? 'nav-group-start' : undefined}>
                <NavLink
                  to={item.to}
                  end={item.end}
                  className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`}
                >
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <label className="mode-switch">
          <input
            type="checkbox"
            role="switch"
            checked={testMode}
            onChange={(event) => switchMode(event.target.checked ? 'test' : 'live')}
          />
          <span>Test mode</span>
        </label>
        <div className="account">
          <div className="account-store" title={account.tenant.id}>
            {account.tenant.name}
          </div>
          <div className="account-user">
            {account.user.email} · <span className="plan">{humanize(account.tenant.plan)} plan</span>
          </div>
          <button
            type="button"
            className="button button-ghost button-small"
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              // Logged out, the page gate sends the visitor to the login page.
              void logout();
            }}
          >
            Log out
          </button>
        </div>
      </aside>
      <main id="main" className="main" tabIndex={-1} ref={main}>
        {testMode ? (
          <div className="banner banner-warning test-mode-banner" role="status">
            <strong>Test mode</strong> You are viewing and changing test data: nothing here touches the live
            store. Switch test mode off to go back.
          </div>
        ) : null}
        <StaleData>
          <Outlet />
        </StaleData>
      </main>
    </div>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}
