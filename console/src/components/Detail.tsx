import { Link } from 'react-router';
import { isNotFound } from '../api/errors.js';
import type { Resource } from '../api/query.js';
import { PageHeader } from './Layout.js';
import { Empty, ErrorState, Loading } from './States.js';

/**
 * What a page of one thing (a product, an order, a customer) shows until it has it: loading, why
 * it could not load (with a retry), or that there is no such thing, with the way back to its list.
 */
export function DetailPending({
  resource,
  noun,
  list,
  listLabel,
}: {
  resource: Resource<unknown>;
  /** "product", "order". */
  noun: string;
  list: string;
  listLabel: string;
}) {
  if (isNotFound(resource.error)) {
    const title = `${noun.charAt(0).toUpperCase()}${noun.slice(1)} not found`;
    return (
      <>
        <PageHeader title={title} />
        <Empty title={`There is no such ${noun}`} action={<Link to={list}>Back to {listLabel}</Link>}>
          It may have been deleted, or belong to another store.
        </Empty>
      </>
    );
  }
  return resource.error !== undefined ? (
    <ErrorState error={resource.error} onRetry={resource.reload} title={`The ${noun} could not be loaded`} />
  ) : (
    <Loading label={`Loading the ${noun}`} />
  );
}

/** "Products / Trail Runner", above a page's title. */
export function Breadcrumb({ to, label, here }: { to: string; label: string; here: string }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      <Link to={to}>{label}</Link> <span aria-hidden="true">/</span> <span>{here}</span>
    </nav>
  );
}
