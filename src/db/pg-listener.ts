import pg from 'pg';

/**
 * PostgreSQL's LISTEN for the store (store.ts `listen`): one dedicated connection per process for
 * every channel it listens on.
 */

interface Subscription {
  onMessage: (payload: string) => void;
  onGap: () => void;
}

/**
 * One dedicated connection (LISTEN cannot share a pooled one) for every channel this process
 * listens on, opened with the first listener. A lost connection is opened again after a pause,
 * and every subscriber hears `onGap`, since notifications sent meanwhile are gone.
 */
export function createListener(url: string) {
  const channels = new Map<string, Subscription[]>();
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let connecting = false;
  let closed = false;

  const gap = () => {
    for (const subscriptions of channels.values()) for (const s of subscriptions) s.onGap();
  };

  async function connect(): Promise<void> {
    retry = undefined;
    if (closed) return;
    connecting = true;
    const next = new pg.Client({ connectionString: url });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 1_000);
    };
    next.on('error', onLost);
    next.on('end', onLost);
    next.on('notification', (message) => {
      for (const s of channels.get(message.channel) ?? []) s.onMessage(message.payload ?? '');
    });
    try {
      await next.connect();
      // A channel added meanwhile is still visited: a Map iterates over entries added during iteration.
      for (const name of channels.keys()) await next.query(`LISTEN ${next.escapeIdentifier(name)}`);
    } catch {
      onLost();
      return;
    } finally {
      connecting = false;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    // Whatever was sent before this connection listened was not heard.
    gap();
  }

  return {
    add(name: string, onMessage: (payload: string) => void, onGap: () => void): void {
      const subscriptions = channels.get(name);
      if (subscriptions) {
        subscriptions.push({ onMessage, onGap });
        return;
      }
      channels.set(name, [{ onMessage, onGap }]);
      if (client) {
        const listening = client;
        listening.query(`LISTEN ${listening.escapeIdentifier(name)}`).catch(() => listening.end());
      } else if (retry === undefined && !connecting) {
        retry = setTimeout(() => void connect(), 0);
      }
    },
    async close(): Promise<void> {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
