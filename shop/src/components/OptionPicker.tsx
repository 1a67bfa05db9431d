import type { Product } from '../types.js';
import { canBuy, type Selection } from '../variants.js';

/**
 * One radio group per option (a legend, a radio per value: arrow keys move within it, as any radio
 * group). A value that cannot be bought with the others as chosen is greyed out and says so, but
 * can still be chosen: the page then moves the other options to a combination that can be bought,
 * or says that this one is sold out.
 */
export function OptionPicker({
  product,
  selection,
  onChoose,
}: {
  product: Product;
  selection: Selection;
  onChoose: (option: string, value: string) => void;
}) {
  return (
    <>
      {product.options.map((option) => (
        <fieldset key={option.name} className="options">
          <legend>
            {option.name}: <span className="chosen">{selection[option.name] ?? 'choose one'}</span>
          </legend>
          <div className="option-values">
            {option.values.map((value) => {
              const buyable = canBuy(product, selection, option.name, value);
              const id = `option-${option.name}-${value}`.replace(/\s+/g, '-');
              return (
                <span key={value} className="option-value">
                  <input
                    type="radio"
                    id={id}
                    name={`option-${option.name}`}
                    value={value}
                    checked={selection[option.name] === value}
                    onChange={() => onChoose(option.name, value)}
                    className="visually-hidden"
                  />
                  <label htmlFor={id} className={buyable ? 'pill' : 'pill pill-unavailable'}>
                    {value}
                    {buyable ? null : <span className="visually-hidden"> (sold out)</span>}
                  </label>
                </span>
              );
            })}
          </div>
        </fieldset>
      ))}
    </>
  );
}
