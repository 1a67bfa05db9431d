import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { account as accountApi } from './api/account.js';
import { setCsrfToken, setUnauthorizedHandler } from './api/client.js';
import { ApiError } from './api/errors.js';
import type { Account, SignupResult } from './types.js';

interface SessionState {
  /** undefined while the first check runs; null when logged out. */
  account: Account | null | undefined;
  error: unknown;
  /** The full first API key from sign-up, until the welcome dialog is dismissed. */
  firstKey: string | undefined;
  dismissFirstKey(): void;
  /** True after the user logged out here (not when the session expired). */
  loggedOut: boolean;
  /** True when the server ended the session while the user was signed in here, until the next login. */
  expired: boolean;
  login(email: string, password: string): Promise<void>;
  signup(input: {
    store_name: string;
    owner_name?: string;
    email: string;
    password: string;
    currency?: string;
  }): Promise<SignupResult>;
  logout(): Promise<void>;
  refresh(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [firstKey, setFirstKey] = useState<string>();
  const [loggedOut, setLoggedOut] = useState(false);
  const [expired, setExpired] = useState(false);
  /** Signed in, and not logging out: a 401 now means the server ended the session. */
  const active = useRef(false);

  const adopt = useCallback((next: Account | null) => {
    setCsrfToken(next?.csrf_token ?? '');
    active.current = next !== null;
    if (next) {
      setLoggedOut(false);
      setExpired(false);
    }
    setAccount(next);
  }, []);

  /** The server answered 401: the session is over (expired, or ended elsewhere). */
  const ended = useCallback(() => {
    if (active.current) setExpired(true);
    adopt(null);
  }, [adopt]);

  /** Asks the server who is logged in (401: nobody). */
  const check = useCallback(
    () =>
      accountApi.session().then(
        (current) => {
          adopt(current);
          setError(undefined);
        },
        (failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 401) ended();
          else setError(failure);
        },
      ),
    [adopt, ended],
  );

  useEffect(() => {
    setUnauthorizedHandler(ended);
    void check();
  }, [ended, check]);

  const value = useMemo<SessionState>(
    () => ({
      account,
      error,
      refresh: check,
      firstKey,
      dismissFirstKey: () => setFirstKey(undefined),
      loggedOut,
      expired,
      async login(email, password) {
        adopt(await accountApi.login(email, password));
      },
      async signup(input) {
        const result = await accountApi.signup(input);
        setFirstKey(result.api_key.key);
        adopt(result);
        return result;
      },
      async logout() {
        // Calls still under way may answer 401 once the session is gone: that is no expiry.
        active.current = false;
        try {
          await accountApi.logout();
        } finally {
          setFirstKey(undefined);
          setLoggedOut(true);
          adopt(null);
        }
      },
    }),
    [account, error, check, adopt, firstKey, loggedOut, expired],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The logged-in account; only for pages behind the login gate. */
export function useAccount(): Account {
  const { account } = useSession();
  if (!account) throw new Error('useAccount without a session');
  return account;
}
