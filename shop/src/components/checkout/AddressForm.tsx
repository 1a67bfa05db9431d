import { type FormEvent, useState } from 'react';
import { describeError, fieldErrors } from '../../api/errors.js';
import { countries } from '../../countries.js';
import type { Address, Cart, Customer } from '../../types.js';
import { Field } from '../Field.js';

/**
 * The shopper's email and shipping address, sent to the cart in one change: the API answers the
 * cart priced for that address (its shipping rates, its tax), which the page shows at once. A
 * signed-in shopper starts from their account's email and first address.
 */

type Form = Required<
  Pick<Address, 'name' | 'line1' | 'line2' | 'city' | 'state' | 'postal_code' | 'country'>
>;

function initialForm(cart: Cart, customer: Customer | null | undefined): Form {
  const from = cart.shipping_address ?? customer?.addresses[0];
  return {
    name: from?.name ?? customer?.name ?? '',
    line1: from?.line1 ?? '',
    line2: from?.line2 ?? '',
    city: from?.city ?? '',
    state: from?.state ?? '',
    postal_code: from?.postal_code ?? '',
    country: from?.country ?? 'US',
  };
}

/** The address as the API takes it: blanks left out. */
function addressOf(form: Form): Address {
  const address: Address = { line1: form.line1.trim(), city: form.city.trim(), country: form.country };
  for (const name of ['name', 'line2', 'state', 'postal_code'] as const) {
    const value = form[name].trim();
    if (value) address[name] = value;
  }
  return address;
}

export function AddressForm({
  cart,
  customer,
  busy,
  error,
  onSave,
}: {
  cart: Cart;
  customer: Customer | null | undefined;
  busy: boolean;
  error: unknown;
  onSave: (body: { email: string; shipping_address: Address }) => void;
}) {
  const [email, setEmail] = useState(cart.email ?? customer?.email ?? '');
  const [form, setForm] = useState<Form>(() => initialForm(cart, customer));
  const errors = fieldErrors(error);
  const of = (name: keyof Form) => errors[`shipping_address.${name}`];
  const set = (name: keyof Form) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [name]: event.target.value }));
  const shown = ['email', ...Object.keys(form).map((name) => `shipping_address.${name}`)];
  const unshown =
    error !== null && error !== undefined && !Object.keys(errors).some((f) => shown.includes(f));
  const missingEmail = cart.problems.some((problem) => problem.code === 'email_required');

  function submit(event: FormEvent) {
    event.preventDefault();
    onSave({ email: email.trim(), shipping_address: addressOf(form) });
  }

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="contact-heading">
      <h2 id="contact-heading">Contact and shipping address</h2>
      <Field
        label="Email"
        type="email"
        autoComplete="email"
        required
        maxLength={254}
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={errors.email}
        hint={missingEmail && !cart.email ? 'Your order confirmation goes here.' : undefined}
      />
      <Field
        label="Full name"
        autoComplete="name"
        value={form.name}
        onChange={set('name')}
        error={of('name')}
      />
      <Field
        label="Address"
        autoComplete="address-line1"
        required
        value={form.line1}
        onChange={set('line1')}
        error={of('line1')}
      />
      <Field
        label="Apartment, suite, etc."
        autoComplete="address-line2"
        value={form.line2}
        onChange={set('line2')}
        error={of('line2')}
      />
      <div className="field-row">
        <Field
          label="City"
          autoComplete="address-level2"
          required
          value={form.city}
          onChange={set('city')}
          error={of('city')}
        />
        <Field
          label="State or region"
          autoComplete="address-level1"
          value={form.state}
          onChange={set('state')}
          error={of('state')}
        />
        <Field
          label="Postal code"
          autoComplete="postal-code"
          value={form.postal_code}
          onChange={set('postal_code')}
          error={of('postal_code')}
        />
      </div>
      <div className="field">
        <label htmlFor="country">Country</label>
        <select
          id="country"
          autoComplete="country"
          value={form.country}
          onChange={set('country')}
          aria-invalid={of('country') ? true : undefined}
        >
          {countries().map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
        {of('country') ? <p className="field-error">{of('country')}</p> : null}
      </div>
      {unshown ? (
        <p className="field-error" role="alert">
          {describeError(error)}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={busy}>
        {busy ? 'Saving…' : cart.shipping_address ? 'Update address' : 'Save address'}
      </button>
    </form>
  );
}
