import { useState } from 'react';
import { useParams } from 'react-router';
import { describeFailure } from '../../api/errors.js';
import { useRedactCustomer } from '../../api/store-mutations.js';
import { downloadCustomerExport, useCustomer, useCustomerOrders } from '../../api/store-queries.js';
import { Chips } from '../../components/Badge.js';
import { Breadcrumb, DetailPending } from '../../components/Detail.js';
import { FormDialog } from '../../components/Dialog.js';
import { Field } from '../../components/Form.js';
import { PageHeader } from '../../components/Layout.js';
import { Pager, useCursorPaging } from '../../components/Pager.js';
import { Empty, ErrorState, Loading } from '../../components/States.js';
import { useToast } from '../../components/Toast.js';
import { formatDate, formatDateTime, formatNumber, plural } from '../../format.js';
import { saveDownload } from '../../download.js';
import { usePageTitle } from '../../title.js';
import type { Customer } from '../../types.js';
import { AddressLines } from '../orders/OrderPage.js';
import { OrderTable } from '../orders/Orders.js';
import { spent } from './Customers.js';

/** Erases the customer's personal data, after saying exactly what goes, what stays, and that it is final. */
function RedactDialog({ customer, onClose }: { customer: Customer; onClose: () => void }) {
  const redact = useRedactCustomer();
  const toast = useToast();
  const [typed, setTyped] = useState('');
  const [unsent, setUnsent] = useState<string>();
  return (
    <FormDialog
      title={`Erase ${customer.name ?? customer.email}’s personal data?`}
      size="wide"
      tone="danger"
      submitLabel="Erase personal data"
      busyLabel="Erasing…"
      busy={redact.isPending}
      error={unsent ?? redact.error}
      onClose={onClose}
      onSubmit={() => {
        if (typed.trim().toLowerCase() !== customer.email.toLowerCase()) {
          setUnsent('Type the customer’s email exactly to confirm.');
          return;
        }
        setUnsent(undefined);
        redact.mutate(customer.id, {
          onSuccess: () => {
            toast('Personal data erased.');
            onClose();
          },
        });
      }}
    >
      <div className="dialog-message redact-message">
        <p>Erased everywhere the store keeps it, at once:</p>
        <ul>
          <li>
            the customer’s email (it becomes <code>redacted+{customer.id}@invalid</code>), name, phone, note,
            addresses, tags and metadata;
          </li>
          <li>
            on each of their {plural(customer.orders_count, 'order')}: the name, shipping address, carrier,
            tracking number and metadata, and the reason of each refund;
          </li>
          <li>
            the copies of these in the event log, webhook deliveries’ recorded answers and stored API
            responses;
          </li>
          <li>their shop login, its sessions and any password reset.</li>
        </ul>
        <p>
          Kept: the ids, every order’s lines, amounts, payments and refunds, your figures and the customer’s
          totals. <code>customer.redacted</code> is sent to your webhook endpoints.
        </p>
        <p>
          <strong>This cannot be undone.</strong> Export the customer’s data first if you must send it to
          them.
        </p>
      </div>
      <Field
        label={`Type ${customer.email} to confirm`}
        autoComplete="off"
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
      />
    </FormDialog>
  );
}

function Profile({ customer }: { customer: Customer }) {
  const metadata = Object.entries(customer.metadata);
  return (
    <section className="card" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl className="details-grid details-two">
        <div>
          <dt>Email</dt>
          <dd>{customer.email}</dd>
        </div>
        <div>
          <dt>Phone</dt>
          <dd>{customer.phone ?? <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Marketing</dt>
          <dd>{customer.marketing_consent ? 'Agreed to receive marketing' : 'No marketing consent'}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>
            {customer.tags.length > 0 ? <Chips items={customer.tags} /> : <span className="muted">None</span>}
          </dd>
        </div>
        {customer.note ? (
          <div className="details-wide">
            <dt>Note</dt>
            <dd className="pre-line">{customer.note}</dd>
          </div>
        ) : null}
        {metadata.length > 0 ? (
          <div className="details-wide">
            <dt>Metadata</dt>
            <dd className="mono">{metadata.map(([key, value]) => `${key}: ${value}`).join(' · ')}</dd>
          </div>
        ) : null}
      </dl>
    </section>
  );
}

function Figures({ customer }: { customer: Customer }) {
  return (
    <section className="card" aria-labelledby="lifetime-title">
      <h2 id="lifetime-title">Lifetime</h2>
      <dl className="figures">
        <div>
          <dt>Orders</dt>
          <dd className="numeric" data-testid="orders-count">
            {formatNumber(customer.orders_count)}
          </dd>
        </div>
        <div>
          <dt>Spent</dt>
          <dd className="numeric">{spent(customer)}</dd>
        </div>
        <div>
          <dt>Last order</dt>
          <dd>{customer.last_order_at ? formatDateTime(customer.last_order_at) : '—'}</dd>
        </div>
        <div>
          <dt>Customer since</dt>
          <dd>{formatDate(customer.created)}</dd>
        </div>
      </dl>
      <p className="hint">Spent: payments taken less refunds.</p>
    </section>
  );
}

function Addresses({ customer }: { customer: Customer }) {
  return (
    <section className="card" aria-labelledby="addresses-title">
      <h2 id="addresses-title">Addresses</h2>
      {customer.addresses.length === 0 ? (
        <p className="muted">No addresses kept.</p>
      ) : (
        <ul className="address-list">
          {customer.addresses.map((address, i) => (
            <li key={i}>
              <AddressLines address={address} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CustomerOrders({ customer }: { customer: Customer }) {
  const paging = useCursorPaging(customer.id);
  const orders = useCustomerOrders(customer.id, paging.cursor);
  let body;
  if (orders.data === undefined) {
    body =
      orders.error !== undefined ? (
        <ErrorState error={orders.error} onRetry={orders.reload} title="Orders could not be loaded" />
      ) : (
        <Loading label="Loading orders" rows={2} />
      );
  } else if (orders.data.data.length === 0) {
    body = <Empty title="No orders yet">Their orders show here, newest first.</Empty>;
  } else {
    body = (
      <>
        <OrderTable
          orders={orders.data.data}
          caption={`Orders of ${customer.email}, newest first`}
          withCustomer={false}
        />
        <Pager
          page={paging.page}
          limit={10}
          shown={orders.data.data.length}
          total={orders.data.total}
          noun="orders"
          nextCursor={orders.data.has_more ? orders.data.next_cursor : null}
          onNext={paging.next}
          onPrevious={paging.previous}
        />
      </>
    );
  }
  return (
    <section className="card" aria-labelledby="customer-orders-title">
      <h2 id="customer-orders-title">Orders</h2>
      {body}
    </section>
  );
}

export function CustomerPage() {
  const { id = '' } = useParams();
  const customer = useCustomer(id);
  const toast = useToast();
  const [redacting, setRedacting] = useState(false);
  const [exporting, setExporting] = useState(false);
  usePageTitle(customer.data ? (customer.data.name ?? customer.data.email) : 'Customer');
  if (customer.data === undefined) {
    return <DetailPending resource={customer} noun="customer" list="/customers" listLabel="customers" />;
  }
  const data = customer.data;

  async function exportData() {
    setExporting(true);
    try {
      const file = await downloadCustomerExport(data.id);
      saveDownload(file);
      toast(`Downloaded ${file.filename}.`);
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setExporting(false);
    }
  }

  return (
    <>
      <Breadcrumb to="/customers" label="Customers" here="Customer" />
      <PageHeader
        title={data.name ?? data.email}
        description={
          data.redacted
            ? 'Personal data erased: the customer’s orders and figures are kept without it.'
            : `${data.email} · customer since ${formatDate(data.created)}`
        }
        actions={
          <>
            <button type="button" className="button" disabled={exporting} onClick={() => void exportData()}>
              {exporting ? 'Exporting…' : 'Export data'}
            </button>
            {data.redacted ? null : (
              <button type="button" className="button button-danger-ghost" onClick={() => setRedacting(true)}>
                Erase personal data
              </button>
            )}
          </>
        }
      />
      {data.redacted ? (
        <div className="banner banner-neutral" role="status">
          <div>
            <strong>Personal data erased</strong>
            <p>
              This customer’s name, email, addresses and notes were erased on request; it takes no new orders.
            </p>
          </div>
        </div>
      ) : null}
      <div className="split split-wide">
        <div className="stack">
          <Profile customer={data} />
          <Addresses customer={data} />
        </div>
        <Figures customer={data} />
      </div>
      <CustomerOrders customer={data} />
      {redacting ? <RedactDialog customer={data} onClose={() => setRedacting(false)} /> : null}
    </>
  );
}
