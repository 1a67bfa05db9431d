import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { keepCustomerToken, storefront } from './client.js';
import { isProblem } from './errors.js';

/**
 * The shopper's session: signing up, in and out through the storefront's account routes. The
 * token the store answers is sent with every call from then on (`X-Customer-Token`), so the carts
 * the shopper makes are theirs and their orders can be listed; a token the store no longer takes
 * (`401 invalid_customer_token`: it expired, or they signed out elsewhere) is forgotten.
 */

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setToken(token: string | null): void {
  keepCustomerToken(token);
  for (const listener of listeners) listener();
}

/** The signed-in shopper's token, or null; the page renders again when it changes. */
export function useCustomerToken(): string | null {
  return useSyncExternalStore(subscribe, () => storefront().customerToken);
}

/** Forgets a session the store no longer takes; true when the error was that. */
export function forgetEndedSession(error: unknown): boolean {
  if (!isProblem(error, 'invalid_customer_token')) return false;
  setToken(null);
  return true;
}

export interface SignIn {
  email: string;
  password: string;
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: SignIn) => {
      const session = await storefront().signIn(body);
      setToken(session.token);
      return session;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['cart'] }),
  });
}

export function useSignUp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: SignIn & { name?: string }) => {
      await storefront().store.createCustomer(body);
      const session = await storefront().signIn({ email: body.email, password: body.password });
      setToken(session.token);
      return session;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['cart'] }),
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await storefront().signOut();
      } finally {
        setToken(null);
      }
    },
    onSettled: () => {
      client.removeQueries({ queryKey: ['orders'] });
      client.removeQueries({ queryKey: ['customer'] });
    },
  });
}
