import { useId } from 'react';
import type { OptionDraft } from './draft.js';

/** The most options a product has (the API's limit). */
const MAX_OPTIONS = 3;

/**
 * A product's options: up to three, each a name and its values typed as one line ("S, M, L"). A
 * stored option keeps its name (its variants are known by it; remove it and add another instead).
 */
export function OptionsEditor({
  options,
  fixedNames,
  error,
  onChange,
}: {
  options: OptionDraft[];
  /** The names of the options the stored product has. */
  fixedNames: ReadonlySet<string>;
  error: string | undefined;
  onChange: (options: OptionDraft[]) => void;
}) {
  const id = useId();
  const set = (index: number, change: Partial<OptionDraft>) =>
    onChange(options.map((option, i) => (i === index ? { ...option, ...change } : option)));

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <div className="card-header">
        <h2 id={`${id}-title`}>Options</h2>
        <span className="hint">
          Up to {MAX_OPTIONS}, such as size and colour: a variant for each combination
        </span>
      </div>
      {options.length === 0 ? (
        <p className="muted">
          No options: the product is sold as one variant. Add an option to sell it in sizes or colours.
        </p>
      ) : (
        <ul className="option-list">
          {options.map((option, index) => {
            const fixed = fixedNames.has(option.name.trim());
            return (
              <li key={index} className="option-row" data-option-index={index}>
                <div className="field">
                  <label htmlFor={`${id}-name-${index}`}>Option {index + 1} name</label>
                  <input
                    id={`${id}-name-${index}`}
                    value={option.name}
                    placeholder="Size"
                    maxLength={100}
                    readOnly={fixed}
                    onChange={(e) => set(index, { name: e.target.value })}
                  />
                </div>
                <div className="field field-grow">
                  <label htmlFor={`${id}-values-${index}`}>Option {index + 1} values</label>
                  <input
                    id={`${id}-values-${index}`}
                    value={option.values}
                    placeholder="S, M, L"
                    aria-describedby={`${id}-values-hint`}
                    onChange={(e) => set(index, { values: e.target.value })}
                  />
                </div>
                <button
                  type="button"
                  className="button button-small button-danger-ghost option-remove"
                  aria-label={`Remove option ${option.name.trim() || index + 1}`}
                  onClick={() => onChange(options.filter((_, i) => i !== index))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {options.length > 0 ? (
        <p id={`${id}-values-hint`} className="hint">
          Separate values with commas. A saved option keeps its name; a value removed takes its variants with
          it when you save.
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div>
        <button
          type="button"
          className="button button-small"
          disabled={options.length >= MAX_OPTIONS}
          onClick={() => onChange([...options, { name: '', values: '' }])}
        >
          Add option
        </button>
      </div>
    </section>
  );
}
