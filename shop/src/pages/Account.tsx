import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { forgetCart } from '../api/cart.js';
import { describeError, fieldErrors } from '../api/errors.js';
import { useCustomer, useOrders } from '../api/queries.js';
import { useCustomerToken, useSignIn, useSignOut, useSignUp } from '../api/session.js';
import { Field } from '../components/Field.js';
import { usePageTitle } from '../components/Layout.js';
import { statusText } from '../components/Receipt.js';
import { ErrorNotice, Loading } from '../components/States.js';
import { day, money } from '../format.js';
import { Link, navigate } from '../router.js';

/** Signing in and up, and the signed-in shopper's account: their orders, and signing out. */

function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="field-error" role="alert">
      {describeError(error)}
    </p>
  );
}

export function SignIn() {
  usePageTitle('Sign in');
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate({ email: email.trim(), password });
  }
  return (
    <div className="narrow">
      <h1>Sign in</h1>
      <form className="panel" onSubmit={submit}>
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FormError error={signIn.error} />
        <button type="submit" className="button button-primary button-block" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        New here? <Link to="/account/signup">Create an account</Link>.
      </p>
    </div>
  );
}

export function SignUp() {
  usePageTitle('Create an account');
  const signUp = useSignUp();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const errors = fieldErrors(signUp.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    signUp.mutate(
      { email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) },
      { onSuccess: () => navigate('/account', { replace: true }) },
    );
  }
  return (
    <div className="narrow">
      <h1>Create an account</h1>
      <form className="panel" onSubmit={submit}>
        <Field
          label="Name"
          autoComplete="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={errors.name}
        />
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errors.email}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={200}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint="At least 8 characters."
          error={errors.password}
        />
        <FormError error={signUp.error} />
        <button type="submit" className="button button-primary button-block" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
      <p>
        Have an account? <Link to="/account">Sign in</Link>.
      </p>
    </div>
  );
}

function Orders() {
  const orders = useOrders();
  if (orders.isPending) return <Loading label="Loading your orders" />;
  if (!orders.data) return <ErrorNotice error={orders.error} onRetry={() => void orders.refetch()} />;
  if (orders.data.length === 0) return <p>No orders yet.</p>;
  return (
    <ul className="orders" aria-label="Your orders">
      {orders.data.map((order) => (
        <li key={order.id} className="order-row">
          <Link to={`/orders/${order.id}`} className="mono">
            {order.id}
          </Link>
          <span>{day(order.created)}</span>
          <span>{statusText(order.status)}</span>
          <span className="order-total">{money(order.total, order.currency)}</span>
          <span className="muted">
            {order.items.map((item) => `${item.name} × ${item.quantity}`).join(', ')}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Profile() {
  usePageTitle('Your account');
  const customer = useCustomer();
  const signOut = useSignOut();
  const client = useQueryClient();
  return (
    <>
      <div className="page-head">
        <h1>Your account</h1>
        <button
          type="button"
          className="button"
          disabled={signOut.isPending}
          onClick={() => {
            // A cart of theirs stays theirs: this device forgets it with the session.
            forgetCart(client);
            signOut.mutate();
          }}
        >
          Sign out
        </button>
      </div>
      {customer.data ? (
        <p>
          Signed in as {customer.data.name ? `${customer.data.name}, ` : ''}
          <strong>{customer.data.email}</strong>.
        </p>
      ) : (
        <ErrorNotice error={customer.error} onRetry={() => void customer.refetch()} />
      )}
      <h2>Your orders</h2>
      <Orders />
    </>
  );
}

export function Account() {
  return useCustomerToken() === null ? <SignIn /> : <Profile />;
}
