import { Link } from 'react-router';
import { type CustomerFilters, STORE_PAGE, useCustomerList } from '../../api/store-queries.js';
import { TextFilter, useAddressFilters } from '../../components/Filters.js';
import { PageHeader } from '../../components/Layout.js';
import { Pager, useCursorPaging } from '../../components/Pager.js';
import { Empty, ErrorState, Loading } from '../../components/States.js';
import { formatDate, formatMoney, formatNumber, plural } from '../../format.js';
import { usePageTitle } from '../../title.js';
import type { Customer } from '../../types.js';

const FILTERS = ['q', 'tag'] as const;

/** What a customer has spent, in each currency ("$139.95", "$12.00 · €8.50"), or none. */
export function spent(customer: Customer): string {
  const entries = Object.entries(customer.total_spent).filter(([, amount]) => amount !== 0);
  return entries.length === 0
    ? '—'
    : entries.map(([currency, amount]) => formatMoney(amount, currency)).join(' · ');
}

function CustomerTable({ customers, onTag }: { customers: Customer[]; onTag: (tag: string) => void }) {
  return (
    <div className="table-wrap">
      <table className="table table-customers">
        <caption className="visually-hidden">Customers, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Tags</th>
            <th scope="col">Orders</th>
            <th scope="col">Spent</th>
            <th scope="col">Customer since</th>
          </tr>
        </thead>
        <tbody>
          {customers.map((customer) => (
            <tr key={customer.id} data-customer-id={customer.id}>
              <th scope="row" data-label="Customer" className="break-anywhere">
                <div>
                  <Link to={`/customers/${customer.id}`}>{customer.name ?? customer.email}</Link>
                  {customer.name ? <div className="hint">{customer.email}</div> : null}
                  {customer.redacted ? <div className="hint">Personal data erased</div> : null}
                </div>
              </th>
              <td data-label="Tags">
                {customer.tags.length === 0 ? (
                  <span className="muted">None</span>
                ) : (
                  <div className="tag-buttons">
                    {customer.tags.map((tag) => (
                      <button
                        key={tag}
                        type="button"
                        className="chip chip-button"
                        aria-label={`Show customers tagged ${tag}`}
                        onClick={() => onTag(tag)}
                      >
                        {tag}
                      </button>
                    ))}
                  </div>
                )}
              </td>
              <td data-label="Orders" className="numeric">
                {formatNumber(customer.orders_count)}
              </td>
              <td data-label="Spent" className="numeric nowrap">
                {spent(customer)}
              </td>
              <td data-label="Customer since" className="nowrap">
                {formatDate(customer.created)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Customers() {
  usePageTitle('Customers');
  const [values, update] = useAddressFilters(FILTERS);
  const filters: CustomerFilters = {
    ...(values.q ? { q: values.q } : {}),
    ...(values.tag ? { tag: values.tag } : {}),
  };
  const filtered = Object.keys(filters).length > 0;
  const paging = useCursorPaging(JSON.stringify(filters));
  const list = useCustomerList(filters, paging.cursor);

  let body;
  if (list.data === undefined) {
    body =
      list.error !== undefined ? (
        <ErrorState error={list.error} onRetry={list.reload} title="Customers could not be loaded" />
      ) : (
        <Loading label="Loading customers" />
      );
  } else if (list.data.data.length === 0) {
    body = filtered ? (
      <Empty
        title="No customers match"
        action={
          <button type="button" className="button" onClick={() => update({ q: '', tag: '' })}>
            Clear filters
          </button>
        }
      >
        Change the search or the tag to see more.
      </Empty>
    ) : (
      <Empty title="No customers yet">
        A customer is made with their first order, when a shopper signs up in your shop, or by an import of a
        customers file on the <Link to="/imports">Imports</Link> page.
      </Empty>
    );
  } else {
    body = (
      <>
        <CustomerTable customers={list.data.data} onTag={(tag) => update({ tag })} />
        <Pager
          page={paging.page}
          limit={STORE_PAGE}
          shown={list.data.data.length}
          total={list.data.total}
          noun="customers"
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
        title="Customers"
        description="Who buys from you, what they spent, and their data: export it or erase it on request."
      />
      <section className="card" aria-labelledby="customers-title">
        <div className="card-header">
          <h2 id="customers-title">All customers</h2>
          <span className="hint">{list.data ? plural(list.data.total, 'customer') : null}</span>
        </div>
        <div className="filters" role="search" aria-label="Filter customers">
          <TextFilter
            label="Search"
            grow
            placeholder="Email, name or phone"
            value={values.q}
            onSettled={(q) => update({ q })}
          />
          <TextFilter
            label="Tag"
            placeholder="e.g. vip"
            value={values.tag}
            onSettled={(tag) => update({ tag })}
          />
        </div>
        {body}
      </section>
    </>
  );
}
