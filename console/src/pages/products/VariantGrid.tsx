import { type InputHTMLAttributes, useId, useState } from 'react';
import { comboTitle, type RowEdit, type RowValues, type VariantRow } from './draft.js';
import type { VARIANT_COLUMNS } from './save.js';

type Column = keyof typeof VARIANT_COLUMNS;

/** The grid's columns: the cell a row types in, the API field its errors name, how it is typed. */
const CELLS: {
  cell: keyof RowValues;
  field: Column;
  label: string;
  input: InputHTMLAttributes<HTMLInputElement>;
}[] = [
  { cell: 'price', field: 'price', label: 'Price', input: { inputMode: 'decimal', placeholder: '0.00' } },
  {
    cell: 'compareAt',
    field: 'compare_at_price',
    label: 'Compare-at price',
    input: { inputMode: 'decimal', placeholder: 'None' },
  },
  { cell: 'sku', field: 'sku', label: 'SKU', input: { maxLength: 64, autoCapitalize: 'characters' } },
  { cell: 'stock', field: 'stock', label: 'Stock', input: { inputMode: 'numeric' } },
  {
    cell: 'weight',
    field: 'weight_grams',
    label: 'Weight (g)',
    input: { inputMode: 'numeric', placeholder: 'None' },
  },
  {
    cell: 'barcode',
    field: 'barcode',
    label: 'Barcode',
    input: { maxLength: 64, placeholder: 'GTIN, EAN, UPC' },
  },
];

/** "Set every price to", applied to the rows sold. */
function FillAll({
  onFill,
  currency,
}: {
  onFill: (cell: 'price' | 'stock', value: string) => void;
  currency: string;
}) {
  const id = useId();
  const [price, setPrice] = useState('');
  const [stock, setStock] = useState('');
  return (
    <div className="grid-fill">
      <div className="field field-inline">
        <label htmlFor={`${id}-price`}>Every price ({currency})</label>
        <input
          id={`${id}-price`}
          inputMode="decimal"
          value={price}
          onChange={(e) => setPrice(e.target.value)}
        />
        <button
          type="button"
          className="button button-small"
          disabled={!price.trim()}
          aria-label="Apply the price to every variant sold"
          onClick={() => onFill('price', price)}
        >
          Apply
        </button>
      </div>
      <div className="field field-inline">
        <label htmlFor={`${id}-stock`}>Every stock</label>
        <input
          id={`${id}-stock`}
          inputMode="numeric"
          value={stock}
          onChange={(e) => setStock(e.target.value)}
        />
        <button
          type="button"
          className="button button-small"
          disabled={!stock.trim()}
          aria-label="Apply the stock to every variant sold"
          onClick={() => onFill('stock', stock)}
        >
          Apply
        </button>
      </div>
    </div>
  );
}

/**
 * The variant grid: a row per combination of the options' values (one, "Default", without
 * options), each with its price, compare-at price, SKU, stock, weight and barcode, and whether the
 * product sells it. Each cell's error from the last save shows under it.
 */
export function VariantGrid({
  rows,
  currency,
  withOptions,
  errors,
  error,
  onChange,
}: {
  rows: VariantRow[];
  currency: string;
  withOptions: boolean;
  errors: Record<string, Partial<Record<Column, string>>>;
  /** For the grid as a whole ("choose at least one combination"). */
  error: string | undefined;
  onChange: (row: VariantRow, change: Partial<RowEdit>) => void;
}) {
  const id = useId();
  const sold = rows.filter((row) => row.sold).length;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <div className="card-header">
        <h2 id={`${id}-title`}>{withOptions ? 'Variants' : 'Price and stock'}</h2>
        <span className="hint">
          {withOptions ? `${sold} of ${rows.length} combinations sold · ` : ''}prices in {currency}
        </span>
      </div>
      {withOptions && rows.length > 1 ? (
        <FillAll
          currency={currency}
          onFill={(cell, value) => {
            for (const row of rows) if (row.sold) onChange(row, { [cell]: value });
          }}
        />
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="table table-variants">
          <caption className="visually-hidden">
            {withOptions ? 'A row per combination of the options’ values' : 'The product’s one variant'}
          </caption>
          <thead>
            <tr>
              {withOptions ? <th scope="col">Sell</th> : null}
              <th scope="col">Variant</th>
              {CELLS.map(({ cell, label }) => (
                <th key={cell} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const title = comboTitle(row.options);
              const rowErrors = errors[row.key] ?? {};
              return (
                <tr key={row.key} data-variant={title} className={row.sold ? undefined : 'row-unsold'}>
                  {withOptions ? (
                    <td data-label="Sell" className="grid-sell">
                      <input
                        type="checkbox"
                        checked={row.sold}
                        aria-label={`Sell ${title}`}
                        onChange={(e) => onChange(row, { sold: e.target.checked })}
                      />
                    </td>
                  ) : null}
                  <th scope="row" data-label="Variant" className="grid-title">
                    {title}
                    {row.id ? null : <span className="grid-new">New</span>}
                  </th>
                  {CELLS.map(({ cell, field, label, input }) => {
                    const problem = rowErrors[field];
                    const hintId = `${id}-${row.key}-${cell}`;
                    return (
                      <td key={cell} data-label={label} className={`grid-cell grid-${cell}`}>
                        <div className="grid-input">
                          <input
                            {...input}
                            value={row[cell]}
                            disabled={!row.sold}
                            aria-label={withOptions ? `${label} of ${title}` : label}
                            aria-invalid={problem ? true : undefined}
                            aria-describedby={problem ? hintId : undefined}
                            onChange={(e) => onChange(row, { [cell]: e.target.value })}
                          />
                          {problem ? (
                            <p id={hintId} className="field-error">
                              {problem}
                            </p>
                          ) : null}
                        </div>
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
