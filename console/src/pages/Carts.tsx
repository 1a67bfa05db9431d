import { Link } from 'react-router';
import { type CartStatus, STORE_PAGE, useCartList, useSettings } from '../api/store-queries.js';
import { useAddressFilters } from '../components/Filters.js';
import { PageHeader } from '../components/Layout.js';
import { Pager, useCursorPaging } from '../components/Pager.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { formatDateTime, formatMoney, formatNumber, plural, timeAgo } from '../format.js';
import { useNow } from '../timing.js';
import { usePageTitle } from '../title.js';
import type { Cart } from '../types.js';

const VIEWS: { status: CartStatus; label: string; about: string }[] = [
  {
    status: 'abandoned',
    label: 'Abandoned',
    about: 'Open carts with an email and a line, left unchanged for the store’s abandonment time.',
  },
  { status: 'open', label: 'Open', about: 'Every cart a shopper may still change and complete.' },
  { status: 'completed', label: 'Completed', about: 'Carts that became an order.' },
  { status: 'expired', label: 'Expired', about: 'Open carts left unchanged for 30 days.' },
];

/** The link that brings a shopper back to their cart: the store's template with the cart's id. */
export function recoveryUrl(template: string | null | undefined, cartId: string): string | null {
  return template ? template.replaceAll('{cart_id}', cartId) : null;
}

/** "2 × Linen shirt (M / Sand), 1 × Mug and 3 more lines". */
function linesSummary(cart: Cart): string {
  if (cart.lines.length === 0) return 'Empty';
  const shown = cart.lines
    .slice(0, 2)
    .map(
      (line) =>
        `${line.quantity} × ${line.name}${line.variant_title === 'Default' ? '' : ` (${line.variant_title})`}`,
    );
  const more = cart.lines.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${plural(more, 'more line')}` : shown.join(', ');
}

function CartTable({
  carts,
  template,
  status,
}: {
  carts: Cart[];
  template: string | null | undefined;
  status: CartStatus;
}) {
  const now = useNow();
  const recovers = status === 'abandoned' || status === 'open';
  return (
    <div className="table-wrap">
      <table className="table table-carts">
        <caption className="visually-hidden">Carts, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Shopper</th>
            <th scope="col">Lines</th>
            <th scope="col">Total</th>
            <th scope="col">Last change</th>
            <th scope="col">{recovers ? 'Recovery link' : 'Order'}</th>
          </tr>
        </thead>
        <tbody>
          {carts.map((cart) => {
            const link = recoveryUrl(template, cart.id);
            return (
              <tr key={cart.id} data-cart-id={cart.id}>
                <th scope="row" data-label="Shopper" className="break-anywhere">
                  <div>
                    {cart.email ?? <span className="muted">No email yet</span>}
                    <div className="hint mono">{cart.id}</div>
                  </div>
                </th>
                <td data-label="Lines" className="break-anywhere">
                  <span>
                    {linesSummary(cart)}
                    {cart.problems.length > 0 ? (
                      <span className="hint cart-problem"> · {cart.problems[0]?.message}</span>
                    ) : null}
                  </span>
                </td>
                <td data-label="Total" className="numeric nowrap">
                  {formatMoney(cart.total, cart.currency)}
                </td>
                <td data-label="Last change" className="nowrap">
                  <time dateTime={cart.updated} title={formatDateTime(cart.updated)}>
                    {timeAgo(cart.updated, now)}
                  </time>
                </td>
                <td data-label={recovers ? 'Recovery link' : 'Order'} className="break-anywhere">
                  {recovers ? (
                    link ? (
                      <a href={link} target="_blank" rel="noreferrer noopener" className="mono">
                        {link}
                      </a>
                    ) : (
                      <span className="muted">No template</span>
                    )
                  ) : cart.order_id ? (
                    <Link to={`/orders/${cart.order_id}`} className="mono">
                      {cart.order_id}
                    </Link>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function Carts() {
  usePageTitle('Carts');
  const [values] = useAddressFilters(['view'] as const);
  const view = VIEWS.find((v) => v.status === values.view) ?? (VIEWS[0] as (typeof VIEWS)[number]);
  const paging = useCursorPaging(view.status);
  const list = useCartList(view.status, paging.cursor);
  const settings = useSettings();
  const template = settings.data?.storefront.recovery_url_template;
  const abandonedAfter = settings.data?.storefront.abandoned_after_minutes;

  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="Carts could not be loaded" />
      ) : (
        <Loading label="Loading carts" />
      );
  } else if (list.data.data.length === 0) {
    body = (
      <Empty title={`No ${view.label.toLowerCase()} carts`}>
        {view.status === 'abandoned' ? (
          <>
            A cart shows here when a shopper who gave an email leaves it unchanged; your webhook endpoint gets{' '}
            <code>cart.abandoned</code> with its recovery link, to mail them.
          </>
        ) : (
          <>
            Carts are made by your shop through the storefront API (<code>/v1/store/carts</code>).
          </>
        )}
      </Empty>
    );
  } else {
    body = (
      <>
        <CartTable carts={list.data.data} template={template} status={view.status} />
        <Pager
          page={paging.page}
          limit={STORE_PAGE}
          shown={list.data.data.length}
          total={list.data.total}
          noun="carts"
          nextCursor={list.data.has_more ? list.data.next_cursor : null}
          onNext={paging.next}
          onPrevious={paging.previous}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="Carts"
        description="Your shoppers’ carts: those left behind, with the link that brings each shopper back."
      />
      {settings.data && !template ? (
        <div className="banner banner-info" role="status">
          <div>
            <strong>No recovery link yet</strong>
            <p>
              Set a recovery link template (your shop’s cart page, with <code>{'{cart_id}'}</code> in it) in{' '}
              <Link to="/settings">Settings</Link>: each abandoned cart then gets its own link to send the
              shopper.
            </p>
          </div>
        </div>
      ) : null}
      <section className="card" aria-labelledby="carts-title">
        <nav className="plugin-views cart-views" aria-label="Which carts">
          {VIEWS.map((v) => (
            <Link
              key={v.status}
              to={v.status === 'abandoned' ? '?' : `?view=${v.status}`}
              replace
              className={`plugin-view${v.status === view.status ? ' plugin-view-current' : ''}`}
              aria-current={v.status === view.status ? 'page' : undefined}
            >
              {v.label}
            </Link>
          ))}
        </nav>
        <div className="card-header">
          <h2 id="carts-title">{view.label} carts</h2>
          <span className="hint">{list.data ? plural(list.data.total, 'cart') : null}</span>
        </div>
        <p className="hint">
          {view.about}
          {view.status === 'abandoned' && abandonedAfter !== undefined
            ? ` Now: ${formatNumber(abandonedAfter)} minutes.`
            : ''}
        </p>
        {body}
      </section>
    </>
  );
}
