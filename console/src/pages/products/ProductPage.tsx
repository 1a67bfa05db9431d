import { useState } from 'react';
import { AuditHistory } from '../../components/AuditHistory.js';
import { useNavigate, useParams } from 'react-router';
import { useDeleteProduct, useSaveProduct } from '../../api/store-mutations.js';
import { type ProductWithVariants, useProduct } from '../../api/store-queries.js';
import { Breadcrumb, DetailPending } from '../../components/Detail.js';
import { ConfirmDialog } from '../../components/Dialog.js';
import { FormError } from '../../components/Form.js';
import { PageHeader } from '../../components/Layout.js';
import { ProductStatusBadge, StockLabel } from '../../components/StoreBadges.js';
import { useToast } from '../../components/Toast.js';
import { formatDateTime, plural } from '../../format.js';
import { useAccount } from '../../session.js';
import { usePageTitle } from '../../title.js';
import { AiDescriptionDialog } from './AiDescription.js';
import {
  carryEdits,
  completeOptions,
  draftOf,
  gridRows,
  type OptionDraft,
  type ProductDraft,
  type RowEdit,
  type VariantRow,
} from './draft.js';
import { OptionsEditor } from './OptionsEditor.js';
import { DetailsFields, ImagesField } from './ProductFields.js';
import { NotSaved, type SaveProblems, saveProduct } from './save.js';
import { VariantGrid } from './VariantGrid.js';

const NO_PROBLEMS: SaveProblems = { fields: {}, rows: {} };

/** The API field a grid cell sets, where its name differs. */
const CELL_FIELDS: Record<string, keyof SaveProblems['rows'][string]> = {
  compareAt: 'compare_at_price',
  weight: 'weight_grams',
};

/** Deletes the product, after saying what that does. */
function DeleteProduct({ stored, onClose }: { stored: ProductWithVariants; onClose: () => void }) {
  const remove = useDeleteProduct();
  const navigate = useNavigate();
  const toast = useToast();
  const { product } = stored;
  return (
    <ConfirmDialog
      title={`Delete “${product.name}”?`}
      confirmLabel="Delete product"
      busy={remove.isPending}
      error={remove.error}
      onClose={onClose}
      onConfirm={() =>
        remove.mutate(product.id, {
          onSuccess: () => {
            toast(`Product “${product.name}” deleted.`);
            navigate('/products', { replace: true });
          },
        })
      }
      message={
        <>
          <p>
            The product and its {plural(product.variant_count, 'variant')} are deleted at once, and leave the
            shop. Orders already placed keep their lines as they were sold.
          </p>
          <p>
            This cannot be undone. To stop selling it for now, set its status to Draft or Archived instead.
          </p>
        </>
      }
    />
  );
}

/** The form of a product: new (no `stored`) or stored, saved through the API in one go (save.ts). */
function ProductEditor({ stored }: { stored: ProductWithVariants | undefined }) {
  const account = useAccount();
  const toast = useToast();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<ProductDraft>(() => draftOf(stored?.product, account.tenant.currency));
  const [problems, setProblems] = useState<SaveProblems>(NO_PROBLEMS);
  const [dialog, setDialog] = useState<'delete' | 'ai' | null>(null);
  const save = useSaveProduct();
  const rows = gridRows(draft, stored);
  const withOptions = completeOptions(draft.options).length > 0;
  const fixedNames = new Set((stored?.product.options ?? []).map((option) => option.name));

  function edit(change: Partial<ProductDraft>) {
    setDraft((current) => ({ ...current, ...change }));
    // A field changed is no longer what the last save refused.
    setProblems((current) => {
      const fields = { ...current.fields };
      for (const name of Object.keys(change)) delete fields[name];
      return { ...current, fields };
    });
  }

  function setOptions(options: OptionDraft[]) {
    setProblems((current) => ({ ...current, fields: { ...current.fields, options: '', variants: '' } }));
    setDraft((current) => {
      // What the grid shows now (typed or stored) goes with its combination, renamed or not.
      const shown: Record<string, RowEdit> = {};
      for (const { key, id: _id, ...row } of gridRows(current, stored)) shown[key] = row;
      return { ...current, options, edits: carryEdits(shown, current.options, options) };
    });
  }

  function setRow(row: VariantRow, change: Partial<RowEdit>) {
    setProblems((current) => {
      const cells = { ...current.rows[row.key] };
      for (const cell of Object.keys(change)) delete cells[CELL_FIELDS[cell] ?? (cell as keyof typeof cells)];
      return { ...current, rows: { ...current.rows, [row.key]: cells } };
    });
    setDraft((current) => ({
      ...current,
      edits: {
        ...current.edits,
        [row.key]: { ...(current.edits[row.key] ?? { options: row.options }), ...change },
      },
    }));
  }

  function submit() {
    save.mutate(() => saveProduct(stored, draft), {
      onSuccess: (saved) => {
        setProblems(NO_PROBLEMS);
        if (stored === undefined) {
          toast(`Product “${saved.product.name}” created.`);
          navigate(`/products/${saved.product.id}`, { replace: true });
        } else {
          setDraft(draftOf(saved.product, account.tenant.currency));
          toast('Changes saved.');
        }
      },
      onError: (failure) =>
        setProblems(failure instanceof NotSaved ? failure.problems : { ...NO_PROBLEMS, form: failure }),
    });
  }

  const product = stored?.product;
  const marked =
    Object.values(problems.fields).some(Boolean) ||
    Object.values(problems.rows).some((cells) => Object.values(cells).some(Boolean));
  return (
    <>
      <Breadcrumb to="/products" label="Products" here={product ? 'Product' : 'New product'} />
      <PageHeader
        title={product ? product.name : 'New product'}
        description={
          product ? (
            <span className="header-facts">
              <ProductStatusBadge status={product.status} />
              <StockLabel stock={product.stock} variants={product.variant_count} />
              <span>Updated {formatDateTime(product.updated)}</span>
            </span>
          ) : (
            'Name it, price it and say how many you have; add options to sell it in sizes or colours.'
          )
        }
        actions={
          <>
            {stored ? (
              <button
                type="button"
                className="button button-danger-ghost"
                onClick={() => setDialog('delete')}
              >
                Delete product
              </button>
            ) : null}
            <button
              type="submit"
              form="product-form"
              className="button button-primary"
              disabled={save.isPending}
            >
              {save.isPending ? 'Saving…' : stored ? 'Save changes' : 'Create product'}
            </button>
          </>
        }
      />
      <form
        id="product-form"
        className="product-form"
        aria-label={product ? `Edit ${product.name}` : 'New product'}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <DetailsFields
          draft={draft}
          isNew={stored === undefined}
          errors={problems.fields}
          onChange={edit}
          onWriteDescription={() => setDialog('ai')}
        />
        <ImagesField
          images={draft.images}
          error={problems.fields.images}
          onChange={(images) => edit({ images })}
        />
        <OptionsEditor
          options={draft.options}
          fixedNames={fixedNames}
          error={problems.fields.options}
          onChange={setOptions}
        />
        <VariantGrid
          rows={rows}
          currency={draft.currency}
          withOptions={withOptions}
          errors={problems.rows}
          error={problems.fields.variants}
          onChange={setRow}
        />
        <div className="form-footer">
          <FormError
            error={
              problems.form ?? (marked ? 'Correct the fields marked above, then save again.' : undefined)
            }
          />
          <button type="submit" className="button button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : stored ? 'Save changes' : 'Create product'}
          </button>
        </div>
      </form>
      {dialog === 'delete' && stored ? (
        <DeleteProduct stored={stored} onClose={() => setDialog(null)} />
      ) : null}
      {dialog === 'ai' ? (
        <AiDescriptionDialog
          subject={
            stored
              ? { product_id: stored.product.id }
              : {
                  product: {
                    name: draft.name.trim() || 'Untitled product',
                    ...(draft.category.trim() ? { category: draft.category.trim() } : {}),
                    ...(withOptions ? { options: completeOptions(draft.options) } : {}),
                  },
                }
          }
          onUse={(description) => edit({ description })}
          onClose={() => setDialog(null)}
        />
      ) : null}
    </>
  );
}

export function ProductPage() {
  const { id = '' } = useParams();
  const stored = useProduct(id);
  usePageTitle(stored.data?.product.name ?? 'Product');
  if (stored.data === undefined) {
    return <DetailPending resource={stored} noun="product" list="/products" listLabel="products" />;
  }
  // Keyed by product: another product's page starts its own form.
  return (
    <>
      <ProductEditor key={id} stored={stored.data} />
      <AuditHistory key={`history-${id}`} resourceId={id} noun="product" />
    </>
  );
}

export function NewProduct() {
  usePageTitle('New product');
  return <ProductEditor stored={undefined} />;
}
