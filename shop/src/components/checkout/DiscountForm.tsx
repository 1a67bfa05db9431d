import { type FormEvent, useState } from 'react';
import { describeError } from '../../api/errors.js';
import type { Cart } from '../../types.js';
import { Field } from '../Field.js';

/** Why a code does not apply, as the cart's `discount_invalid` problem's `reason` says. */
const REASONS: Record<string, string> = {
  unknown: 'There is no such code.',
  disabled: 'This code is not active.',
  not_started: 'This code is not valid yet.',
  expired: 'This code has expired.',
  usage_limit_reached: 'This code has been used up.',
  minimum_not_met: 'Your order is under this code’s minimum.',
  not_combinable: 'This code cannot be combined with your other code.',
};

/** Discount codes: one more applied, each applied one removable, and why one does not apply. */
export function DiscountForm({
  cart,
  busy,
  error,
  onCodes,
}: {
  cart: Cart;
  busy: boolean;
  error: unknown;
  onCodes: (codes: string[], done?: () => void) => void;
}) {
  const [code, setCode] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    const typed = code.trim();
    if (!typed) return;
    const known = cart.discount_codes.some((c) => c.toUpperCase() === typed.toUpperCase());
    if (known) return setCode('');
    onCodes([...cart.discount_codes, typed], () => setCode(''));
  }

  return (
    <section className="panel" aria-labelledby="discount-heading">
      <h2 id="discount-heading">Discount</h2>
      <form className="inline-form" onSubmit={submit}>
        <Field
          label="Discount code"
          required
          maxLength={64}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy}>
          Apply
        </button>
      </form>
      {error ? (
        <p className="field-error" role="alert">
          {describeError(error)}
        </p>
      ) : null}
      {cart.discount_codes.length > 0 ? (
        <ul className="codes" aria-label="Codes">
          {cart.discount_codes.map((applied) => {
            const problem = cart.problems.find(
              (p) =>
                p.code === 'discount_invalid' && p.discount_code?.toUpperCase() === applied.toUpperCase(),
            );
            return (
              <li key={applied} className={problem ? 'code code-invalid' : 'code'}>
                <span className="mono">{applied}</span>
                <span className={problem ? 'field-error' : 'muted'} role={problem ? 'alert' : undefined}>
                  {problem ? (REASONS[problem.reason ?? ''] ?? problem.message) : 'Applied'}
                </span>
                <button
                  type="button"
                  className="button button-small button-ghost"
                  aria-label={`Remove code ${applied}`}
                  disabled={busy}
                  onClick={() => onCodes(cart.discount_codes.filter((c) => c !== applied))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
