/**
 * The console's test-mode switch: which of the store's two modes every page shows, `live` or
 * `test` (the store's test mode, its own data). Kept for the tab (sessionStorage), sent as
 * `X-Console-Mode: test` on every `/v1` call the session makes (api/client.ts), so the API answers
 * with the test store's data; switching loads the console again, so no page keeps the other
 * mode's answers. (Read through `globalThis`: api/client.ts, which uses it, is also type-checked
 * and run outside a browser, where there is no storage and the mode is live.)
 */

export type ConsoleMode = 'live' | 'test';

const KEY = 'console-mode';

interface TabStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function tabStorage(): TabStorage | undefined {
  return (globalThis as { sessionStorage?: TabStorage }).sessionStorage;
}

export function consoleMode(): ConsoleMode {
  try {
    return tabStorage()?.getItem(KEY) === 'test' ? 'test' : 'live';
  } catch {
    return 'live';
  }
}

export function switchMode(mode: ConsoleMode): void {
  try {
    if (mode === 'test') tabStorage()?.setItem(KEY, 'test');
    else tabStorage()?.removeItem(KEY);
  } catch {
    // Storage refused (a private window's quota): the switch cannot hold, so it does nothing.
    return;
  }
  (globalThis as { location?: { reload(): void } }).location?.reload();
}
