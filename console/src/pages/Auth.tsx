import { type FormEvent, type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { describeError, formErrors } from '../api/errors.js';
import { Field, FormError, SelectField } from '../components/Form.js';
import { useSession } from '../session.js';
import { usePageTitle } from '../title.js';

function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer: ReactNode;
}) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <div className="brand brand-center">
          <img src="/console/favicon.svg" alt="" width="36" height="36" />
          <span className="brand-name">Commerce Platform</span>
        </div>
        <h1>{title}</h1>
        <p className="auth-subtitle">{subtitle}</p>
        {children}
        <p className="auth-footer">{footer}</p>
      </div>
    </main>
  );
}

export function Login() {
  usePageTitle('Log in');
  const { login, expired } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // Signed in, the login route sends the visitor on (to ?next= when there is one).
      await login(email, password);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Log in"
      subtitle="Manage API keys, webhooks, plugins and usage."
      footer={
        <>
          New here? <Link to="/signup">Create an account</Link>
        </>
      }
    >
      {expired ? (
        <p className="banner banner-warning banner-inline auth-notice" role="alert">
          Your session expired; log in again to continue where you left off.
        </p>
      ) : null}
      <form onSubmit={(event) => void submit(event)} noValidate={false}>
        <Field
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          autoFocus
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FormError error={error} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </AuthCard>
  );
}

/** The sign-up form's fields, by their name in the API, and their labels. */
const SIGNUP_FIELDS = {
  store_name: 'Store name',
  owner_name: 'Your name',
  email: 'Email',
  password: 'Password',
  currency: 'Currency',
};

/** The currencies a store can choose: the ISO 4217 codes the browser knows (the server checks them too). */
const CURRENCIES = Intl.supportedValuesOf('currency');

export function Signup() {
  usePageTitle('Create an account');
  const { signup } = useSession();
  const [form, setForm] = useState({
    store_name: '',
    owner_name: '',
    email: '',
    password: '',
    currency: 'USD',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const { fields, form: formError } = formErrors(error, SIGNUP_FIELDS);
  const set = (name: keyof typeof form) => (event: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setForm((current) => ({ ...current, [name]: event.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // Signed in, the sign-up route sends the visitor on to the overview.
      await signup({
        store_name: form.store_name,
        email: form.email,
        password: form.password,
        currency: form.currency,
        ...(form.owner_name.trim() ? { owner_name: form.owner_name.trim() } : {}),
      });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  }

  return (
    <AuthCard
      title="Create your account"
      subtitle="A store, your owner login and a first API key, in one step."
      footer={
        <>
          Already have an account? <Link to="/login">Log in</Link>
        </>
      }
    >
      <form onSubmit={(event) => void submit(event)}>
        <Field
          label={SIGNUP_FIELDS.store_name}
          name="store_name"
          required
          maxLength={200}
          value={form.store_name}
          onChange={set('store_name')}
          error={fields.store_name}
          autoFocus
        />
        <Field
          label={SIGNUP_FIELDS.owner_name}
          name="owner_name"
          autoComplete="name"
          maxLength={200}
          hint="Optional."
          value={form.owner_name}
          onChange={set('owner_name')}
          error={fields.owner_name}
        />
        <Field
          label={SIGNUP_FIELDS.email}
          type="email"
          name="email"
          autoComplete="email"
          required
          value={form.email}
          onChange={set('email')}
          error={fields.email}
        />
        <Field
          label={SIGNUP_FIELDS.password}
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={200}
          hint="At least 8 characters."
          value={form.password}
          onChange={set('password')}
          error={fields.password}
        />
        <SelectField
          label={SIGNUP_FIELDS.currency}
          name="currency"
          hint="Your prices and wallet; it can change until your first order."
          value={form.currency}
          onChange={set('currency')}
          error={fields.currency}
        >
          {CURRENCIES.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </SelectField>
        <FormError error={formError} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
    </AuthCard>
  );
}
